import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Chunks produced one at a time, each when asked for: what lets `LIMIT` stop the work under it
/// and keeps an inner nested-loop join from building its whole product at once.
package struct ChunkStream {
    package let next: () throws(SluiceError) -> Chunk?

    /// A stream over chunks already made.
    static func of(_ chunks: [Chunk]) -> ChunkStream {
        var index = 0
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            return chunks[index]
        }
    }

    /// The rows of `snapshot`'s pages, a page at a time as they are pulled (an evicted page is
    /// read back then, and not kept past the state's memory limit), with `columns` of them.
    /// A column one past the stored ones is the hidden row id of a table without a primary key.
    static func pages(of snapshot: TableStore.Snapshot, columns: [Int]) -> ChunkStream {
        var index = 0
        let readsRowIDs = snapshot.columnCount.map { stored in columns.contains { $0 >= stored } } ?? false
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            while index < snapshot.pageCount {
                let chunk = readsRowIDs ? snapshot.rowsWithRowIDs(ofPage: index) : snapshot.rows(ofPage: index)
                index += 1
                if !chunk.isEmpty { return Chunk(columns: columns.map { chunk.columns[$0] }, count: chunk.count) }
            }
            return nil
        }
    }

    /// Each chunk `transform` makes of this stream's chunks, empty ones left out.
    func map(_ transform: @escaping (Chunk) throws(SluiceError) -> Chunk?) -> ChunkStream {
        let source = next
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            while let chunk = try source() {
                if let result = try transform(chunk), !result.isEmpty { return result }
            }
            return nil
        }
    }

    /// This stream's chunks in order, with runs of small ones (under half of
    /// ``Chunk/preferredSize`` rows) put together: a selective filter or join leaves a few rows
    /// of each chunk, and every operator above would otherwise do its per-chunk work for each.
    func coalesced(types: [DataType]) -> ChunkStream {
        let source = next
        let minimum = Chunk.preferredSize / 2
        var pending: [Chunk] = []
        var pendingRows = 0
        func flush() -> Chunk? {
            defer { (pending, pendingRows) = ([], 0) }
            if pending.count <= 1 { return pending.first }
            return Chunk.concatenate(pending, types: types)
        }
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            while true {
                if pendingRows >= minimum { return flush() }
                guard let chunk = try source() else { return flush() }
                if pending.isEmpty && chunk.count >= minimum { return chunk }
                if pendingRows + chunk.count > Chunk.preferredSize {
                    // (No chunk made here is larger than the preferred size.)
                    let full = flush()
                    (pending, pendingRows) = ([chunk], chunk.count)
                    return full
                }
                pending.append(chunk)
                pendingRows += chunk.count
            }
        }
    }

    /// Every chunk left.
    package func drain() throws(SluiceError) -> [Chunk] {
        var chunks: [Chunk] = []
        while let chunk = try next() { chunks.append(chunk) }
        return chunks
    }

    /// At most `limit` rows after the first `offset`; pulls no chunk once `limit` rows are out.
    func limited(_ limit: Int?, offset: Int) -> ChunkStream {
        var toSkip = offset
        var remaining = limit ?? Int.max
        let source = next
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            while remaining > 0, let chunk = try source() {
                var start = 0
                if toSkip > 0 {
                    let skipped = min(toSkip, chunk.count)
                    toSkip -= skipped
                    start = skipped
                }
                let end = start + min(chunk.count - start, remaining)
                guard end > start else { continue }
                remaining -= end - start
                return start == 0 && end == chunk.count ? chunk : chunk.slice(start ..< end)
            }
            return nil
        }
    }
}
