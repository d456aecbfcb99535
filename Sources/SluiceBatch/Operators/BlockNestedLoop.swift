import SluiceCore
import SluiceExpr
import SluicePlan

/// The nested-loop join, bounded by the query's memory: its inner (right) side is held whole
/// while it fits, and past that written to a spill file, which the join then reads once for
/// each block of outer rows it can hold (the block nested loop). Every pair is still tried;
/// only where the inner rows wait changes. Rows of either side that no pair matched are
/// counted across blocks: the outer rows' within their block, the inner rows' in one flag a row.
extension BatchExecutor {
    func nestedLoopJoin(left: BatchPlan, right: BatchPlan, kind: JoinKind, predicate: ScalarExpr?) throws(SluiceError) -> ChunkStream {
        let rightTypes = right.outputTypes
        let source = try stream(right)
        switch try holdBuildSide(source, types: rightTypes, for: "the nested-loop join's inner side", spills: true, cost: \.approximateBytes) {
        case .held(let build, let held):
            let memory = self.memory
            return JoinExecutor(context: context, isCancelled: isCancelled).join(
                probe: try stream(left), build: build, table: nil, probeKeys: [], kind: kind, residual: predicate, leftTypes: left.outputTypes
            ).whenDone { memory.release(held) }
        case .overflowing(let chunks):
            return try blockNestedLoop(
                outer: try stream(left), inner: try spilling(chunks, rest: source, types: rightTypes), kind: kind, predicate: predicate, keys: nil,
                leftTypes: left.outputTypes)
        }
    }

    /// `held`, then the rest of `source`, in a spill file.
    func spilling(_ held: [Chunk], rest source: ChunkStream, types: [DataType]) throws(SluiceError) -> ChunkSpillFile {
        let spill = try memory.spillFile(types: types)!
        for chunk in held { try spill.append(chunk) }
        while let chunk = try source.next() {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            try spill.append(chunk)
        }
        memory.noteSpilled(spill.byteCount)
        return spill
    }

    /// Joins `outer`'s rows, a block at a time (as many chunks as the query's memory takes, at
    /// least one), with every chunk of `inner` read back from disk for each block. A pair is
    /// kept where its `keys` are equal (a NULL equal to nothing), if any, and `predicate` holds
    /// (over the outer columns, then the inner ones).
    func blockNestedLoop(
        outer: ChunkStream, inner: ChunkSpillFile, kind: JoinKind, predicate: ScalarExpr?, keys: (outer: [Int], inner: [Int])?,
        leftTypes: [DataType]
    ) throws(SluiceError) -> ChunkStream {
        let (context, isCancelled, memory) = (self.context, self.isCancelled, self.memory)
        let rightTypes = inner.types
        // Which inner rows some pair matched, for a right or full join's padded rows at the end.
        let tracksInner = kind == .right || kind == .full
        var innerMatched = [Bool](repeating: false, count: tracksInner ? inner.rowCount : 0)
        if tracksInner { memory.hold(inner.rowCount) }
        var block: Chunk?
        var blockHeld = 0
        var blockMatched: [Bool] = []
        var innerChunks: ChunkStream?
        var innerChunk: Chunk?
        var innerStart = 0
        var cursor = JoinHashTable.Cursor()
        var outerDone = false
        var padding: ChunkStream?

        /// The next block of outer rows, or nil past the last.
        func nextBlock() throws(SluiceError) -> Chunk? {
            memory.release(blockHeld)
            blockHeld = 0
            var chunks: [Chunk] = []
            while let chunk = try outer.next() {
                chunks.append(chunk)
                let bytes = chunk.approximateBytes
                if !memory.tryReserve(bytes, holding: blockHeld) {
                    memory.hold(bytes)
                    blockHeld += bytes
                    break
                }
                blockHeld += bytes
            }
            return chunks.isEmpty ? nil : Chunk.concatenate(chunks, types: leftTypes)
        }

        return ChunkStream { () throws(SluiceError) -> Chunk? in
            while true {
                if let padding { return try padding.next() }
                guard let outerRows = block else {
                    if !outerDone, let next = try nextBlock() {
                        block = next
                        blockMatched = [Bool](repeating: false, count: next.count)
                        innerChunks = try inner.chunks()
                        innerChunk = nil
                        innerStart = 0
                        continue
                    }
                    outerDone = true
                    memory.release(blockHeld)
                    blockHeld = 0
                    guard tracksInner else { return nil }
                    // The inner rows no pair matched, padded with NULLs on the left.
                    var start = 0
                    padding = try inner.chunks().map { chunk in
                        defer { start += chunk.count }
                        let unmatched = (0 ..< chunk.count).filter { !innerMatched[start + $0] }
                        if unmatched.isEmpty { return nil }
                        let leftNulls = leftTypes.map { Column(type: $0, repeating: .null, count: unmatched.count) }
                        return Chunk(columns: leftNulls + chunk.gather(unmatched).columns, count: unmatched.count)
                    }.whenDone { memory.release(innerMatched.count) }
                    continue
                }
                guard let pairing = innerChunk else {
                    if let next = try innerChunks?.next() {
                        innerChunk = next
                        cursor = JoinHashTable.Cursor()
                        continue
                    }
                    // Every inner row has met this block: what the block adds besides its pairs.
                    block = nil
                    innerChunks = nil
                    if let rows = JoinExecutor.closingRows(of: outerRows, matched: blockMatched, kind: kind, buildTypes: rightTypes) { return rows }
                    continue
                }
                if cursor.row >= outerRows.count {
                    innerStart += pairing.count
                    innerChunk = nil
                    continue
                }
                if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                var outerPicks: [Int] = []
                var innerPicks: [Int] = []
                JoinHashTable.nextPairs(
                    outerRows, build: pairing, table: nil, probeKeys: [], hashes: [], firsts: [], cursor: &cursor, limit: Chunk.preferredSize,
                    probeRows: &outerPicks, buildRows: &innerPicks)
                if let keys {
                    KeyHash.keepEqual(outerRows, keys.outer, pairing, keys.inner, nullsEqual: false, leftRows: &outerPicks, rightRows: &innerPicks)
                }
                if outerPicks.isEmpty { continue }
                let joined = try JoinExecutor.pairs(outerRows, &outerPicks, pairing, &innerPicks, residual: predicate, context: context)
                for row in outerPicks { blockMatched[row] = true }
                if tracksInner { for row in innerPicks { innerMatched[innerStart + row] = true } }
                if kind != .semi, kind != .anti, !joined.isEmpty { return joined }
            }
        }
    }
}
