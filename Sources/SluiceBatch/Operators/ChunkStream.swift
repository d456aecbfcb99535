import SluiceCore
import SluiceExpr
import SluicePlan

/// Chunks produced one at a time, each when asked for: what lets `LIMIT` stop the work under it
/// and keeps an inner nested-loop join from building its whole product at once.
struct ChunkStream {
    let next: () throws(SluiceError) -> Chunk?

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
    func drain() throws(SluiceError) -> [Chunk] {
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

    /// The inner join of this stream's rows (the probe side) with every row of `build`, kept
    /// where `predicate` holds, in chunks of at most ``Chunk/preferredSize`` pairs: a probe row
    /// meets the build rows a block at a time. `isCancelled` is polled per block.
    func innerNestedLoopJoin(
        build: Chunk, predicate: ScalarExpr?, context: EvaluationContext, isCancelled: @escaping @Sendable () -> Bool
    ) -> ChunkStream {
        let source = next
        var probe: Chunk?
        var probeRow = 0
        var buildRow = 0
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            guard build.count > 0 else { return nil }
            while true {
                if probe == nil || probeRow >= probe!.count {
                    guard let chunk = try source() else { return nil }
                    (probe, probeRow, buildRow) = (chunk, 0, 0)
                    continue
                }
                if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                let current = probe!
                var probeRows: [Int] = []
                var buildRows: [Int] = []
                probeRows.reserveCapacity(Chunk.preferredSize)
                buildRows.reserveCapacity(Chunk.preferredSize)
                while probeRows.count < Chunk.preferredSize && probeRow < current.count {
                    let take = min(Chunk.preferredSize - probeRows.count, build.count - buildRow)
                    probeRows.append(contentsOf: repeatElement(probeRow, count: take))
                    buildRows.append(contentsOf: buildRow ..< buildRow + take)
                    buildRow += take
                    if buildRow == build.count { (probeRow, buildRow) = (probeRow + 1, 0) }
                }
                var joined = Chunk(columns: current.gather(probeRows).columns + build.gather(buildRows).columns, count: probeRows.count)
                if let predicate {
                    joined = try ExpressionEvaluator.filter(joined, by: predicate, context: context)
                }
                if !joined.isEmpty { return joined }
            }
        }
    }
}
