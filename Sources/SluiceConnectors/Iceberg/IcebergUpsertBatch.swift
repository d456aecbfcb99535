import SluiceCore

/// An upsert sink's changes of one epoch, merged by primary key: what the epoch leaves for each
/// key it touched (the key's last version, or nothing when its last change deleted it).
///
/// The epoch is written as one equality-delete file of every touched key and one data file of
/// the versions left (design 0009). Equality deletes apply only to rows of older snapshots, so a
/// key written twice in one epoch must be merged here first: the table would otherwise keep both
/// versions. Flink's equality-delta writer keeps the same per-checkpoint map of keys.
///
/// The rows stay in the chunks they came in; the map holds one (chunk, row) pick per key.
package struct IcebergUpsertBatch {
    package let keyColumns: [Int]
    package let types: [DataType]
    private var chunks: [Chunk] = []
    /// Per touched key: its last change's row, and whether that change leaves the row.
    private var latest: [KeyBytes: (source: Int32, row: Int32, present: Bool)] = [:]
    package private(set) var changeCount = 0

    package init(keyColumns: [Int], types: [DataType]) {
        self.keyColumns = keyColumns
        self.types = types
    }

    package var isEmpty: Bool { latest.isEmpty }

    /// Takes a chunk of changes in order: a later change of a key replaces an earlier one.
    package mutating func take(_ chunk: StreamChunk) {
        guard chunk.count > 0 else { return }
        chunks.append(chunk.data)
        let source = Int32(chunks.count - 1)
        for row in 0..<chunk.count {
            let key = KeyBytes(chunk.data, row: row, columns: keyColumns)
            latest[key] = (source, Int32(row), chunk.ops[row].isInsertion)
        }
        changeCount += chunk.count
    }

    /// The epoch's result, and an empty batch after it: the rows left (every column), and the
    /// touched keys (the key columns only, in `keyColumns`' order).
    package mutating func drain() -> (rows: Chunk, deletedKeys: Chunk) {
        defer {
            chunks = []
            latest = [:]
            changeCount = 0
        }
        // In arrival order, so files keep the upstream order of first touches.
        let picks = latest.values.sorted { ($0.source, $0.row) < ($1.source, $1.row) }
        let kept = picks.filter(\.present).map { (source: $0.source, row: $0.row) }
        let rows = Chunk.gather(from: chunks, picks: kept, types: types)
        let keyChunks = chunks.map { chunk in Chunk(columns: keyColumns.map { chunk.columns[$0] }, count: chunk.count) }
        let keys = Chunk.gather(from: keyChunks, picks: picks.map { (source: $0.source, row: $0.row) }, types: keyColumns.map { types[$0] })
        return (rows, keys)
    }
}
