import SluiceCore
import SluiceExpr
import SluiceState

/// State cleaning behind a watermark on a group column (a window's start): once the watermark
/// passes a group's window no row can reach it again, so its state goes; its row in the view
/// stays. Rows that still arrive for a cleaned window (only after a restart moved the source's
/// watermark back) are dropped, so a group never comes back with a partial count.
///
/// The watermark cleaned below is kept in a one-row state table, checkpointed with the rest.
struct WatermarkCleaning {
    /// The group column (in the aggregate's input and state rows).
    let column: Int
    let type: DataType
    let stateTableID: Int
    /// The watermark cleaned below so far, one row under an empty key.
    var progress: PagedTable
    private(set) var cleanedBelow: Value?
    /// The latest watermark received, to clean below at the next barrier.
    private var target: Value?

    init(column: Int, type: DataType, stateTableID: Int) {
        self.column = column
        self.type = type
        self.stateTableID = stateTableID
        progress = PagedTable(types: [type])
    }

    mutating func receive(_ watermark: Watermark) {
        guard watermark.column == column, !watermark.value.isNull else { return }
        if let target, ValueOrdering.compare(target, watermark.value) >= 0 { return }
        target = watermark.value
    }

    /// The watermark to clean below now, when it passed the last one cleaned below; recorded
    /// as cleaned.
    mutating func takeTarget() -> Value? {
        defer { target = nil }
        guard let target, cleanedBelow.map({ ValueOrdering.compare($0, target) < 0 }) ?? true else { return nil }
        var builder = ColumnBuilder(type: type, capacity: 1)
        builder.append(target)
        progress.stage(Chunk(columns: [builder.finish()], count: 1), counts: [cleanedBelow == nil ? 1 : 0]) { _, _ in }
        progress.commitEpoch()
        cleanedBelow = target
        return target
    }

    /// `chunk` without the rows of cleaned groups; nil when none is left.
    func dropLate(_ chunk: StreamChunk) -> StreamChunk? {
        guard let cleanedBelow else { return chunk }
        return Self.rows(of: chunk, column: column, atOrPast: cleanedBelow, type: type)
    }

    /// The rows of `chunk` whose `column` is NULL or not below `bound`; nil when none is left.
    /// An update pair split by the bound goes on as the half kept, a delete or an insert.
    static func rows(of chunk: StreamChunk, column: Int, atOrPast bound: Value, type: DataType) -> StreamChunk? {
        let values = chunk.data.columns[column]
        let limit = Self.column(of: bound, type: type)
        let kept = (0 ..< chunk.count).filter { values.isNull($0) || ValueOrdering.compare(values, $0, limit, 0) >= 0 }
        if kept.count == chunk.count { return chunk }
        if kept.isEmpty { return nil }
        let ops = kept.map { index -> ChangeOp in
            switch chunk.ops[index] {
            case .updateDelete: .delete
            case .updateInsert: .insert
            case let op: op
            }
        }
        return StreamChunk(ops: ops, data: chunk.data.gather(kept))
    }

    static func column(of value: Value, type: DataType) -> Column {
        var builder = ColumnBuilder(type: type, capacity: 1)
        builder.append(value)
        return builder.finish()
    }

    mutating func checkpoint(everything: Bool) -> FragmentCheckpoint.PagedImage {
        progress.checkpoint(table: stateTableID, everything: everything)
    }

    mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try progress.restore(from: tables, table: stateTableID)
        if let row = progress.lookup([])?.row { cleanedBelow = row.columns[0].value(at: 0) }
    }
}

extension StreamHashAggregate {
    /// Removes the state of every group whose cleaning column is below `below` (not NULL): its
    /// row and its ordered entries. A scan of the groups, run when the watermark passes a new
    /// window.
    mutating func removeGroups(below: Value) throws(SluiceError) {
        guard let cleaning else { return }
        let bound = WatermarkCleaning.column(of: below, type: cleaning.type)
        var keys: [[UInt8]] = []
        var rows: [Chunk] = []
        var counts: [Int32] = []
        for page in groups.snapshot {
            let contents = page.contents
            let values = contents.rows.columns[cleaning.column]
            var picks: [Int] = []
            for index in 0 ..< contents.keys.count where !values.isNull(index) && ValueOrdering.compare(values, index, bound, 0) < 0 {
                picks.append(index)
                keys.append(contents.keys.key(index))
                counts.append(-(contents.counts?[index] ?? 1))
            }
            if !picks.isEmpty { rows.append(contents.rows.gather(picks)) }
        }
        guard !keys.isEmpty else { return }
        let removed = keys
        groups.stage(Chunk.concatenate(rows, types: stateTypes), counts: counts) { bytes, row in bytes += removed[row] }
        groups.commitEpoch()
        for ordered in orderedStates {
            var entryRows: [Chunk] = []
            var entryKeys: [[UInt8]] = []
            var entryCounts: [Int32] = []
            for key in keys {
                for run in ordered.entries.table.runs(withPrefix: key) {
                    entryRows.append(run.contents.rows.gather(Array(run.range)))
                    for index in run.range {
                        entryKeys.append(run.contents.keys.key(index))
                        entryCounts.append(-(run.contents.counts?[index] ?? 1))
                    }
                }
            }
            guard !entryKeys.isEmpty else { continue }
            let staged = entryKeys
            ordered.entries.stage(Chunk.concatenate(entryRows, types: ordered.entries.table.types), counts: entryCounts) { bytes, row in
                bytes += staged[row]
            }
            ordered.entries.commit()
        }
    }
}
