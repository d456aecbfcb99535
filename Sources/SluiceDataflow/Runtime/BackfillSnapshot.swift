import SluiceCore
import SluiceState

/// The rows of one input a new view starts from, read a chunk at a time as its backfill goes:
/// a table's snapshot hands its pages over by reference and each is read (an evicted page read
/// back) only when the backfill reaches it, and a source's is read from the outside system then
/// (``SourceSnapshot``), so a snapshot larger than memory is never held whole. Read by one
/// thread, the view's.
package struct BackfillSnapshot: @unchecked Sendable {
    /// The rows in all chunks (for a source, an estimate; 0 when not known).
    package let rowCount: Int
    /// Whether it may hold more than one chunk (a backfill in vnode order may pay off).
    package let mayHoldMany: Bool
    private let body: ((Chunk) throws(SluiceError) -> Void) throws(SluiceError) -> Void

    /// A snapshot of `chunkCount` chunks holding `rowCount` rows, chunk `index` given by `chunk`.
    package init(chunkCount: Int, rowCount: Int, chunk: @escaping @Sendable (Int) -> Chunk) {
        self.rowCount = rowCount
        mayHoldMany = chunkCount > 1
        body = { (each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) in
            for index in 0 ..< chunkCount { try each(chunk(index)) }
        }
    }

    /// A snapshot of chunks already in memory.
    package init(_ chunks: [Chunk]) {
        self.init(chunkCount: chunks.count, rowCount: chunks.reduce(0) { $0 + $1.count }) { chunks[$0] }
    }

    /// A source's snapshot, read as the backfill reaches it.
    package init(_ source: SourceSnapshot) {
        rowCount = source.rowEstimate
        mayHoldMany = source.rowEstimate == 0 || source.rowEstimate > Chunk.preferredSize
        body = { (each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) in try source.read(each) }
    }

    /// Hands `each` the chunks in order, each read now.
    package func forEach(_ each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {
        try body(each)
    }
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
