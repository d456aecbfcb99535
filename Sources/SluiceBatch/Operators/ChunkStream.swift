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

    /// The inner join of this stream's rows (the probe side) with the rows of `build`: those
    /// with equal keys through `table` (its build side is `build`), or every row when `table` is
    /// nil; kept where `predicate` holds, in chunks of at most ``Chunk/preferredSize`` pairs: a
    /// probe row meets its matches a block at a time, so no chunk grows with the join's fan-out.
    /// `isCancelled` is polled per block.
    func innerJoin(
        build: Chunk, table: JoinHashTable?, probeKeys: [Int], predicate: ScalarExpr?, context: EvaluationContext,
        isCancelled: @escaping @Sendable () -> Bool
    ) -> ChunkStream {
        let source = next
        var probe: Chunk?
        var hashes: [UInt64] = []
        var cursor = JoinHashTable.Cursor()
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            guard build.count > 0 else { return nil }
            while true {
                if probe == nil || cursor.row >= probe!.count {
                    guard let chunk = try source() else { return nil }
                    probe = chunk
                    cursor = JoinHashTable.Cursor()
                    if table != nil { hashes = KeyHash.hashes(chunk, keys: probeKeys) }
                    continue
                }
                if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                let chunk = probe!
                var probeRows: [Int] = []
                var buildRows: [Int] = []
                probeRows.reserveCapacity(Chunk.preferredSize)
                buildRows.reserveCapacity(Chunk.preferredSize)
                JoinHashTable.nextPairs(
                    chunk, build: build, table: table, probeKeys: probeKeys, hashes: hashes, cursor: &cursor, limit: Chunk.preferredSize,
                    probeRows: &probeRows, buildRows: &buildRows)
                if probeRows.isEmpty { continue }
                var joined = Chunk(columns: chunk.gather(probeRows).columns + build.gather(buildRows).columns, count: probeRows.count)
                if let predicate {
                    joined = try ExpressionEvaluator.filter(joined, by: predicate, context: context)
                }
                if !joined.isEmpty { return joined }
            }
        }
    }
}
