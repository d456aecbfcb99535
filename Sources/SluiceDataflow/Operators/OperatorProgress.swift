import SluiceCore
import SluiceState

/// One value an operator keeps beside its state tables (the watermark it cleaned or closed
/// windows through, the time its window moved to, a counter): a one-row paged state table under
/// a fixed key, checkpointed and restored with the rest.
struct OperatorProgress {
    let id: Int
    let key: [UInt8]
    private var table: PagedTable
    /// The value last recorded or restored; nil before any.
    private(set) var value: Value?

    /// - Parameter key: the row's key (kept as earlier checkpoints wrote it).
    init(id: Int, type: DataType, key: [UInt8] = [0, 0]) {
        self.id = id
        self.key = key
        table = PagedTable(types: [type])
    }

    /// Makes `newValue` the value, in the table at once.
    mutating func record(_ newValue: Value) {
        var builder = ColumnBuilder(type: table.types[0], capacity: 1)
        builder.append(newValue)
        let key = self.key
        table.stage(Chunk(columns: [builder.finish()], count: 1), counts: [value == nil ? 1 : 0]) { bytes, _ in bytes += key }
        table.commitEpoch()
        value = newValue
    }

    mutating func checkpoint(everything: Bool) -> FragmentCheckpoint.PagedImage {
        table.checkpoint(table: id, everything: everything)
    }

    mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try table.restore(from: tables, table: id)
        if let row = table.lookup(key)?.row { value = row.columns[0].value(at: 0) }
    }

    mutating func enableCheckpoints() { table.tracksChanges = true }

    mutating func useMemory(_ memory: StateMemory) { table.useMemory(memory) }

    var byteCount: Int { table.byteCount }
}
