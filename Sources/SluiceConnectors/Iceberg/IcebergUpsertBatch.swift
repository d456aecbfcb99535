import SluiceCore

/// An upsert sink's changes of one epoch, merged by primary key: what the epoch leaves for each
/// key it touched (the key's last version, or nothing when its last change deleted it).
///
/// The epoch is written as one equality-delete file of every touched key and one data file of
/// the versions left (design 0009). Equality deletes apply only to rows of older snapshots, so a
/// key written twice in one epoch must be merged here first: the table would otherwise keep both
/// versions. Flink's equality-delta writer keeps the same per-checkpoint map of keys.
///
/// The rows stay in the chunks they came in; the map holds two (chunk, row) picks per key: its
/// first change in the epoch, whose row is the version older snapshots hold (its partition is
/// where the equality delete goes), and its last.
package struct IcebergUpsertBatch {
    package let keyColumns: [Int]
    package let types: [DataType]
    private var chunks: [Chunk] = []
    /// Per touched key: its first change's row, its last change's row, and whether that change
    /// leaves the row.
    private var latest: [KeyBytes: Touch] = [:]

    private struct Touch {
        var first: (source: Int32, row: Int32)
        var last: (source: Int32, row: Int32)
        var present: Bool
    }

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
            let pick = (source: source, row: Int32(row))
            let present = chunk.ops[row].isInsertion
            if latest[key] == nil {
                latest[key] = Touch(first: pick, last: pick, present: present)
            } else {
                latest[key]?.last = pick
                latest[key]?.present = present
            }
        }
    }

    /// The epoch's result, and an empty batch after it: the rows left (each key's last version
    /// still present), and for each touched key the row of its first change, whose key columns
    /// the equality deletes hold (every column, so a partitioned table can place the delete).
    package mutating func drain() -> (rows: Chunk, deleted: Chunk) {
        defer {
            chunks = []
            latest = [:]
        }
        // In arrival order, so files keep the upstream order of first touches.
        let touches = latest.values.sorted { ($0.first.source, $0.first.row) < ($1.first.source, $1.first.row) }
        let rows = Chunk.gather(from: chunks, picks: touches.filter(\.present).map(\.last), types: types)
        let deleted = Chunk.gather(from: chunks, picks: touches.map(\.first), types: types)
        return (rows, deleted)
    }
}
