import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// A temporal filter (``TemporalFilterNode``): `time > lower(now)` and `time < upper(now)`,
/// where `now` is each barrier's time. Changes pass as they come when their row is inside the
/// window at the current time; at each barrier the window moves on to the barrier's time, and
/// the rows it leaves behind are deleted, the rows it reaches inserted.
///
/// A row can still cross a bound while it is after the lower bound (when there is one) or
/// before the upper bound: those rows are kept, and no others. A change to a row the lower
/// bound already passed is dropped, as it is neither shown nor ever will be.
///
/// State: a paged state table (id `stateTableID`) of those rows with their time as one more
/// column, keyed by the time then the row, under one vnode: the rows the window leaves or
/// reaches at a barrier are a range scan from the start, or from the old upper bound. A second
/// table (`stateTableID + 1`) holds the time the window was last moved to, one row.
/// - Complexity: per chunk, the time expression and two comparisons a row, one key encoding a
///   kept row; per barrier, the rows that cross a bound plus a page lookup.
struct StreamTemporalFilter: StreamOperator {
    let types: [DataType]
    let time: ScalarExpr
    let lower: TemporalFilterNode.Bound?
    let upper: TemporalFilterNode.Bound?
    let stateTableID: Int
    let context: EvaluationContext
    /// The input's rows and their time (last column).
    private var rows: PagedTable
    /// The barrier time the window was last moved to.
    private var progress: OperatorProgress
    private var now: Int64? {
        if case .int64(let moved) = progress.value { return moved }
        return nil
    }
    /// The bounds at `now`, as one-row columns of the time's type (nil: no such bound).
    private var lowerLimit: Column?
    private var upperLimit: Column?

    init(
        types: [DataType], time: ScalarExpr, lower: TemporalFilterNode.Bound?, upper: TemporalFilterNode.Bound?, stateTableID: Int,
        context: EvaluationContext
    ) {
        self.types = types
        self.time = time
        self.lower = lower
        self.upper = upper
        self.stateTableID = stateTableID
        self.context = context
        rows = PagedTable(types: types + [time.type])
        progress = OperatorProgress(id: stateTableID + 1, type: .int64)
    }

    /// The state key of row `row` of `data` (the input's columns then the time): the vnode
    /// (always 0), the time, the row's columns.
    private static func appendKey(_ data: Chunk, row: Int, to bytes: inout [UInt8]) {
        bytes += [0, 0]
        MemcomparableEncoding.append(data.columns[data.columns.count - 1], row: row, to: &bytes)
        for column in data.columns.dropLast() { MemcomparableEncoding.append(column, row: row, to: &bytes) }
    }

    /// Whether `times[row]` is after the lower bound `limit` (true without one).
    private func passesLower(_ times: Column, _ row: Int, _ limit: Column?) -> Bool {
        guard let limit, let lower else { return true }
        let order = ValueOrdering.compare(times, row, limit, 0)
        return lower.inclusive ? order >= 0 : order > 0
    }

    /// Whether `times[row]` is before the upper bound `limit` (true without one).
    private func passesUpper(_ times: Column, _ row: Int, _ limit: Column?) -> Bool {
        guard let limit, let upper else { return true }
        let order = ValueOrdering.compare(times, row, limit, 0)
        return upper.inclusive ? order <= 0 : order < 0
    }

    mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        let times = try ExpressionEvaluator.evaluate(time, on: chunk.data, context: context)
        var shown = [Bool](repeating: false, count: chunk.count)
        var kept: [Int] = []
        for row in 0 ..< chunk.count where !times.isNull(row) {
            // Before the first barrier no window is known yet: every row waits for it.
            guard now != nil else {
                kept.append(row)
                continue
            }
            let afterLower = passesLower(times, row, lowerLimit)
            let beforeUpper = passesUpper(times, row, upperLimit)
            shown[row] = afterLower && beforeUpper
            // Rows that can still cross a bound: the lower bound ahead of them, or the upper
            // bound not reached yet.
            if afterLower && (lower != nil || !beforeUpper) { kept.append(row) }
        }
        if let passed = chunk.keeping(shown) { output.append(passed) }
        if !kept.isEmpty {
            let data = Chunk(columns: chunk.data.columns + [times], count: chunk.count)
            let picked = kept.count == chunk.count ? data : data.gather(kept)
            let ops = kept.map { chunk.ops[$0] }
            rows.stage(StreamChunk(ops: ops, data: picked)) { bytes, row in Self.appendKey(picked, row: row, to: &bytes) }
        }
    }

    /// A bound's value at barrier time `now`, as a one-row column of the time's type.
    private func limit(_ bound: TemporalFilterNode.Bound?, at now: Int64) throws(SluiceError) -> Column? {
        guard let bound else { return nil }
        var context = context
        context.statementTimestamp = now
        let value = try ExpressionEvaluator.evaluate(bound.now, on: Chunk(columns: [], count: 1), context: context)
        return value.type == time.type ? value : try ExpressionEvaluator.evaluate(
            .cast(.column(0, value.type), time.type), on: Chunk(columns: [value], count: 1), context: context)
    }

    /// At the barrier: moves the window to the barrier's time, emitting the rows it leaves as
    /// deletes and the rows it reaches as inserts, and forgets the rows no bound can cross again.
    mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        rows.commitEpoch()
        // The window never moves back, even if the clock does.
        let moved = max(barrier.timestamp, now ?? .min)
        if moved != now {
            let newLower = try limit(lower, at: moved)
            let newUpper = try limit(upper, at: moved)
            try move(to: (newLower, newUpper), isFirst: now == nil, into: &output)
            progress.record(.int64(moved))
            (lowerLimit, upperLimit) = (newLower, newUpper)
        }
        if state.mode != .none {
            let everything = state.mode == .everything
            state.add(rows.checkpoint(table: stateTableID, everything: everything))
            state.add(progress.checkpoint(everything: everything))
        }
    }

    /// Emits what moving the bounds from the current ones to `limits` changes, and removes the
    /// rows that no bound can cross any more. On the first move, every kept row is new.
    private mutating func move(to limits: (lower: Column?, upper: Column?), isFirst: Bool, into output: inout OutputBuffer) throws(SluiceError) {
        var deleted = PagedTable.Picks()
        var inserted = PagedTable.Picks()
        var removals = PagedTable.Picks()
        let timeColumn = types.count
        // Rows from `start` on, in time order, while `inRange` holds for their time.
        func scan(from start: [UInt8], while inRange: (Column, Int) -> Bool, _ visit: (StatePage.Contents, Int) -> Void) {
            let prefix: [UInt8] = [0, 0, 0x01]
            var from = start
            while true {
                let (runs, resume) = rows.runs(withPrefix: prefix, from: from, limit: 4096)
                for run in runs {
                    let times = run.contents.rows.columns[timeColumn]
                    for index in run.range {
                        guard inRange(times, index) else { return }
                        visit(run.contents, index)
                    }
                }
                guard let resume else { return }
                from = resume
            }
        }
        func all(_ contents: StatePage.Contents, _ index: Int) -> Int { Int(max(contents.counts?[index] ?? 1, 0)) }
        if isFirst {
            // Every kept row: shown when inside the new window, kept while a bound can cross it.
            scan(from: [0, 0, 0x01], while: { _, _ in true }) { contents, index in
                let times = contents.rows.columns[timeColumn]
                let afterLower = passesLower(times, index, limits.lower)
                let beforeUpper = passesUpper(times, index, limits.upper)
                if afterLower && beforeUpper { inserted.add(contents, index, times: all(contents, index)) }
                if !afterLower || (lower == nil && beforeUpper) { removals.remove(contents, index) }
            }
        } else {
            if lower != nil {
                // The rows the lower bound passed, from the start: deleted if they showed.
                scan(from: [0, 0, 0x01], while: { !passesLower($0, $1, limits.lower) }) { contents, index in
                    if passesUpper(contents.rows.columns[timeColumn], index, upperLimit) { deleted.add(contents, index, times: all(contents, index)) }
                    removals.remove(contents, index)
                }
            }
            if let upperLimit {
                let upperValue = upperLimit.value(at: 0)
                // The rows the upper bound reached, from where it was: inserted if the lower
                // bound has not passed them too.
                var start: [UInt8] = [0, 0]
                MemcomparableEncoding.append(upperValue, as: time.type, to: &start)
                scan(from: start, while: { passesUpper($0, $1, limits.upper) }) { contents, index in
                    let times = contents.rows.columns[timeColumn]
                    guard !passesUpper(times, index, upperLimit), passesLower(times, index, limits.lower) else { return }
                    inserted.add(contents, index, times: all(contents, index))
                    // Without a lower bound, a row shown stays shown: nothing to keep.
                    if lower == nil { removals.remove(contents, index) }
                }
            }
        }
        let width = types.count
        for (picks, op) in [(deleted, ChangeOp.delete), (inserted, .insert)] where !picks.isEmpty {
            let all = picks.rows(types: types + [time.type])
            let data = Chunk(columns: Array(all.columns.prefix(width)), count: all.count)
            output.append(StreamChunk(ops: [ChangeOp](repeating: op, count: data.count), data: data))
        }
        rows.take(removals)
    }

    mutating func enableCheckpoints() {
        rows.tracksChanges = true
        progress.enableCheckpoints()
    }

    mutating func useMemory(_ memory: StateMemory) {
        rows.useMemory(memory)
        progress.useMemory(memory)
    }

    mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try rows.restore(from: tables, table: stateTableID)
        try progress.restore(tables)
        if let moved = now {
            lowerLimit = try limit(lower, at: moved)
            upperLimit = try limit(upper, at: moved)
        }
    }

    var stateBytes: Int { rows.byteCount + progress.byteCount }
}

extension TemporalFilterNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        StreamTemporalFilter(
            types: outputTypes, time: time, lower: lower, upper: upper, stateTableID: site.stateTableID, context: site.context)
    }
}
