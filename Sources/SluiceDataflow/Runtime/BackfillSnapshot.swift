import SluiceCore

/// The rows of one input a new view starts from, read a chunk at a time as its backfill goes:
/// a table's snapshot hands its pages over by reference and each is read (an evicted page read
/// back) only when the backfill reaches it, so a snapshot larger than memory is never held whole.
package struct BackfillSnapshot: Sendable {
    /// The number of chunks.
    package let chunkCount: Int
    /// The rows in all chunks.
    package let rowCount: Int
    private let read: @Sendable (Int) -> Chunk

    /// A snapshot of `chunkCount` chunks holding `rowCount` rows, chunk `index` given by `chunk`.
    package init(chunkCount: Int, rowCount: Int, chunk: @escaping @Sendable (Int) -> Chunk) {
        self.chunkCount = chunkCount
        self.rowCount = rowCount
        self.read = chunk
    }

    /// A snapshot of chunks already in memory.
    package init(_ chunks: [Chunk]) {
        self.init(chunkCount: chunks.count, rowCount: chunks.reduce(0) { $0 + $1.count }) { chunks[$0] }
    }

    /// Chunk `index` (read now).
    package func chunk(_ index: Int) -> Chunk { read(index) }
}
