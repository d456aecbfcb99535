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
        return "\(units.rawValue) BETWEEN \(text(start)) AND \(text(end))"
    }
}

/// Evaluates window calls over the rows of one partition, sorted by the order keys: the batch
/// executor's over-window and the stream operator's both run it, so a view's rows are the
/// query's.
package enum OverWindowEvaluation {
    /// One column per call, a value per row of `rows` (one partition, in order).
    package static func evaluate(
        _ calls: [WindowCall], over rows: Chunk, order: [SortKey], context: EvaluationContext
    ) throws(SluiceError) -> [Column] {
        let count = rows.count
        // Each row's peers (rows equal on every order key): the first and past-the-last.
        var peerStart = [Int](repeating: 0, count: count)
        var peerEnd = [Int](repeating: count, count: count)
        var start = 0
        for row in 0 ..< count {
            if row > 0 && !peers(rows, row - 1, row, order: order) { start = row }
            peerStart[row] = start
        }
        var end = count
        for row in stride(from: count - 1, through: 0, by: -1) {
            if row < count - 1 && !peers(rows, row, row + 1, order: order) { end = row + 1 }
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
                let step = call.function == .lag ? -call.offset : call.offset
                var builder = ColumnBuilder(type: call.resultType, capacity: count)
                let values = call.argument.map { rows.columns[$0] }
                for row in 0 ..< count {
                    let target = row + step
                    if target >= 0 && target < count, let values {
                        builder.append(values.value(at: target))
                    } else {
                        builder.append(call.defaultValue.map { rows.columns[$0].value(at: row) } ?? .null)
                    }
                }
                columns.append(builder.finish())
            case .firstValue, .lastValue, .aggregate:
                var starts = [Int](repeating: 0, count: count)
                var ends = [Int](repeating: 0, count: count)
                for row in 0 ..< count {
                    (starts[row], ends[row]) = try frame(
                        of: row, call.frame, rows: rows, order: order, peerStart: peerStart, peerEnd: peerEnd, context: context)
                }
                if case .aggregate(let kind) = call.function {
                    columns.append(try aggregate(kind, call, rows: rows, starts: starts, ends: ends))
                } else {
                    var builder = ColumnBuilder(type: call.resultType, capacity: count)
                    let values = rows.columns[call.argument!]
                    for row in 0 ..< count {
                        if starts[row] >= ends[row] {
                            builder.append(.null)
                        } else {
                            builder.append(values.value(at: call.function == .firstValue ? starts[row] : ends[row] - 1))
                        }
                    }
                    columns.append(builder.finish())
                }
            }
        }
        return columns
    }

    /// Whether rows `a` and `b` are peers: equal (NULLs alike) on every order key.
    static func peers(_ rows: Chunk, _ a: Int, _ b: Int, order: [SortKey]) -> Bool {
        for key in order {
            let column = rows.columns[key.column]
            switch (column.isNull(a), column.isNull(b)) {
            case (true, true): continue
            case (false, false): if ValueOrdering.compare(column, a, column, b) != 0 { return false }
            default: return false
            }
        }
        return true
    }

    /// The frame of row `row`: the first row in it and the row past its last.
    private static func frame(
        of row: Int, _ frame: WindowFrameBounds, rows: Chunk, order: [SortKey], peerStart: [Int], peerEnd: [Int], context: EvaluationContext
    ) throws(SluiceError) -> (Int, Int) {
        let count = rows.count
        func position(_ bound: WindowFrameBounds.Bound, isStart: Bool) throws(SluiceError) -> Int {
            switch (bound, frame.units) {
            case (.unboundedPreceding, _): return 0
            case (.unboundedFollowing, _): return count
            case (.currentRow, .rows): return isStart ? row : row + 1
            case (.currentRow, .range): return isStart ? peerStart[row] : peerEnd[row]
            case (.preceding(let value), .rows), (.following(let value), .rows):
                guard case .int64(let steps) = value else { throw SluiceError.internalError("ROWS offset \(value)") }
                let signed = bound == .preceding(value) ? -Int(steps) : Int(steps)
                let target = isStart ? row + signed : row + signed + 1
                return min(max(target, 0), count)
            case (.preceding(let distance), .range), (.following(let distance), .range):
                return try rangePosition(
                    of: row, distance: distance, back: bound == .preceding(distance), isStart: isStart, rows: rows, key: order[0],
                    peerStart: peerStart, peerEnd: peerEnd, context: context)
            }
        }
        let first = try position(frame.start, isStart: true)
        let end = try position(frame.end, isStart: false)
        return (first, max(first, end))
    }

    /// For `RANGE distance PRECEDING|FOLLOWING` over the one order key: the first row whose
    /// value is at or past `value ∓ distance` (start), or the row past the last one within it
    /// (end). A NULL order value's frame bound is its peers (the NULLs).
    private static func rangePosition(
        of row: Int, distance: Value, back: Bool, isStart: Bool, rows: Chunk, key: SortKey, peerStart: [Int], peerEnd: [Int],
        context: EvaluationContext
    ) throws(SluiceError) -> Int {
        let column = rows.columns[key.column]
        if column.isNull(row) { return isStart ? peerStart[row] : peerEnd[row] }
        // The bound's value: back means toward the partition's start, so toward smaller
        // values ascending and larger ones descending.
        let subtract = back != key.descending
        let operatorSymbol = subtract ? "-" : "+"
        let function = try FunctionRegistry.resolveOperator(operatorSymbol, column.type, distance.inferredType)
        var builder = ColumnBuilder(type: distance.inferredType, capacity: 1)
        builder.append(distance)
        let bound = try ExpressionEvaluator.evaluate(
            .call(function, [.column(0, column.type), .column(1, distance.inferredType)]),
            on: Chunk(columns: [column.slice(row ..< row + 1), builder.finish()], count: 1), context: context)
        let target = bound.type == column.type ? bound : try CastKernels.cast(bound, to: column.type, context: context)
        // Rows are sorted by the key (NULLs first or last): binary search over the non-NULL run.
        let count = rows.count
        var low = 0
        var high = count
        while low < count && column.isNull(low) { low += 1 }
        while high > low && column.isNull(high - 1) { high -= 1 }
        // First row in [low, high) whose value is not before the target in the key's direction
        // (start), or that is past it (end).
        var (lo, hi) = (low, high)
        while lo < hi {
            let middle = (lo + hi) / 2
            var comparison = ValueOrdering.compare(column, middle, target, 0)
            if key.descending { comparison = -comparison }
            let before = isStart ? comparison < 0 : comparison <= 0
            if before { lo = middle + 1 } else { hi = middle }
        }
        return lo
    }

    /// An aggregate over each row's frame: the frames' rows fed to the aggregate's accumulator,
    /// each frame one group (the batch GROUP BY's results, an empty frame its empty group's).
    private static func aggregate(_ kind: AggregateKind, _ call: WindowCall, rows: Chunk, starts: [Int], ends: [Int]) throws(SluiceError) -> Column {
        let count = rows.count
        let accumulator = AggregateAccumulators.make(kind: kind, argumentType: call.argument.map { rows.columns[$0].type }, resultType: call.resultType)
        var picks: [Int] = []
        var groups: [Int32] = []
        for row in 0 ..< count where starts[row] < ends[row] {
            for member in starts[row] ..< ends[row] {
                picks.append(member)
                groups.append(Int32(row))
            }
            if picks.count >= 1 << 16 {
                try accumulator.update(
                    groups: groups, rowCount: picks.count, groupCount: count, argument: call.argument.map { rows.columns[$0].gather(picks) },
                    delimiter: nil, signs: nil, rows: nil)
                picks.removeAll(keepingCapacity: true)
                groups.removeAll(keepingCapacity: true)
            }
        }
        try accumulator.update(
            groups: groups, rowCount: picks.count, groupCount: count, argument: call.argument.map { rows.columns[$0].gather(picks) },
            delimiter: nil, signs: nil, rows: nil)
        return try accumulator.finish(groupCount: count)
    }
}
