import SluiceCore
import SluiceExpr
import SluicePlan

/// ORDER BY … LIMIT n OFFSET m as a bounded top-N (PostgreSQL's bounded sort, DuckDB's top-N
/// heap): of the input only the first `n + m` rows in order seen so far are kept.
///
/// Rows come into a pending batch; once it has as many rows as are kept (or a chunk's worth),
/// the kept rows and the batch are sorted together and cut back to `n + m`, gathered into new
/// chunks, so the input's chunks are let go. Once `n + m` rows are kept, the last of them is the
/// boundary: a new chunk's rows are compared with it a key column at a time
/// (``SortBoundary``), and only those that sort strictly before it join the batch, so a
/// `LIMIT 1` over millions of rows copies almost nothing. Ties keep their input order: the
/// rows kept came first, and a row tied with the boundary is left out.
///
/// Memory: the kept rows and the batch, at most `2 × (n + m)` rows and two chunks, reserved
/// from the query's memory, or held within ``QueryMemory/operatorMinimum``. When the budget is
/// spent (by an aggregate below, say) and no batch fits, each chunk's candidates are cut back
/// with the kept rows at once (the chunk is in memory already); when the `n + m` rows alone
/// pass the minimum then, the top-N hands them and the rest of its input to the spilling
/// ``ExternalSort`` and takes the first rows of that.
/// - Complexity: per input chunk O(rows × keys) comparisons with the boundary; each compaction
///   sorts at most `2 × (n + m)` rows and comes after at least `n + m` new candidates.
struct TopN {
    let types: [DataType]
    let keys: [SortKey]
    let limit: Int
    let offset: Int
    let memory: QueryMemory
    let isCancelled: @Sendable () -> Bool

    /// The rows kept: `limit + offset`, saturating.
    var count: Int { offset.addingReportingOverflow(limit).overflow ? Int.max : offset + limit }

    func sort(_ source: ChunkStream) throws(SluiceError) -> ChunkStream {
        guard limit > 0 else { return ChunkStream.of([]) }
        var state = State(topN: self)
        while let chunk = try source.next() {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            var candidates = chunk
            if let boundary = state.boundary {
                let rows = boundary.rowsBefore(in: chunk)
                if rows.isEmpty { continue }
                if rows.count < chunk.count { candidates = chunk.gather(rows) }
            }
            let cost = Sorter.cost(of: candidates, keys: keys)
            if memory.tryReserve(cost, holding: state.held) {
                try state.add(candidates, cost: cost)
                continue
            }
            // No room for a batch: the candidates (in memory already, made by the operator below)
            // are cut back with the rows kept at once.
            memory.hold(cost)
            try state.add(candidates, cost: cost)
            state.compact()
            if state.held > memory.operatorMinimum && !memory.isWithinLimits {
                // The rows kept alone do not fit: a whole sort, which spills, and its first rows.
                memory.release(state.held)
                let held = ChunkStream.handingOver(state.kept, releasing: memory, cost: { _ in 0 })
                let rest = ChunkStream.concatenating(count: 2) { $0 == 0 ? held : source }
                return try ExternalSort(types: types, keys: keys, memory: memory, isCancelled: isCancelled).sort(rest, limit: limit, offset: offset)
            }
        }
        state.compact()
        return ChunkStream.handingOver(state.kept, releasing: memory, cost: { [keys] in Sorter.cost(of: $0, keys: keys) })
            .limited(limit, offset: offset)
    }

    /// The rows kept and the batch pending, and what they hold of the query's memory.
    private struct State {
        let topN: TopN
        /// At most ``TopN/count`` rows, in order.
        var kept: [Chunk] = []
        /// Candidates since the last compaction, in input order.
        var pending: [Chunk] = []
        var pendingRows = 0
        /// The bytes reserved (or held) for `kept` and `pending`.
        var held = 0
        /// The last kept row once ``TopN/count`` rows are kept.
        var boundary: SortBoundary?
        /// The text bytes of `kept` and `pending` per column: what is kept is sorted as one chunk
        /// of keys, whose text must stay well under the 2 GB one chunk addresses.
        var text: [Int]

        init(topN: TopN) {
            self.topN = topN
            text = [Int](repeating: 0, count: topN.types.count)
        }

        mutating func add(_ chunk: Chunk, cost: Int) throws(SluiceError) {
            held += cost
            pending.append(chunk)
            pendingRows += chunk.count
            if BatchExecutor.addText(of: chunk, to: &text) {
                throw SluiceError(.programLimitExceeded, "the sort holds more than 2 GB of text in one column")
            }
            if pendingRows >= max(topN.count, Chunk.preferredSize) || text.contains(where: { $0 > 1 << 30 }) { compact() }
        }

        /// Sorts the kept rows with the pending ones and keeps the first ``TopN/count``.
        mutating func compact() {
            guard !pending.isEmpty else { return }
            let (keys, count, memory) = (topN.keys, topN.count, topN.memory)
            kept = try! Sorter.sorted(kept + pending, types: topN.types, keys: keys).limited(count, offset: 0).drain()
            pending = []
            pendingRows = 0
            let keptHeld = kept.reduce(0) { $0 + Sorter.cost(of: $1, keys: keys) }
            // (The gathered rows take no more than their sources did, but may round up.)
            if keptHeld <= held { memory.release(held - keptHeld) } else { memory.hold(keptHeld - held) }
            held = keptHeld
            text = [Int](repeating: 0, count: topN.types.count)
            var keptRows = 0
            for chunk in kept {
                _ = BatchExecutor.addText(of: chunk, to: &text)
                keptRows += chunk.count
            }
            if keptRows == count, let last = kept.last {
                boundary = SortBoundary(row: last.slice(last.count - 1 ..< last.count), keys: keys)
            }
        }
    }
}
