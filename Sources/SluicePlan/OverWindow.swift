import SluiceCore
import SluiceExpr

/// A window function other than the ranks (which ``WindowFunctionKind`` numbers as rows
/// stream past): an aggregate over a frame, `lag`/`lead`, `first_value`/`last_value`.
package struct WindowCall: Sendable, Equatable {
    package enum Function: Sendable, Equatable, CustomStringConvertible {
        case aggregate(AggregateKind)
        case lag, lead, firstValue, lastValue
        /// `row_number`, `rank`, `dense_rank` (in a view's over-window; queries number rows
        /// with ``BatchPlan/window(input:partitionColumns:orderColumns:functions:)``).
        case ranking(WindowFunctionKind)

        package var description: String {
            switch self {
            case .aggregate(let kind): kind == .countStar ? "count" : kind.rawValue
            case .lag: "lag"
            case .lead: "lead"
            case .firstValue: "first_value"
            case .lastValue: "last_value"
            case .ranking(let kind): kind.rawValue
            }
        }
    }

    package var function: Function
    /// The input column the function reads (nil for `count(*)`).
    package var argument: Int?
    /// For `lag`/`lead`: how many rows back or ahead.
    package var offset: Int
    /// For `lag`/`lead`: the input column with the value where there is no such row (nil: NULL).
    package var defaultValue: Int?
    package var frame: WindowFrameBounds
    package var resultType: DataType

    package init(function: Function, argument: Int?, offset: Int = 1, defaultValue: Int? = nil, frame: WindowFrameBounds, resultType: DataType) {
        self.function = function
        self.argument = argument
        self.offset = offset
        self.defaultValue = defaultValue
        self.frame = frame
        self.resultType = resultType
    }

    package var explainText: String {
        "\(function)(\(argument.map { "$\($0)" } ?? "*")) \(frame)"
    }
}

/// A window frame: which rows around the current one an aggregate or `first_value` reads.
package struct WindowFrameBounds: Sendable, Equatable, CustomStringConvertible {
    package enum Units: String, Sendable, Equatable {
        case rows = "ROWS"
        case range = "RANGE"
        /// RisingWave's session frame: the rows of the current row's session, where a session
        /// ends before a row whose order value is at least the previous row's plus the gap
        /// (`start` is `.preceding(gap)`, `end` `.following(gap)`).
        case session = "SESSION"
    }

    package enum Bound: Sendable, Equatable {
        case unboundedPreceding
        /// Rows back (ROWS, a count) or an order value's distance back (RANGE).
        case preceding(Value)
        case currentRow
        case following(Value)
        case unboundedFollowing
    }

    package var units: Units
    package var start: Bound
    package var end: Bound

    package init(units: Units, start: Bound, end: Bound) {
        self.units = units
        self.start = start
        self.end = end
    }

    /// SQL's default: from the partition's start to the current row and its peers (the whole
    /// partition when there is no ORDER BY: every row is a peer).
    package static let standard = WindowFrameBounds(units: .range, start: .unboundedPreceding, end: .currentRow)

    package var description: String {
        func text(_ bound: Bound) -> String {
            switch bound {
            case .unboundedPreceding: "UNBOUNDED PRECEDING"
            case .preceding(let value): "\(value.textForm) PRECEDING"
            case .currentRow: "CURRENT ROW"
            case .following(let value): "\(value.textForm) FOLLOWING"
            case .unboundedFollowing: "UNBOUNDED FOLLOWING"
            }
        }
        if units == .session, case .preceding(let gap) = start { return "SESSION WITH GAP \(gap.textForm)" }
        return "\(units.rawValue) BETWEEN \(text(start)) AND \(text(end))"
    }
}

/// Evaluates window calls over the rows of one partition, sorted by the order keys: the batch
/// executor's over-window and the stream operator's both run it, so a view's rows are the
/// query's.
package enum OverWindowEvaluation {
    /// One column per call, a value per row of `rows` (one partition, in order).
    /// `isCancelled` is asked as long frames are read (a query's cancel or timeout).
    package static func evaluate(
        _ calls: [WindowCall], over rows: Chunk, order: [SortKey], context: EvaluationContext, isCancelled: () -> Bool = { false }
    ) throws(SluiceError) -> [Column] {
        let count = rows.count
        let orderColumns = order.map(\.column)
        // Each row's peers (rows equal on every order key): the first and past-the-last.
        var peerStart = [Int](repeating: 0, count: count)
        var peerEnd = [Int](repeating: count, count: count)
        var start = 0
        for row in 0 ..< count {
            if row > 0 && !ValueOrdering.equalRows(rows, row - 1, rows, row, columns: orderColumns) { start = row }
            peerStart[row] = start
        }
        var end = count
        for row in stride(from: count - 1, through: 0, by: -1) {
            if row < count - 1 && !ValueOrdering.equalRows(rows, row, rows, row + 1, columns: orderColumns) { end = row + 1 }
            peerEnd[row] = end
        }
        var columns: [Column] = []
        for call in calls {
            switch call.function {
            case .ranking(let kind):
                var values: [Int64] = []
                values.reserveCapacity(count)
                var dense: Int64 = 0
                for row in 0 ..< count {
                    if peerStart[row] == row { dense += 1 }
                    switch kind {
                    case .rowNumber: values.append(Int64(row + 1))
                    case .rank: values.append(Int64(peerStart[row] + 1))
                    case .denseRank: values.append(dense)
                    }
                }
                columns.append(Column(type: .int64, storage: .int64(values)))
            case .lag, .lead:
                // Row `row ∓ offset` of the partition, or the default (a NULL without one).
                let step = call.function == .lag ? -call.offset : call.offset
                let fallback = call.defaultValue.map { rows.columns[$0] } ?? Column.null(of: call.resultType)
                var picks: [(source: Int32, row: Int32)] = []
                picks.reserveCapacity(count)
                for row in 0 ..< count {
                    let target = row + step
                    picks.append(target >= 0 && target < count ? (0, Int32(target)) : (1, call.defaultValue == nil ? 0 : Int32(row)))
                }
                columns.append(Column.gather(from: [rows.columns[call.argument!], fallback], picks: picks, type: call.resultType))
            case .firstValue, .lastValue, .aggregate:
                let (starts, ends) = try frames(call.frame, rows: rows, order: order, peerStart: peerStart, peerEnd: peerEnd, context: context)
                if case .aggregate(let kind) = call.function {
                    columns.append(try aggregate(kind, call, rows: rows, starts: starts, ends: ends, isCancelled: isCancelled))
                } else {
                    // The frame's first or last row; NULL for an empty frame.
                    let picks = (0 ..< count).map { row -> (source: Int32, row: Int32) in
                        starts[row] >= ends[row] ? (1, 0) : (0, Int32(call.function == .firstValue ? starts[row] : ends[row] - 1))
                    }
                    columns.append(Column.gather(from: [rows.columns[call.argument!], Column.null(of: call.resultType)], picks: picks, type: call.resultType))
                }
            }
        }
        return columns
    }

    /// Every row's frame: the first row in it and the row past its last. A RANGE offset's
    /// bounds are computed for the whole partition at once, then found by binary search.
    private static func frames(
        _ frame: WindowFrameBounds, rows: Chunk, order: [SortKey], peerStart: [Int], peerEnd: [Int], context: EvaluationContext
    ) throws(SluiceError) -> (starts: [Int], ends: [Int]) {
        let count = rows.count
        if frame.units == .session, case .preceding(let gap) = frame.start {
            return try sessions(gap: gap, rows: rows, key: order[0], peerStart: peerStart, peerEnd: peerEnd, context: context)
        }
        func positions(_ bound: WindowFrameBounds.Bound, isStart: Bool) throws(SluiceError) -> [Int] {
            switch (bound, frame.units) {
            case (_, .session): throw SluiceError.internalError("a session frame without its gap")
            case (.unboundedPreceding, _): return [Int](repeating: 0, count: count)
            case (.unboundedFollowing, _): return [Int](repeating: count, count: count)
            case (.currentRow, .rows): return (0 ..< count).map { isStart ? $0 : $0 + 1 }
            case (.currentRow, .range): return isStart ? peerStart : peerEnd
            case (.preceding(let value), .rows), (.following(let value), .rows):
                guard case .int64(let steps) = value else { throw SluiceError.internalError("ROWS offset \(value)") }
                // (Offsets past the partition clamp: no arithmetic on them overflows.)
                let offset = Int(min(steps, Int64(count) + 1)) * (bound == .preceding(value) ? -1 : 1)
                return (0 ..< count).map { min(max($0 + offset + (isStart ? 0 : 1), 0), count) }
            case (.preceding(let distance), .range), (.following(let distance), .range):
                return try rangePositions(
                    distance: distance, back: bound == .preceding(distance), isStart: isStart, rows: rows, key: order[0],
                    peerStart: peerStart, peerEnd: peerEnd, context: context)
            }
        }
        let starts = try positions(frame.start, isStart: true)
        var ends = try positions(frame.end, isStart: false)
        for row in 0 ..< count where ends[row] < starts[row] { ends[row] = starts[row] }
        return (starts, ends)
    }

    /// Every row's session: a session runs on while each row's order value is below the
    /// previous row's plus `gap` (ascending order). NULL order values are a session of their own.
    private static func sessions(
        gap: Value, rows: Chunk, key: SortKey, peerStart: [Int], peerEnd: [Int], context: EvaluationContext
    ) throws(SluiceError) -> (starts: [Int], ends: [Int]) {
        let column = rows.columns[key.column]
        let count = rows.count
        let function = try FunctionRegistry.resolveOperator("+", column.type, gap.inferredType)
        let reach = try ExpressionEvaluator.evaluate(
            .call(function, [.column(0, column.type), .literal(gap, gap.inferredType)]), on: Chunk(columns: [column], count: count),
            context: context)
        let limits = reach.type == column.type ? reach : try CastKernels.cast(reach, to: column.type, context: context)
        var starts = [Int](repeating: 0, count: count)
        var ends = [Int](repeating: count, count: count)
        var start = 0
        for row in 0 ..< count {
            if column.isNull(row) {
                (starts[row], ends[row]) = (peerStart[row], peerEnd[row])
                continue
            }
            if row == 0 || column.isNull(row - 1) || ValueOrdering.compare(column, row, limits, row - 1) >= 0 { start = row }
            starts[row] = start
        }
        var end = count
        for row in stride(from: count - 1, through: 0, by: -1) where !column.isNull(row) {
            if row == count - 1 || column.isNull(row + 1) || ValueOrdering.compare(column, row + 1, limits, row) >= 0 { end = row + 1 }
            ends[row] = end
        }
        return (starts, ends)
    }

    /// For `RANGE distance PRECEDING|FOLLOWING` over the one order key, for every row: the first
    /// row whose value is at or past `value ∓ distance` (start), or the row past the last one
    /// within it (end). A NULL order value's frame bound is its peers (the NULLs).
    private static func rangePositions(
        distance: Value, back: Bool, isStart: Bool, rows: Chunk, key: SortKey, peerStart: [Int], peerEnd: [Int], context: EvaluationContext
    ) throws(SluiceError) -> [Int] {
        let column = rows.columns[key.column]
        let count = rows.count
        // The bounds' values, all at once: back means toward the partition's start, so toward
        // smaller values ascending and larger ones descending.
        let function = try FunctionRegistry.resolveOperator(back != key.descending ? "-" : "+", column.type, distance.inferredType)
        let bounds = try ExpressionEvaluator.evaluate(
            .call(function, [.column(0, column.type), .literal(distance, distance.inferredType)]), on: Chunk(columns: [column], count: count),
            context: context)
        let targets = bounds.type == column.type ? bounds : try CastKernels.cast(bounds, to: column.type, context: context)
        // Rows are sorted by the key (NULLs first or last): binary search over the non-NULL run.
        var low = 0
        var high = count
        while low < count && column.isNull(low) { low += 1 }
        while high > low && column.isNull(high - 1) { high -= 1 }
        var positions = [Int](repeating: 0, count: count)
        for row in 0 ..< count {
            if column.isNull(row) {
                positions[row] = isStart ? peerStart[row] : peerEnd[row]
                continue
            }
            // First row in [low, high) whose value is not before the target in the key's
            // direction (start), or that is past it (end).
            var (lo, hi) = (low, high)
            while lo < hi {
                let middle = (lo + hi) / 2
                var comparison = ValueOrdering.compare(column, middle, targets, row)
                if key.descending { comparison = -comparison }
                if isStart ? comparison < 0 : comparison <= 0 { lo = middle + 1 } else { hi = middle }
            }
            positions[row] = lo
        }
        return positions
    }

    /// Aggregates whose state takes rows back (a row added and then removed leaves it as it was).
    private static let retractable: Set<AggregateKind> = [.count, .countStar, .sum, .avg, .boolAnd, .boolOr, .bitAnd, .bitOr, .bitXor]

    /// An aggregate over each row's frame, the batch GROUP BY's accumulator giving the results
    /// (an empty frame its empty group's). Frames that only move forward (every ROWS or RANGE
    /// frame over a sorted partition) slide one accumulator along the rows, adding the rows
    /// that enter and, for a retractable aggregate, removing those that leave: each row's state
    /// is saved as it passes and loaded back as its own group, O(rows) in all. Other frames
    /// (min or max over a frame whose start moves) feed every frame's rows to its own group:
    /// O(rows × frame), checked for cancellation as it goes.
    private static func aggregate(
        _ kind: AggregateKind, _ call: WindowCall, rows: Chunk, starts: [Int], ends: [Int], isCancelled: () -> Bool
    ) throws(SluiceError) -> Column {
        let count = rows.count
        let argumentType = call.argument.map { rows.columns[$0].type }
        let argument = call.argument.map { rows.columns[$0] } ?? Column(type: .int64, storage: .int64([Int64](repeating: 0, count: count)))
        let accumulator = AggregateAccumulators.make(kind: kind, argumentType: argumentType, resultType: call.resultType)
        let forward = (1 ..< max(count, 1)).allSatisfy { starts[$0] >= starts[$0 - 1] && ends[$0] >= ends[$0 - 1] }
        if forward && (retractable.contains(kind) || starts.allSatisfy { $0 == 0 }) {
            var saved = accumulator.stateTypes.map { ColumnBuilder(type: $0, capacity: count) }
            let removals = [Int8](repeating: -1, count: count)
            var members: [Int] = []
            var (start, end) = (0, 0)
            for row in 0 ..< count {
                if ends[row] > end {
                    members.removeAll(keepingCapacity: true)
                    members.append(contentsOf: end ..< ends[row])
                    try accumulator.update(groups: [], rowCount: count, groupCount: 1, argument: argument, delimiter: nil, signs: nil, rows: members)
                    end = ends[row]
                }
                if starts[row] > start {
                    members.removeAll(keepingCapacity: true)
                    members.append(contentsOf: start ..< starts[row])
                    try accumulator.update(groups: [], rowCount: count, groupCount: 1, argument: argument, delimiter: nil, signs: removals, rows: members)
                    start = starts[row]
                }
                accumulator.saveState(group: 0, into: &saved, at: 0)
            }
            let states = saved.map { $0.finish() }
            let results = AggregateAccumulators.make(kind: kind, argumentType: argumentType, resultType: call.resultType)
            for row in 0 ..< count { try results.loadState(group: row, from: states, at: 0, row: row) }
            return try results.finish(groupCount: count)
        }
        var picks: [Int] = []
        var groups: [Int32] = []
        func flush() throws(SluiceError) {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            try accumulator.update(
                groups: groups, rowCount: picks.count, groupCount: count, argument: argument.gather(picks), delimiter: nil, signs: nil, rows: nil)
            picks.removeAll(keepingCapacity: true)
            groups.removeAll(keepingCapacity: true)
        }
        for row in 0 ..< count where starts[row] < ends[row] {
            for member in starts[row] ..< ends[row] {
                picks.append(member)
                groups.append(Int32(row))
                if picks.count >= 1 << 16 { try flush() }
            }
        }
        try flush()
        return try accumulator.finish(groupCount: count)
    }
}
