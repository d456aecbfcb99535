import SluiceCore
import SluiceExpr
import SluicePlan

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
