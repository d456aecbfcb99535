import SluiceCore
import SluiceState

/// The state tables a sink keeps (an upsert Iceberg sink's key → row position index): its
/// fragment counts them against the memory limit, checkpoints them with its own tables at every
/// checkpoint and restores them before the sink resumes, so they are exactly as durable as the
/// sink's prepared epochs.
///
/// Touched only on the fragment's thread (the sink's writes and prepares, the fragment's
/// checkpoints).
package final class SinkStateTables: @unchecked Sendable {
    /// The tables by id; ids count down from ``firstID`` so they never meet an operator's.
    package var tables: [PagedTable]
    package static let firstID = Int(UInt32.max) - 2

    package init(types: [[DataType]]) {
        tables = types.map { PagedTable(types: $0) }
    }

    package static func id(_ index: Int) -> Int { firstID - index }

    package var byteCount: Int { tables.reduce(0) { $0 + $1.byteCount } }

    func useMemory(_ memory: StateMemory) {
        for index in tables.indices { tables[index].useMemory(memory) }
    }

    func enableCheckpoints() {
        for index in tables.indices { tables[index].tracksChanges = true }
    }

    func restore(_ restored: RestoredTables) throws(SluiceError) {
        for index in tables.indices { try tables[index].restore(from: restored, table: Self.id(index)) }
    }

    func checkpoint(everything: Bool) -> [FragmentCheckpoint.PagedImage] {
        tables.indices.map { tables[$0].checkpoint(table: Self.id($0), everything: everything) }
    }
}
