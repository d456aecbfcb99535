import SluiceCore
import SluiceState

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

/// Where a relation's current rows are, for the backfill of a view that reads it: a table's or
/// a view's store (its pages handed over by reference), or a source's connector (everything
/// its outside system holds now). The runtime keeps one per relation it may be asked to read
/// (``StreamRuntime/setRows(_:for:)``).
package enum RelationRows: Sendable {
    case store(TableStore)
    case source(any SourceConnector)

    /// The rows now; of a source, only `columns` need be read (the others may be NULL).
    package func snapshot(columns: Set<Int>) throws(SluiceError) -> BackfillSnapshot {
        switch self {
        case .store(let store):
            let snapshot = store.snapshot()
            return BackfillSnapshot(chunkCount: snapshot.pageCount, rowCount: snapshot.rowCount) { snapshot.rows(ofPage: $0) }
        case .source(let connector):
            return BackfillSnapshot(try connector.snapshot(columns: columns))
        }
    }
}
