import SluiceCore
import SluiceExpr
import SluicePlan

/// Turns the batch plan of a materialized view's query into the stream plan that maintains it.
///
/// What cannot be maintained incrementally yet is refused here, at CREATE time, with 0A000 and a
/// message naming the construct, so a view is never accepted and then wrong.
package enum StreamPlanner {
    package static func plan(_ batch: BatchPlan, emitOnWindowClose: Bool = false) throws(SluiceError) -> StreamPlan {
        var root = batch
        // A view has no order: a top-level ORDER BY without LIMIT is dropped, as RisingWave does.
        while case .sort(let input, _) = root { root = input }
        // No row counts: a view is planned again, alike, each time the server starts.
        let plan = try convert(Optimizer().optimize(root))
        guard emitOnWindowClose else { return plan }
        // Each window shows once, final, and its state goes: a join that keeps every row
        // would break the promise.
        if let unbounded = plan.unboundedState.first(where: { $0.message.hasPrefix("the join") }) {
            throw SluiceError(
                .featureNotSupported, "EMIT ON WINDOW CLOSE cannot keep this view's state bounded: \(unbounded.message)", hint: unbounded.hint)
        }
        // Each row waits for the watermark to pass its window, then shows once, final.
        guard let windowColumn = plan.watermarkColumns.first else {
            throw SluiceError(
                .featureNotSupported, "EMIT ON WINDOW CLOSE needs a column the watermark passes, and this query has none",
                hint: "Give the source a WATERMARK FOR its time column, and group by a window over it: "
                    + "GROUP BY window_start FROM TUMBLE(source, time_column, INTERVAL '1 minute').")
        }
        return .windowClose(input: plan, windowColumn: windowColumn, key: plan.streamKey ?? Array(plan.outputTypes.indices))
    }

    /// `outer` with each column reference replaced by the `inner` expression it reads, so two
    /// projections run as one; nil when that would compute an inner expression more than once
    /// (one read more than once that is not a column or a constant).
    private static func compose(_ outer: [ScalarExpr], over inner: [ScalarExpr]) -> [ScalarExpr]? {
        var uses: [Int: Int] = [:]
        for expression in outer { expression.visit { if case .column(let index, _) = $0 { uses[index, default: 0] += 1 } } }
        for (index, count) in uses where count > 1 {
            switch inner[index] {
            case .column, .literal: continue
            default: return nil
            }
        }
        return outer.map { expression in
            expression.rewritten { node in
                if case .column(let index, _) = node { return inner[index] }
                return node
            }
        }
    }

    static func convert(_ plan: BatchPlan) throws(SluiceError) -> StreamPlan {
        switch plan {
        case .scan(let scan):
            if scan.asOfProcessingTime {
                throw SluiceError(
                    .featureNotSupported, "\(scan.tableName) FOR SYSTEM_TIME AS OF PROCTIME() must be one side of a join",
                    hint: "Join a stream with it: FROM s JOIN t FOR SYSTEM_TIME AS OF PROCTIME() ON s.k = t.k.")
            }
            return .scan(scan)
        case .values(let rows, let types):
            for row in rows { for expression in row { try checkDeterministic(expression) } }
            return .values(rows: rows, types: types)
        case .filter(let input, let predicate):
            if let topN = try rankFilter(input, predicate) { return topN }
            if let temporal = try temporalFilter(input, predicate) { return temporal }
            try checkDeterministic(predicate)
            let converted = try convert(input)
            // Fuse with a projection below only when it has no filter of its own and is a plain
            // selection of columns; otherwise keep the nodes apart.
            let identity = converted.outputTypes.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
            return .project(input: converted, predicate: predicate, expressions: identity)
        case .project(let input, let expressions):
            for expression in expressions { try checkDeterministic(expression) }
            let converted = try convert(input)
            let inputTypes = converted.outputTypes
            if expressions.count == inputTypes.count, expressions.enumerated().allSatisfy({ $0.element == .column($0.offset, inputTypes[$0.offset]) }) {
                return converted
            }
            if let filter = converted.node as? ProjectNode, filter.isIdentity {
                return .project(input: filter.input, predicate: filter.predicate, expressions: expressions)
            }
            if let inner = converted.node as? ProjectNode, let composed = compose(expressions, over: inner.expressions) {
                return .project(input: inner.input, predicate: inner.predicate, expressions: composed)
            }
            if let set = converted.node as? ProjectSetNode, let (narrowed, remapped) = pruned(set, readBy: expressions) {
                return .project(input: narrowed, predicate: nil, expressions: remapped)
            }
            return .project(input: converted, predicate: nil, expressions: expressions)
        case .hashAggregate(let input, let groupCount, let aggregates):
            return .hashAggregate(input: try convert(input), groupCount: groupCount, aggregates: aggregates)
        case .hashJoin(let join):
            if let residual = join.residual { try checkDeterministic(residual) }
            if readsAsOfProcessingTime(join.left) || readsAsOfProcessingTime(join.right) { return try lookupJoin(join) }
            if join.kind == .semi || join.kind == .anti, join.residual == nil, !join.leftKeys.isEmpty { return try semiJoin(join) }
            switch join.kind {
            case .inner, .left, .semi, .anti:
                // (Semi and anti joins here have a condition or no keys: the join keeps each left
                // row's number of matches itself.)
                return .hashJoin(
                    StreamHashJoinPlan(
                        left: try convert(join.left), right: try convert(join.right), kind: join.kind, leftKeys: join.leftKeys,
                        rightKeys: join.rightKeys, residual: join.residual))
            case .right:
                // A right join is the left join with its inputs swapped, columns put back in order.
                return inOriginalOrder(try convert(.hashJoin(swappedSides(join, kind: .left))), of: join)
            case .full:
                return try fullJoin(join)
            }
        case .nestedLoopJoin(let left, let right, let kind, let predicate):
            // Every pair is a candidate: a hash join on no key, the condition its residual. A
            // change on one side meets the other side whole, as a nested loop would; against a
            // one-row side (a scalar subquery: RisingWave's dynamic filter) that is one row.
            return try convert(.hashJoin(HashJoin(left: left, right: right, kind: kind, leftKeys: [], rightKeys: [], residual: predicate)))
        case .union(let inputs, let distinct):
            let converted = try inputs.map { (input) throws(SluiceError) -> StreamPlan in try convert(input) }
            let merged = StreamPlan.union(inputs: converted)
            if !distinct { return merged }
            // UNION: group by every column, then drop the count.
            let width = merged.outputTypes.count
            return .hashAggregate(input: merged, groupCount: width, aggregates: [])
        case .sort:
            throw refusal("ORDER BY inside a subquery")
        case .limit(let input, let limit, let offset):
            // ORDER BY … LIMIT n OFFSET m: the top-N of one group of every row. Without ORDER
            // BY, rows are ordered by all their columns, so the view keeps the same rows
            // however its input arrived.
            let (source, keys) = unsorted(input)
            if limit == nil && offset == 0 { return try convert(source) }
            // (A bound past the largest count keeps every row: saturating, not trapping.)
            let upper = limit.map { limit in offset.addingReportingOverflow(limit).overflow ? Int.max : offset + limit }
            return .topN(input: try convert(source), groupColumns: [], order: keys, rank: .rowNumber, lower: offset, upper: upper, emitsRank: false)
        case .topN(let input, let keys, let limit, let offset):
            let upper = offset.addingReportingOverflow(limit).overflow ? Int.max : offset + limit
            return .topN(input: try convert(input), groupColumns: [], order: keys, rank: .rowNumber, lower: offset, upper: upper, emitsRank: false)
        case .projectSet(let input, let expressions, let expands):
            for expression in expressions { try checkDeterministic(expression) }
            return .projectSet(input: try convert(input), expressions: expressions, expands: expands)
        case .window(let input, let partition, _, let functions):
            // Ranks not filtered to a top-N: an over-window numbering every row.
            let (source, keys) = unsorted(input)
            let calls = functions.map { WindowCall(function: .ranking($0), argument: nil, frame: .standard, resultType: .int64) }
            return .overWindow(
                input: try convert(source), partitionColumns: partition, order: keys.filter { !partition.contains($0.column) }, calls: calls)
        case .overWindow(let input, let partition, let order, let calls):
            return .overWindow(input: try convert(unsorted(input).input), partitionColumns: partition, order: order, calls: calls)
        case .tableFunction(let function, let arguments, let types):
            for argument in arguments { try checkDeterministic(argument) }
            return .tableFunction(function, arguments: arguments, types: types)
        case .setOperation(let left, let right, let kind, let all):
            // Counted per side by an aggregate (``SetOperationCounting``), so views retract them
            // like any aggregate.
            return try convert(SetOperationCounting.plan(left: left, right: right, kind: kind, all: all))
        case .maxOneRow(let input):
            // A scalar subquery is maintained when it always has one row: a global aggregate.
            var below = input
            while case .project(let inner, _) = below { below = inner }
            guard case .hashAggregate(_, 0, _) = below else {
                throw refusal("scalar subqueries that are not a single aggregate (their row count could change)")
            }
            return try convert(input)
        case .apply(let input, .tableFunction(let function, let arguments, let types), .lateral) where types.count == 1:
            // `FROM t, unnest(t.a)`, `FROM t, generate_series(1, t.n)`, `range(…)` and the
            // timestamp series: the input's columns and the function's rows, a set-returning
            // expansion of each input row.
            let width = input.outputTypes.count
            let bound = arguments.map(Self.outerReferencesAsColumns)
            for argument in bound { try checkDeterministic(argument) }
            let array: ScalarExpr = switch function {
            case .unnest: bound[0]
            case .generateSeries: .call(SetReturningFunctions.series(count: bound.count), bound)
            case .range, .generateTimestampSeries, .timestampRange: .call(rowsAsArray(function, argumentTypes: bound.map(\.type), type: types[0]), bound)
            }
            let columns = input.outputTypes.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
            let expanded = StreamPlan.projectSet(
                input: try convert(input), expressions: columns + [array], expands: Array(repeating: false, count: width) + [true])
            let element = expanded.outputTypes[width]
            let last = ScalarExpr.column(width, element)
            return .project(input: expanded, predicate: nil, expressions: columns + [element == types[0] ? last : .cast(last, types[0])])
        case .apply(let input, .project(.tableFunction(let function, let arguments, let types), let expressions), .lateral) where types.count == 1:
            // A table function whose rows are taken apart (`FROM t, jsonb_each(t.j)`): its
            // expansion, then the columns made of its one.
            let width = input.outputTypes.count
            let expanded = try convert(.apply(input: input, subquery: .tableFunction(function, arguments: arguments, types: types), kind: .lateral))
            let columns = input.outputTypes.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
            let shifted = expressions.map { $0.remappingColumns { $0 + width } }
            return .project(input: expanded, predicate: nil, expressions: columns + shifted)
        case .apply(let input, .project(.values(let rows, _), let expressions), .lateral) where rows.count == 1 && rows[0].isEmpty:
            // `CROSS JOIN LATERAL (SELECT f(t.x) AS y)`: one more column per input row.
            let columns = input.outputTypes.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
            let bound = expressions.map(Self.outerReferencesAsColumns)
            for expression in bound { try checkDeterministic(expression) }
            return .project(input: try convert(input), predicate: nil, expressions: columns + bound)
        case .apply(.values(let rows, _), let subquery, .array) where rows.count == 1 && rows[0].isEmpty:
            // An ARRAY subquery with nothing to correlate with (`x NOT IN (SELECT …)`, `x > ALL
            // (SELECT …)`): its values as a global array_agg the view keeps up to date, the
            // empty array when it has no rows (array_agg's NULL otherwise).
            let converted = try convert(subquery)
            let type = converted.outputTypes[0]
            let values = StreamPlan.project(input: converted, predicate: nil, expressions: [.column(0, type)])
            let aggregate = StreamPlan.hashAggregate(
                input: values, groupCount: 0, aggregates: [AggregateCall(kind: .arrayAgg, argument: 0, resultType: .list(type))])
            return .project(
                input: aggregate, predicate: nil,
                expressions: [.coalesce([.column(0, .list(type)), .literal(.list([]), .list(type))], .list(type))])
        case .apply:
            throw refusal("correlated subqueries that could not be turned into joins")
        }
    }

    /// A set-returning projection `set` read only by `expressions`: the projection without the
    /// columns nothing reads (a column it expands stays: it makes the rows), fed only the
    /// columns those left read (a projection below takes the others out, or keeps fewer of its
    /// own), and `expressions` over it; nil when nothing can go. `HOP(bid, …)` with a GROUP BY
    /// of two columns then expands two columns into five rows each, not every column of `bid`.
    private static func pruned(_ set: ProjectSetNode, readBy expressions: [ScalarExpr]) -> (StreamPlan, [ScalarExpr])? {
        let read = expressions.reduce(into: Set<Int>()) { $0.formUnion($1.referencedColumns) }
        let kept = set.expressions.indices.filter { set.expands[$0] || read.contains($0) }
        var keptExpressions = kept.map { set.expressions[$0] }
        let inputTypes = set.input.outputTypes
        let inputRead = keptExpressions.reduce(into: Set<Int>()) { $0.formUnion($1.referencedColumns) }.sorted()
        guard kept.count < set.expressions.count || inputRead.count < inputTypes.count else { return nil }
        var input = set.input
        if inputRead.count < inputTypes.count {
            let inputPosition = Dictionary(uniqueKeysWithValues: inputRead.enumerated().map { ($1, $0) })
            if let inner = input.node as? ProjectNode {
                input = .project(input: inner.input, predicate: inner.predicate, expressions: inputRead.map { inner.expressions[$0] })
            } else if var scan = (input.node as? ScanNode)?.table, scan.index == nil {
                scan.columns = inputRead.map { scan.columns[$0] }
                scan.columnTypes = inputRead.map { scan.columnTypes[$0] }
                input = .scan(scan)
            } else {
                input = .project(input: input, predicate: nil, expressions: inputRead.map { .column($0, inputTypes[$0]) })
            }
            keptExpressions = keptExpressions.map { $0.remappingColumns { inputPosition[$0]! } }
        }
        let position = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($1, $0) })
        return (
            .projectSet(input: input, expressions: keptExpressions, expands: kept.map { set.expands[$0] }),
            expressions.map { $0.remappingColumns { position[$0]! } }
        )
    }

    /// A filter on a ranking window function's value (`row_number() OVER (PARTITION BY a ORDER
    /// BY b) <= 3`, `= 1` for deduplication, `rank() … < 5`, DISTINCT ON's first row): the
    /// group top-N, with the rank as the window's column, and any other condition as a filter
    /// above it. Seen through a projection that passes the columns on. Nil when `input` is not
    /// one ranking window or the condition gives its rank no upper bound.
    private static func rankFilter(_ input: BatchPlan, _ predicate: ScalarExpr) throws(SluiceError) -> StreamPlan? {
        var window = input
        var passed: [ScalarExpr]?
        if case .project(let below, let expressions) = input, case .window = below {
            guard expressions.allSatisfy({ if case .column = $0 { true } else { false } }) else { return nil }
            window = below
            passed = expressions
        }
        guard case .window(let windowInput, let partition, _, let functions) = window, functions.count == 1 else { return nil }
        let rankColumn = windowInput.outputTypes.count
        // The condition over the window's columns.
        let condition = passed.map { expressions in
            predicate.rewritten { node in
                if case .column(let index, _) = node { return expressions[index] }
                return node
            }
        } ?? predicate
        var lower = 0
        var upper: Int?
        var others: [ScalarExpr] = []
        for conjunct in condition.conjuncts {
            guard let (op, bound) = rankBound(conjunct, rankColumn: rankColumn) else {
                others.append(conjunct)
                continue
            }
            // Ranks start at 1: a bound below that keeps nothing (clamped, so no bound overflows).
            let below = max(bound, 0) - 1
            switch op {
            case "<=": upper = min(upper ?? .max, max(bound, 0))
            case "<": upper = min(upper ?? .max, max(below, 0))
            case "=":
                upper = min(upper ?? .max, max(bound, 0))
                lower = max(lower, below)
            case ">=": lower = max(lower, below)
            case ">": lower = max(lower, max(bound, 0))
            default: others.append(conjunct)
            }
        }
        guard let upper else { return nil }
        for other in others { try checkDeterministic(other) }
        let (source, keys) = unsorted(windowInput)
        // A group's rows in the sort's order past the partition columns (equal within it).
        var plan = StreamPlan.topN(
            input: try convert(source), groupColumns: partition, order: keys.filter { !partition.contains($0.column) }, rank: functions[0],
            lower: lower, upper: upper, emitsRank: true)
        if !others.isEmpty {
            let identity = plan.outputTypes.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
            plan = .project(input: plan, predicate: others.count == 1 ? others[0] : .and(others), expressions: identity)
        }
        if let passed { plan = .project(input: plan, predicate: nil, expressions: passed) }
        return plan
    }

    /// The rows under a sort, and its keys (none when `plan` is not a sort): what a top-N or a
    /// window orders by, its input taken unsorted.
    private static func unsorted(_ plan: BatchPlan) -> (input: BatchPlan, keys: [SortKey]) {
        if case .sort(let input, let keys) = plan { return (input, keys) }
        return (plan, [])
    }

    /// `rank op constant` (or `constant op rank`, turned around) over column `rankColumn`: the
    /// operator and the constant.
    private static func rankBound(_ conjunct: ScalarExpr, rankColumn: Int) -> (String, Int)? {
        guard case .call(let function, let arguments) = conjunct, arguments.count == 2 else { return nil }
        let flipped = ["<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="]
        guard let mirrored = flipped[function.name] else { return nil }
        func constant(_ expression: ScalarExpr) -> Int? {
            switch expression {
            case .literal(.int64(let value), _): Int(exactly: value)
            case .literal(.int32(let value), _): Int(value)
            case .literal(.int16(let value), _): Int(value)
            case .cast(let inner, _): constant(inner)
            default: nil
            }
        }
        if case .column(rankColumn, _) = arguments[0], let value = constant(arguments[1]) { return (function.name, value) }
        if case .column(rankColumn, _) = arguments[1], let value = constant(arguments[0]) { return (mirrored, value) }
        return nil
    }

    static func checkDeterministic(_ expression: ScalarExpr) throws(SluiceError) {
        var offending: String?
        expression.visit { node in
            if case .call(let function, _) = node, !function.isDeterministic, offending == nil { offending = function.name }
        }
        if let offending {
            throw SluiceError(
                .featureNotSupported, "materialized views cannot use the non-deterministic function \(offending)()",
                hint: "The view would change without any change to its inputs; compute the value when querying the view instead.")
        }
    }

    /// The rows of `swapped`, `join` planned with its inputs swapped, with the columns put back
    /// in `join`'s order (left, then right).
    private static func inOriginalOrder(_ swapped: StreamPlan, of join: HashJoin) -> StreamPlan {
        let (leftWidth, rightWidth) = (join.left.outputTypes.count, join.right.outputTypes.count)
        let types = swapped.outputTypes
        let reorder = (0 ..< leftWidth).map { ScalarExpr.column(rightWidth + $0, types[rightWidth + $0]) }
            + (0 ..< rightWidth).map { ScalarExpr.column($0, types[$0]) }
        return .project(input: swapped, predicate: nil, expressions: reorder)
    }

    /// `join`'s inputs swapped, as a join of `kind`: the right side's keys first, and the
    /// condition over (right, left) columns.
    private static func swappedSides(_ join: HashJoin, kind: JoinKind) -> HashJoin {
        let (leftWidth, rightWidth) = (join.left.outputTypes.count, join.right.outputTypes.count)
        return HashJoin(
            left: join.right, right: join.left, kind: kind, leftKeys: join.rightKeys, rightKeys: join.leftKeys,
            residual: join.residual?.remappingColumns { $0 < leftWidth ? $0 + rightWidth : $0 - leftWidth })
    }

    /// Whether `plan` is a table read `FOR SYSTEM_TIME AS OF PROCTIME()`, under projections and
    /// filters only.
    private static func readsAsOfProcessingTime(_ plan: BatchPlan) -> Bool {
        switch plan {
        case .scan(let scan): scan.asOfProcessingTime
        case .project(let input, _), .filter(let input, _): readsAsOfProcessingTime(input)
        default: false
        }
    }

    /// `plan` with its table read plainly (the lookup join reads it as its state).
    private static func plainRead(_ plan: BatchPlan) -> BatchPlan {
        switch plan {
        case .scan(var scan):
            scan.asOfProcessingTime = false
            return .scan(scan)
        case .project(let input, let expressions): return .project(input: plainRead(input), expressions: expressions)
        case .filter(let input, let predicate): return .filter(input: plainRead(input), predicate: predicate)
        default: return plan
        }
    }

    /// A join with a table read `FOR SYSTEM_TIME AS OF PROCTIME()`: a lookup join
    /// (``HashJoinNode/isLookup``), each row of the stream side joined with the table's rows as
    /// they are when it arrives; the table's changes update what later rows find and emit
    /// nothing. Inner or left, the table on the right (an inner join's sides are swapped back
    /// when the optimizer put the table first). A stream side whose rows can be taken back (a
    /// table, a view) has its joined rows remembered, so a delete takes back what its row was
    /// joined into (``LookupMemo``), as RisingWave's memo table does.
    private static func lookupJoin(_ join: HashJoin) throws(SluiceError) -> StreamPlan {
        if readsAsOfProcessingTime(join.left) {
            guard join.kind == .inner, !readsAsOfProcessingTime(join.right) else {
                throw SluiceError(
                    .featureNotSupported, "a table read FOR SYSTEM_TIME AS OF PROCTIME() must be the right side of an inner or left join",
                    hint: "Write the stream first: FROM s [LEFT] JOIN t FOR SYSTEM_TIME AS OF PROCTIME() ON ….")
            }
            return inOriginalOrder(try lookupJoin(swappedSides(join, kind: .inner)), of: join)
        }
        guard join.kind == .inner || join.kind == .left else {
            throw SluiceError(.featureNotSupported, "a lookup join FOR SYSTEM_TIME AS OF PROCTIME() is an inner or left join, not \(join.kind.rawValue)")
        }
        let stream = try convert(join.left)
        return .lookupJoin(
            StreamHashJoinPlan(
                left: stream, right: try convert(plainRead(join.right)), kind: join.kind, leftKeys: join.leftKeys, rightKeys: join.rightKeys,
                residual: join.residual))
    }

    /// A full outer join: the left join's rows, and the right rows no left row matches padded
    /// with NULLs (an anti join of the right side with the left).
    private static func fullJoin(_ join: HashJoin) throws(SluiceError) -> StreamPlan {
        var leftJoin = join
        leftJoin.kind = .left
        let padded = StreamPlan.project(
            input: try convert(.hashJoin(swappedSides(join, kind: .anti))), predicate: nil,
            expressions: join.left.outputTypes.map { .literal(.null, $0) } + join.right.outputTypes.enumerated().map { .column($0.offset, $0.element) })
        return .union(inputs: [try convert(.hashJoin(leftJoin)), padded])
    }

    /// A semi join (EXISTS, IN) as an inner join with the right side's distinct keys, and an
    /// anti join (NOT EXISTS) as a left join with them keeping the rows without a match: each
    /// left row then meets at most one right row, so its copies stay as many as it has.
    private static func semiJoin(_ join: HashJoin) throws(SluiceError) -> StreamPlan {
        let left = try convert(join.left)
        let right = try convert(join.right)
        let leftTypes = left.outputTypes
        let rightTypes = right.outputTypes
        let keyTypes = join.rightKeys.map { rightTypes[$0] }
        let keys = StreamPlan.hashAggregate(
            input: .project(input: right, predicate: nil, expressions: zip(join.rightKeys, keyTypes).map { .column($0, $1) }),
            groupCount: keyTypes.count, aggregates: [])
        let joined = StreamPlan.hashJoin(
            StreamHashJoinPlan(
                left: left, right: keys, kind: join.kind == .semi ? .inner : .left, leftKeys: join.leftKeys,
                rightKeys: Array(keyTypes.indices), residual: nil))
        let leftColumns = leftTypes.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
        // (A matched key is never NULL: NULL keys match nothing.)
        let unmatched: ScalarExpr? = join.kind == .anti ? .isNull(.column(leftTypes.count, keyTypes[0]), negated: false) : nil
        return .project(input: joined, predicate: unmatched, expressions: leftColumns)
    }

    /// A table function's rows for each row's arguments, as an array (for the expansion).
    private static func rowsAsArray(_ function: TableFunction, argumentTypes: [DataType], type: DataType) -> ScalarFunction {
        ScalarFunction(name: function.rawValue, argumentTypes: argumentTypes, resultType: .list(type)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .list(type)) { (rowIndex: Int) throws(SluiceError) -> Value in
                let next = try function.rows(values: arguments.map { $0.value(at: rowIndex) }, types: [type])
                var values: [Value] = []
                while let chunk = try next() {
                    values += chunk.columns[0].values
                    if values.count > 10_000_000 { throw SluiceError(.programLimitExceeded, "\(function.rawValue) produces too many rows") }
                }
                return .list(values)
            }
        }
    }

    /// `expression` with each outer reference (to the apply's input row) made a column of it.
    private static func outerReferencesAsColumns(_ expression: ScalarExpr) -> ScalarExpr {
        expression.rewritten { node in
            if case .call(let reference, let operands) = node, operands.isEmpty, let index = OuterReference.index(of: reference) {
                return .column(index, reference.resultType)
            }
            return node
        }
    }

    private static func refusal(_ construct: String) -> SluiceError {
        SluiceError(.featureNotSupported, "\(construct) is not supported in materialized views yet")
    }
}
