import SluiceBatch
import SluiceCore

/// An upsert sink's changes of one epoch, merged by primary key: what the epoch leaves for each
/// key it touched (the key's last version, or nothing when its last change deleted it).
///
/// The epoch is written as one equality-delete file of every touched key and one data file of
/// the versions left (design 0009). Equality deletes apply only to rows of older snapshots, so a
/// key written twice in one epoch must be merged here first: the table would otherwise keep both
/// versions. Flink's equality-delta writer keeps the same per-checkpoint map of keys.
///
/// The rows stay in the chunks they came in; per key (a dense id from a ``GroupTable``, the batch
/// GROUP BY's table, in order of first touch) it holds two (chunk, row) picks: its first change in the batch, whose
/// row is the version older snapshots hold (its partition is where the equality delete goes),
/// and its last.
///
/// ``byteCount`` bounds it: past the sink's buffer size the sink drains the batch as one part of
/// the epoch and starts another (each part is its own snapshot, so a later part's deletes remove
/// an earlier part's versions).
package struct IcebergUpsertBatch {
    package let keyColumns: [Int]
    package let types: [DataType]
    private var chunks: [Chunk] = []
    private var chunkBytes = 0
    private var keys: GroupTable
    /// Per key id: its first change's row, its last change's row, and whether that change leaves
    /// the row.
    private var touches: [Touch] = []

    private struct Touch {
        var first: (source: Int32, row: Int32)
        var last: (source: Int32, row: Int32)
        var present: Bool
        /// Whether the first change took a row away (the key had a version before the batch).
        var firstRetracts: Bool
    }

    package init(keyColumns: [Int], types: [DataType]) {
        self.keyColumns = keyColumns
        self.types = types
        keys = GroupTable(keyTypes: keyColumns.map { types[$0] })
    }

    package var isEmpty: Bool { touches.isEmpty }

    /// The memory it holds: the chunks taken, the keys and the picks.
    package var byteCount: Int { chunkBytes + keys.byteCount + touches.capacity * MemoryLayout<Touch>.stride }

    /// Takes a chunk of changes in order: a later change of a key replaces an earlier one.
    package mutating func take(_ chunk: StreamChunk) {
        guard chunk.count > 0 else { return }
        chunks.append(chunk.data)
        chunkBytes += chunk.data.byteCount
        let source = Int32(chunks.count - 1)
        let ids = keys.groupIDs(for: Chunk(columns: keyColumns.map { chunk.data.columns[$0] }, count: chunk.count))
        // Keys new in this chunk get ids in about the order of their rows (a hash collision's
        // key comes last): their picks start unset.
        let unset = (source: Int32(-1), row: Int32(-1))
        touches.append(contentsOf: repeatElement(Touch(first: unset, last: unset, present: false, firstRetracts: false), count: keys.groupCount - touches.count))
        for row in 0..<chunk.count {
            let id = Int(ids[row])
            let pick = (source: source, row: Int32(row))
            if touches[id].first.source < 0 {
                touches[id].first = pick
                touches[id].firstRetracts = !chunk.ops[row].isInsertion
            }
            touches[id].last = pick
            touches[id].present = chunk.ops[row].isInsertion
        }
    }

    /// The batch's result: the rows left (each key's last version still present), and for each
    /// touched key the row of its first change, whose key columns the deletes are of (every
    /// column, so a partitioned table can place the delete), whether that key's last version is
    /// among `rows`, and whether its first change took a row away. In the order keys were first
    /// touched, so files keep the upstream order.
    package func result() -> IcebergUpsertResult {
        IcebergUpsertResult(
            rows: Chunk.gather(from: chunks, picks: touches.filter(\.present).map(\.last), types: types),
            touched: Chunk.gather(from: chunks, picks: touches.map(\.first), types: types),
            present: touches.map(\.present), retracts: touches.map(\.firstRetracts))
    }

    /// Empties the batch (once its result is written), keeping its buffers' capacity.
    package mutating func removeAll() {
        chunks = []
        chunkBytes = 0
        keys = GroupTable(keyTypes: keyColumns.map { types[$0] })
        touches.removeAll(keepingCapacity: true)
    }
}

/// What an ``IcebergUpsertBatch`` leaves: the rows to write and, per touched key, its first
/// change's row and flags.
package struct IcebergUpsertResult {
    package var rows: Chunk
    package var touched: Chunk
    package var present: [Bool]
    package var retracts: [Bool]
}
