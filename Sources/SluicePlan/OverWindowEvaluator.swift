import SluiceCore
import SluiceExpr

/// Evaluates window calls over the rows of one partition, sorted by the order keys: the batch
/// executor's over-window and the stream operator's both run it, so a view's rows are the
/// query's.
package enum OverWindowEvaluation {
    /// One column per call, a value per row of `rows` (one partition, in order, in memory).
    /// `isCancelled` is asked as long frames are read (a query's cancel or timeout).
    package static func evaluate(
        _ calls: [WindowCall], over rows: Chunk, order: [SortKey], context: EvaluationContext, isCancelled: @escaping () -> Bool = { false }
    ) throws(SluiceError) -> [Column] {
        var evaluator = OverWindowEvaluator(
            calls, over: PartitionRows([rows], types: rows.types), order: order, context: context, isCancelled: isCancelled)
        return try evaluator.next()?.values ?? []
    }
}

/// The window calls' values over one partition, a chunk of its rows at a time: what lets a
/// partition of any size be evaluated from disk. Every frame over rows sorted by the order
/// keys moves only forward (its start and its end never go back as the current row moves on),
/// so each bound is found by a reader that moves forward over the partition, and each
/// aggregate slides one accumulator along it, adding the rows that enter the frame and, for a
/// retractable aggregate, removing those that leave: O(rows) in all, whatever the frame. Other
/// aggregates over a frame whose start moves (min, max, string_agg) feed each frame's rows to
/// the current row's own group: O(rows × frame), checked for cancellation as it goes.
package struct OverWindowEvaluator {
    private let rows: PartitionRows
    private let context: EvaluationContext
    private let isCancelled: () -> Bool
    /// The next chunk to evaluate.
    private var chunkIndex = 0
    private var peers: PeerBounds
    private var states: [CallState]

    package init(
        _ calls: [WindowCall], over rows: PartitionRows, order: [SortKey], context: EvaluationContext, isCancelled: @escaping () -> Bool = { false }
    ) {
        self.rows = rows
        self.context = context
        self.isCancelled = isCancelled
        // (Only ranks and frames other than ROWS read each row's peers; finding where a peer
        // group ends is a read of the partition ahead.)
        let needsPeers = calls.contains { call in
            switch call.function {
            case .ranking(let kind): kind != .rowNumber
            case .lag, .lead: false
            case .firstValue, .lastValue, .aggregate: call.frame.units != .rows
            }
        }
        peers = PeerBounds(rows: rows, columns: order.map(\.column), needed: needsPeers)
        states = calls.map { CallState(call: $0, rows: rows, order: order) }
    }

    /// The next chunk of the partition's rows and each call's values for them; nil past the last.
    package mutating func next() throws(SluiceError) -> (rows: Chunk, values: [Column])? {
        guard chunkIndex < rows.chunkCount else { return nil }
        if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
        let chunk = try rows.chunk(chunkIndex)
        let block = Block(rows: chunk, base: rows.starts[chunkIndex])
        chunkIndex += 1
        let (peerStart, peerEnd) = try peers.bounds(of: block)
        var values: [Column] = []
        for index in states.indices {
            values.append(try states[index].values(for: block, peerStart: peerStart, peerEnd: peerEnd, context: context, isCancelled: isCancelled))
        }
        return (chunk, values)
    }
}

/// The rows being evaluated: a chunk of the partition, whose first row is at `base`.
struct Block {
    let rows: Chunk
    let base: Int
    var count: Int { rows.count }
}

/// Each row's peers (the rows equal to it on every order key): the first, found as rows go
/// past, and the one past the last, found by a reader ahead. None (empty lists) when no call
/// reads them.
struct PeerBounds {
    let columns: [Int]
    private let needed: Bool
    private let count: Int
    private var ahead: RowReader
    private var previous: Chunk?
    private var groupStart = 0
    private var groupEnd = 0

    init(rows: PartitionRows, columns: [Int], needed: Bool) {
        self.columns = columns
        self.needed = needed
        count = rows.count
        ahead = RowReader(rows)
    }

    mutating func bounds(of block: Block) throws(SluiceError) -> (starts: [Int], ends: [Int]) {
        let rows = block.rows
        guard needed else { return ([], []) }
        guard !columns.isEmpty else {
            // No ORDER BY: every row is a peer of every other.
            return ([Int](repeating: 0, count: block.count), [Int](repeating: count, count: block.count))
        }
        var starts = [Int](repeating: 0, count: block.count)
        var ends = [Int](repeating: 0, count: block.count)
        for row in 0 ..< block.count {
            let position = block.base + row
            if row > 0 {
                if !ValueOrdering.equalRows(rows, row - 1, rows, row, columns: columns) { groupStart = position }
            } else if let previous, !ValueOrdering.equalRows(previous, previous.count - 1, rows, row, columns: columns) {
                groupStart = position
            }
            starts[row] = groupStart
            if position >= groupEnd {
                var end = position + 1
                while end < count {
                    let index = try ahead.seek(end)
                    if !ValueOrdering.equalRows(ahead.chunk, index, rows, row, columns: columns) { break }
                    end += 1
                }
                groupEnd = end
            }
            ends[row] = groupEnd
        }
        previous = rows
        return (starts, ends)
    }
}

/// One call's readers and running state, carried from block to block.
struct CallState {
    let call: WindowCall
    let count: Int
    /// Where `lag`, `lead`, `first_value` and `last_value` read their values.
    private var reader: RowReader
    private var start: FrameBound
    private var end: FrameBound
    private var aggregate: SlidingAggregate?
    /// `dense_rank`'s count of peer groups so far.
    private var dense: Int64 = 0

    init(call: WindowCall, rows: PartitionRows, order: [SortKey]) {
        self.call = call
        count = rows.count
        reader = RowReader(rows)
        start = FrameBound(call.frame, isStart: true, rows: rows, order: order)
        end = FrameBound(call.frame, isStart: false, rows: rows, order: order)
        if case .aggregate(let kind) = call.function {
            aggregate = SlidingAggregate(kind: kind, call: call, rows: rows)
        }
    }

    mutating func values(
        for block: Block, peerStart: [Int], peerEnd: [Int], context: EvaluationContext, isCancelled: () -> Bool
    ) throws(SluiceError) -> Column {
        let rows = block.rows
        switch call.function {
        case .ranking(let kind):
            var values: [Int64] = []
            values.reserveCapacity(block.count)
            for row in 0 ..< block.count {
                switch kind {
                case .rowNumber: values.append(Int64(block.base + row + 1))
                case .rank: values.append(Int64(peerStart[row] + 1))
                case .denseRank:
                    if peerStart[row] == block.base + row { dense += 1 }
                    values.append(dense)
                }
            }
            return Column(type: .int64, storage: .int64(values))
        case .lag, .lead:
            // Row `row ∓ offset` of the partition, or the default (a NULL without one).
            let step = call.function == .lag ? -call.offset : call.offset
            let positions = (0 ..< block.count).map { row in
                let target = block.base + row + step
                return target >= 0 && target < count ? target : -1
            }
            return try gather(at: positions, fallback: call.defaultValue.map { rows.columns[$0] })
        case .firstValue, .lastValue, .aggregate:
            let starts = try start.positions(for: block, peerStart: peerStart, peerEnd: peerEnd, context: context)
            var ends = try end.positions(for: block, peerStart: peerStart, peerEnd: peerEnd, context: context)
            for row in 0 ..< block.count where ends[row] < starts[row] { ends[row] = starts[row] }
            if aggregate != nil {
                return try aggregate!.values(starts: starts, ends: ends, isCancelled: isCancelled)
            }
            // The frame's first or last row; NULL for an empty frame.
            let positions = (0 ..< block.count).map { row in
                starts[row] >= ends[row] ? -1 : (call.function == .firstValue ? starts[row] : ends[row] - 1)
            }
            return try gather(at: positions, fallback: nil)
        }
    }

    /// The argument's value at each of `positions`; where a position is -1, the row's value
    /// in `fallback` (NULL without one).
    private mutating func gather(at positions: [Int], fallback: Column?) throws(SluiceError) -> Column {
        var sources = [fallback ?? Column.null(of: call.resultType)]
        var picks: [(source: Int32, row: Int32)] = []
        picks.reserveCapacity(positions.count)
        var sourceChunk = -1
        for (row, position) in positions.enumerated() {
            guard position >= 0 else {
                picks.append((0, fallback == nil ? 0 : Int32(row)))
                continue
            }
            let index = try reader.seek(position)
            if reader.index != sourceChunk {
                sources.append(reader.chunk.columns[call.argument!])
                sourceChunk = reader.index
            }
            picks.append((Int32(sources.count - 1), Int32(index)))
        }
        return Column.gather(from: sources, picks: picks, type: call.resultType)
    }
}

/// One end of a call's frame: each row's first position in the frame (start) or the position
/// past its last (end).
struct FrameBound {
    private enum Kind {
        case first, past
        /// ROWS: the row's position plus this.
        case offset(Int)
        case peerStart, peerEnd
        /// RANGE: the first row whose order value is at or past the row's value ∓ `distance`
        /// (start), or the first past it (end), found by `reader` moving forward.
        case range(distance: Value, back: Bool, key: SortKey)
        /// SESSION: the first row of the row's session (start), or the row past its last (end).
        case session(gap: Value, key: SortKey)
    }

    private let kind: Kind
    private let isStart: Bool
    private let count: Int
    private var reader: RowReader
    /// Where `reader` stands: the position found for the row before.
    private var position = 0
    /// SESSION: the current session's first row and the row past its last; for the start, the
    /// last row of the block before (whether it was NULL, and the limits of its block: its
    /// value plus the gap).
    private var sessionStart = 0
    private var sessionEnd = 0
    private var previous: (isNull: Bool, limits: Column, row: Int)?
    /// SESSION end: the limits of the chunk `reader` has at hand.
    private var readerLimits: (index: Int, limits: Column)?

    init(_ frame: WindowFrameBounds, isStart: Bool, rows: PartitionRows, order: [SortKey]) {
        self.isStart = isStart
        count = rows.count
        reader = RowReader(rows)
        let bound = isStart ? frame.start : frame.end
        switch (bound, frame.units) {
        case (_, .session):
            if case .preceding(let gap) = frame.start { kind = .session(gap: gap, key: order[0]) } else { kind = isStart ? .first : .past }
        case (.unboundedPreceding, _): kind = .first
        case (.unboundedFollowing, _): kind = .past
        case (.currentRow, .rows): kind = .offset(isStart ? 0 : 1)
        case (.currentRow, .range): kind = isStart ? .peerStart : .peerEnd
        case (.preceding(let value), .rows), (.following(let value), .rows):
            // (Offsets past the partition clamp: no arithmetic on them overflows.)
            let steps = if case .int64(let steps) = value { Int(min(max(steps, 0), Int64(rows.count) + 1)) } else { 0 }
            kind = .offset(steps * (bound == .preceding(value) ? -1 : 1) + (isStart ? 0 : 1))
        case (.preceding(let distance), .range), (.following(let distance), .range):
            kind = .range(distance: distance, back: bound == .preceding(distance), key: order[0])
        }
    }

    mutating func positions(for block: Block, peerStart: [Int], peerEnd: [Int], context: EvaluationContext) throws(SluiceError) -> [Int] {
        switch kind {
        case .first: return [Int](repeating: 0, count: block.count)
        case .past: return [Int](repeating: count, count: block.count)
        case .offset(let offset): return (0 ..< block.count).map { min(max(block.base + $0 + offset, 0), count) }
        case .peerStart: return peerStart
        case .peerEnd: return peerEnd
        case .range(let distance, let back, let key):
            return try range(distance: distance, back: back, key: key, block: block, peers: isStart ? peerStart : peerEnd, context: context)
        case .session(let gap, let key):
            return try session(gap: gap, key: key, block: block, peers: isStart ? peerStart : peerEnd, context: context)
        }
    }

    /// `value ∓ distance` for each value of `column`, in its type.
    private static func shifted(_ column: Column, by distance: Value, operator name: String, context: EvaluationContext) throws(SluiceError) -> Column {
        let function = try FunctionRegistry.resolveOperator(name, column.type, distance.inferredType)
        let values = try ExpressionEvaluator.evaluate(
            .call(function, [.column(0, column.type), .literal(distance, distance.inferredType)]), on: Chunk(columns: [column], count: column.count),
            context: context)
        return values.type == column.type ? values : try CastKernels.cast(values, to: column.type, context: context)
    }

    /// For `RANGE distance PRECEDING|FOLLOWING` over the one order key: for each row, the
    /// first row whose value is not before `value ∓ distance` in the key's direction (start),
    /// or the first past it (end). The rows are sorted by the key with the NULLs first or
    /// last, so the reader skips NULLs before the row and stops at NULLs after it; a NULL
    /// order value's bound is its peers' (the NULLs).
    private mutating func range(
        distance: Value, back: Bool, key: SortKey, block: Block, peers: [Int], context: EvaluationContext
    ) throws(SluiceError) -> [Int] {
        let column = block.rows.columns[key.column]
        // Back means toward the partition's start: toward smaller values ascending, larger ones descending.
        let targets = try Self.shifted(column, by: distance, operator: back != key.descending ? "-" : "+", context: context)
        var positions = peers
        for row in 0 ..< block.count where !column.isNull(row) {
            let current = block.base + row
            while position < count {
                let index = try reader.seek(position)
                let values = reader.chunk.columns[key.column]
                if values.isNull(index) {
                    if position < current { position += 1; continue }
                    break
                }
                var comparison = ValueOrdering.compare(values, index, targets, row)
                if key.descending { comparison = -comparison }
                guard isStart ? comparison < 0 : comparison <= 0 else { break }
                position += 1
            }
            positions[row] = position
        }
        return positions
    }

    /// For a session frame: a session runs on while each row's order value is below the
    /// previous row's plus `gap` (ascending order). NULL order values are a session of their own.
    private mutating func session(
        gap: Value, key: SortKey, block: Block, peers: [Int], context: EvaluationContext
    ) throws(SluiceError) -> [Int] {
        let column = block.rows.columns[key.column]
        var positions = peers
        guard isStart else {
            for row in 0 ..< block.count where !column.isNull(row) {
                if block.base + row >= sessionEnd { sessionEnd = try sessionLast(from: block.base + row, gap: gap, key: key, context: context) + 1 }
                positions[row] = sessionEnd
            }
            return positions
        }
        // A row starts a session unless the row before it is not NULL and its limit is past
        // the row's value.
        let limits = try Self.shifted(column, by: gap, operator: "+", context: context)
        for row in 0 ..< block.count where !column.isNull(row) {
            let goesOn = row > 0
                ? !column.isNull(row - 1) && ValueOrdering.compare(column, row, limits, row - 1) < 0
                : previous.map { !$0.isNull && ValueOrdering.compare(column, row, $0.limits, $0.row) < 0 } ?? false
            if !goesOn { sessionStart = block.base + row }
            positions[row] = sessionStart
        }
        if block.count > 0 { previous = (column.isNull(block.count - 1), limits, block.count - 1) }
        return positions
    }

    /// The last row of the session that row `first` is in: the first row from there whose next
    /// row is NULL or at its limit.
    private mutating func sessionLast(from first: Int, gap: Value, key: SortKey, context: EvaluationContext) throws(SluiceError) -> Int {
        var last = first
        while last + 1 < count {
            let index = try reader.seek(last)
            let lastLimits = try limitsAtHand(gap: gap, key: key, context: context)
            let nextIndex = try reader.seek(last + 1)
            let values = reader.chunk.columns[key.column]
            if values.isNull(nextIndex) || ValueOrdering.compare(values, nextIndex, lastLimits, index) >= 0 { break }
            last += 1
        }
        return last
    }

    /// The limits (order value plus the gap) of the chunk the reader has at hand.
    private mutating func limitsAtHand(gap: Value, key: SortKey, context: EvaluationContext) throws(SluiceError) -> Column {
        if let readerLimits, readerLimits.index == reader.index { return readerLimits.limits }
        let limits = try Self.shifted(reader.chunk.columns[key.column], by: gap, operator: "+", context: context)
        readerLimits = (reader.index, limits)
        return limits
    }
}

/// An aggregate over each row's frame, the batch GROUP BY's accumulator giving the results (an
/// empty frame its empty group's).
struct SlidingAggregate {
    /// Aggregates whose state takes rows back (a row added and then removed leaves it as it was).
    private static let retractable: Set<AggregateKind> = [.count, .countStar, .sum, .avg, .boolAnd, .boolOr, .bitAnd, .bitOr, .bitXor]

    private let kind: AggregateKind
    private let call: WindowCall
    private let argumentType: DataType?
    private let accumulator: any AggregateAccumulator
    /// Whether the frame's start stays at the partition's first row.
    private let startsFirst: Bool
    /// The rows added to the accumulator and removed from it so far: `removed ..< added`.
    private var added = 0
    private var removed = 0
    private var adding: FrameFeed
    private var removing: FrameFeed

    init(kind: AggregateKind, call: WindowCall, rows: PartitionRows) {
        self.kind = kind
        self.call = call
        argumentType = call.argument.map { rows.types[$0] }
        accumulator = AggregateAccumulators.make(kind: kind, argumentType: argumentType, resultType: call.resultType)
        startsFirst = call.frame.start == .unboundedPreceding && call.frame.units != .session
        adding = FrameFeed(rows, argument: call.argument, removes: false)
        removing = FrameFeed(rows, argument: call.argument, removes: true)
    }

    mutating func values(starts: [Int], ends: [Int], isCancelled: () -> Bool) throws(SluiceError) -> Column {
        let count = starts.count
        guard startsFirst || Self.retractable.contains(kind) else { return try framewise(starts: starts, ends: ends, isCancelled: isCancelled) }
        var saved = accumulator.stateTypes.map { ColumnBuilder(type: $0, capacity: count) }
        for row in 0 ..< count {
            guard ends[row] >= added, starts[row] >= removed else {
                throw SluiceError.internalError("a window frame moved back (rows \(starts[row]) ..< \(ends[row]) after \(removed) ..< \(added))")
            }
            if ends[row] > added {
                try adding.feed(from: added, to: ends[row], into: accumulator)
                added = ends[row]
            }
            if starts[row] > removed {
                try removing.feed(from: removed, to: starts[row], into: accumulator)
                removed = starts[row]
            }
            accumulator.saveState(group: 0, into: &saved, at: 0)
        }
        let states = saved.map { $0.finish() }
        let results = AggregateAccumulators.make(kind: kind, argumentType: argumentType, resultType: call.resultType)
        for row in 0 ..< count { try results.loadState(group: row, from: states, at: 0, row: row) }
        return try results.finish(groupCount: count)
    }

    /// Each frame's rows fed to its own row's group.
    private mutating func framewise(starts: [Int], ends: [Int], isCancelled: () -> Bool) throws(SluiceError) -> Column {
        let count = starts.count
        accumulator.removeAll()
        var picks: [Int] = []
        var groups: [Int32] = []
        var source: (chunk: Chunk, index: Int)?
        func flush(_ accumulator: any AggregateAccumulator, _ argument: Column) throws(SluiceError) {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            try accumulator.update(
                groups: groups, rowCount: picks.count, groupCount: count, argument: argument.gather(picks), delimiter: nil, signs: nil, rows: nil)
            picks.removeAll(keepingCapacity: true)
            groups.removeAll(keepingCapacity: true)
        }
        for row in 0 ..< count where starts[row] < ends[row] {
            var position = starts[row]
            while position < ends[row] {
                let index = try adding.reader.seek(position)
                let stop = min(ends[row], adding.reader.end)
                if let current = source, adding.reader.index != current.index || picks.count >= 1 << 16 {
                    try flush(accumulator, adding.argument(of: current.chunk))
                }
                source = (adding.reader.chunk, adding.reader.index)
                for member in index ..< index + (stop - position) {
                    picks.append(member)
                    groups.append(Int32(row))
                }
                position = stop
            }
        }
        try flush(accumulator, source.map { adding.argument(of: $0.chunk) } ?? Column.nulls(of: argumentType ?? .int64, count: 0))
        return try accumulator.finish(groupCount: count)
    }
}

/// The rows entering (or leaving) a sliding aggregate's frames, read in order and folded into
/// its one group a chunk's run at a time.
private struct FrameFeed {
    var reader: RowReader
    let argument: Int?
    /// nil for rows entering; -1 for each row leaving.
    private var signs: [Int8]?
    private var members: [Int] = []
    private var zeros = Column(type: .int64, storage: .int64([]))

    init(_ rows: PartitionRows, argument: Int?, removes: Bool) {
        reader = RowReader(rows)
        self.argument = argument
        signs = removes ? [] : nil
    }

    /// The argument column of `chunk` (zeros for count(*)).
    mutating func argument(of chunk: Chunk) -> Column {
        if let argument { return chunk.columns[argument] }
        if zeros.count != chunk.count { zeros = Column(type: .int64, storage: .int64([Int64](repeating: 0, count: chunk.count))) }
        return zeros
    }

    /// Adds (or takes back) the rows `from ..< to`.
    mutating func feed(from: Int, to: Int, into accumulator: any AggregateAccumulator) throws(SluiceError) {
        var position = from
        while position < to {
            let index = try reader.seek(position)
            let stop = min(to, reader.end)
            let chunk = reader.chunk
            if let signs, signs.count < chunk.count { self.signs = [Int8](repeating: -1, count: chunk.count) }
            members.removeAll(keepingCapacity: true)
            members.append(contentsOf: index ..< index + (stop - position))
            try accumulator.update(
                groups: [], rowCount: chunk.count, groupCount: 1, argument: argument(of: chunk), delimiter: nil, signs: signs, rows: members)
            position = stop
        }
    }
}
