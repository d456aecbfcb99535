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
    var progress: OperatorProgress
    var cleanedBelow: Value? { progress.value }
    /// The latest watermark received, to clean below at the next barrier.
    private var target: Value?

    init(column: Int, type: DataType, stateTableID: Int) {
        self.column = column
        self.type = type
        self.stateTableID = stateTableID
        progress = OperatorProgress(id: stateTableID, type: type, key: [])
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
        progress.record(target)
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
        return chunk.keeping((0 ..< chunk.count).map { values.isNull($0) || ValueOrdering.compare(values, $0, limit, 0) >= 0 })
    }

    /// The positions of `values` below `limit`'s one value (NULLs left out).
    static func positions(in values: Column, below limit: Column) -> [Int] {
        (0 ..< values.count).filter { !values.isNull($0) && ValueOrdering.compare(values, $0, limit, 0) < 0 }
    }

    static func column(of value: Value, type: DataType) -> Column {
        var builder = ColumnBuilder(type: type, capacity: 1)
        builder.append(value)
        return builder.finish()
    }

    mutating func checkpoint(everything: Bool) -> FragmentCheckpoint.PagedImage {
        progress.checkpoint(everything: everything)
    }

    mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try progress.restore(tables)
    }
}

extension PagedTable {
    /// Takes away every row whose `column` is below `bound` (a row with NULL there stays), and
    /// returns their keys. Run at a barrier, after the epoch's commit, when a watermark passed
    /// state that no later row can reach (the scan is ``PagedTable/removeRows(where:)``'s).
    mutating func removeRows(whereColumn column: Int, below bound: Value) -> [[UInt8]] {
        let limit = WatermarkCleaning.column(of: bound, type: types[column])
        let keys = removeRows { rows in WatermarkCleaning.positions(in: rows.columns[column], below: limit) }
        return (0 ..< keys.count).map { keys.key($0) }
    }
}
