import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// `EMIT ON WINDOW CLOSE`: keeps the current version of each row of its input (a windowed
/// aggregate's groups) until the watermark on the window column passes it, then emits it once
/// as an insert and forgets it. Its output only ever inserts, each window's rows when final.
///
/// Rows whose window is NULL never close and are never emitted. A change to a window already
/// emitted (possible only when the watermark fell back, after a restart) is dropped.
///
/// State: a paged state table (id `stateTableID`) with the input rows, keyed by the window
/// column then the key columns, so the rows a watermark closes are a range scan from the
/// start; all under one vnode (the gate orders every window, like RisingWave's sort buffer).
/// A second table (`stateTableID + 1`) holds the last watermark emitted up to, one row.
/// - Complexity: per input row, one key encoding; per closing watermark, a scan of the rows
///   it closes plus a page lookup.
struct EmitOnWindowClose: StreamOperator {
    let types: [DataType]
    let windowColumn: Int
    let key: [Int]
    let stateTableID: Int
    private var rows: PagedTable
    private var progress: OperatorProgress
    /// The watermark received and not yet acted on.
    private var pending: Value?
    /// The watermark emitted up to.
    private var closedThrough: Value? { progress.value }

    init(types: [DataType], windowColumn: Int, key: [Int], stateTableID: Int) {
        self.types = types
        self.windowColumn = windowColumn
        self.key = key.filter { $0 != windowColumn }
        self.stateTableID = stateTableID
        rows = PagedTable(types: types)
        progress = OperatorProgress(id: stateTableID + 1, type: types[windowColumn])
    }

    /// The state key of row `row` of `data`: the vnode (always 0), the window, the key columns.
    private static func appendKey(_ data: Chunk, row: Int, windowColumn: Int, key: [Int], to bytes: inout [UInt8]) {
        bytes += [0, 0]
        MemcomparableEncoding.append(data.columns[windowColumn], row: row, to: &bytes)
        for column in key { MemcomparableEncoding.append(data.columns[column], row: row, to: &bytes) }
    }

    mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        var chunk = chunk
        if let closedThrough {
            // A change to a window already emitted comes too late to show.
            guard let open = WatermarkCleaning.rows(of: chunk, column: windowColumn, atOrPast: closedThrough, type: types[windowColumn]) else {
                return
            }
            chunk = open
        }
        let (data, windowColumn, key) = (chunk.data, self.windowColumn, self.key)
        rows.stage(chunk) { bytes, row in
            Self.appendKey(data, row: row, windowColumn: windowColumn, key: key, to: &bytes)
        }
    }

    mutating func advance(to watermark: Watermark, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        guard watermark.column == windowColumn, !watermark.value.isNull else { return }
        if let pending, ValueOrdering.compare(pending, watermark.value) >= 0 { return }
        pending = watermark.value
    }

    /// At the barrier, after the epoch's changes: emits the rows of every window the watermark
    /// has passed, in window order, and removes them.
    mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        rows.commitEpoch()
        if let watermark = pending, closedThrough.map({ ValueOrdering.compare($0, watermark) < 0 }) ?? true {
            var bound: [UInt8] = [0, 0]
            MemcomparableEncoding.append(watermark, as: types[windowColumn], to: &bound)
            // Every non-NULL window (tag 0x01) below the bound.
            let prefix: [UInt8] = [0, 0, 0x01]
            var start = prefix
            var closed: [Chunk] = []
            var removals: [Chunk] = []
            var removalCounts: [Int32] = []
            var removalKeys: [[UInt8]] = []
            scan: while true {
                let (runs, resume) = rows.runs(withPrefix: prefix, from: start, limit: 4096)
                for run in runs {
                    var end = run.range.lowerBound
                    while end < run.range.upperBound && run.contents.keys.compare(end, with: bound) < 0 { end += 1 }
                    if end > run.range.lowerBound {
                        let picks = Array(run.range.lowerBound ..< end)
                        // Each row as often as it is present, then taken away as often.
                        var repeated: [Int] = []
                        for index in picks {
                            let count = run.contents.counts?[index] ?? 1
                            repeated += Array(repeating: index, count: Int(max(count, 0)))
                            removalCounts.append(-count)
                            removalKeys.append(run.contents.keys.key(index))
                        }
                        closed.append(run.contents.rows.gather(repeated))
                        removals.append(run.contents.rows.gather(picks))
                    }
                    if end < run.range.upperBound { break scan }
                }
                guard let resume else { break }
                start = resume
            }
            if !closed.isEmpty {
                let emitted = Chunk.concatenate(closed, types: types)
                output.append(StreamChunk.inserts(emitted))
                let keys = removalKeys
                rows.stage(Chunk.concatenate(removals, types: types), counts: removalCounts) { bytes, row in bytes += keys[row] }
                rows.commitEpoch()
            }
            progress.record(watermark)
            output.emit(Watermark(column: windowColumn, value: watermark))
        }
        pending = nil
        if state.mode != .none {
            let everything = state.mode == .everything
            state.add(rows.checkpoint(table: stateTableID, everything: everything))
            state.add(progress.checkpoint(everything: everything))
        }
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
    }

    var stateBytes: Int { rows.byteCount + progress.byteCount }
}

extension WindowCloseNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        EmitOnWindowClose(types: outputTypes, windowColumn: windowColumn, key: key, stateTableID: site.stateTableID)
    }
}
