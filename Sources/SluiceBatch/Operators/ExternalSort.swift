import SluiceCore
import SluiceExpr
import SluicePlan

/// ORDER BY over any number of rows: sorted runs as big as the query's memory allows, each
/// written to a spill file when the next chunk does not fit, then merged (DuckDB's and
/// PostgreSQL's external sort). The last run stays in memory. A run also ends before any of
/// its text columns passes 2 GB, what one chunk can address.
///
/// A sort that may spill never fails for memory: when the query's (or the server's) budget is
/// spent, by the operators below it say, its run still grows to the query's
/// ``QueryMemory/operatorMinimum`` (held past the limit), and a run always takes at least the
/// chunk that came. More runs than ``mergeWidth`` are merged in passes of that many, so a merge
/// holds at most ``mergeWidth`` chunks and as many open files. Without a spill directory a
/// run that does not fit fails with 53200, naming the sort.
///
/// State: the current run's chunks; the spilled runs' files.
/// - Complexity: O(rows × log rows) comparisons overall; per chunk, O(chunk) to add it to the
///   run, and a run's sort and write when the run is full.
struct ExternalSort {
    let types: [DataType]
    let keys: [SortKey]
    let memory: QueryMemory
    let isCancelled: @Sendable () -> Bool
    /// The most runs merged at once.
    var mergeWidth = 64

    /// The rows of `source` in order; with `limit`, only the first `limit` after `offset`, and
    /// what the sort holds let go once they are out.
    func sort(_ source: ChunkStream, limit: Int? = nil, offset: Int = 0) throws(SluiceError) -> ChunkStream {
        var run: [Chunk] = []
        var runCost = 0
        var runText = [Int](repeating: 0, count: types.count)
        var runs: [ChunkSpillFile] = []
        while let chunk = try source.next() {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            let cost = Sorter.cost(of: chunk, keys: keys)
            var text = [Int](repeating: 0, count: types.count)
            for (index, column) in chunk.columns.enumerated() {
                if case .bytes(let bytes) = column.storage { text[index] = bytes.data.count }
            }
            if text.contains(where: { $0 > Int(Int32.max) }) {
                throw SluiceError(.programLimitExceeded, "the sort holds more than 2 GB of text in one column")
            }
            let textFull = zip(runText, text).contains { $0 + $1 > Int(Int32.max) }
            if textFull || !memory.tryReserve(cost, holding: runCost) {
                if !run.isEmpty, let file = try memory.spillFile(types: types) {
                    try write(run, to: file)
                    runs.append(file)
                    memory.release(runCost)
                    run = []
                    runCost = 0
                    runText = [Int](repeating: 0, count: types.count)
                } else if textFull {
                    throw SluiceError(.programLimitExceeded, "the sort holds more than 2 GB of text in one column")
                }
                if !memory.tryReserve(cost, holding: runCost) {
                    // A run takes at least the chunk that came, when it can be spilled later.
                    if memory.spillDirectory != nil { memory.hold(cost) } else { try memory.reserve(cost, for: "the sort") }
                }
            }
            run.append(chunk)
            runCost += cost
            for index in text.indices { runText[index] += text[index] }
        }
        let memory = self.memory
        var held = runCost
        func ending(_ sorted: ChunkStream) -> ChunkStream {
            guard let limit else { return sorted.whenDone { [held] in memory.release(held) } }
            return sorted.limited(limit, offset: offset, whenDone: { [held] in memory.release(held) })
        }
        let last = Sorter.sorted(run, types: types, keys: keys)
        if runs.isEmpty { return ending(last) }
        runs = try mergedDown(runs)
        var inputs: [ChunkStream] = []
        for file in runs { inputs.append(try file.chunks()) }
        // What the merge holds: a chunk of each run.
        let merging = runs.reduce(0) { $0 + $1.largestChunkBytes }
        memory.hold(merging)
        held += merging
        return ending(Self.merge(inputs + [last], types: types, keys: keys, isCancelled: isCancelled))
    }

    /// Runs merged in passes of ``mergeWidth`` consecutive ones until one more (the run in
    /// memory) can join them in the last merge; each pass keeps the runs' order, so ties stay
    /// in input order.
    private func mergedDown(_ runs: [ChunkSpillFile]) throws(SluiceError) -> [ChunkSpillFile] {
        var runs = runs
        while runs.count >= mergeWidth {
            var next: [ChunkSpillFile] = []
            for start in stride(from: 0, to: runs.count, by: mergeWidth) {
                let group = Array(runs[start ..< min(runs.count, start + mergeWidth)])
                if group.count == 1 {
                    next.append(group[0])
                    continue
                }
                guard let file = try memory.spillFile(types: types) else { throw SluiceError.internalError("a sort spilled without a spill directory") }
                var inputs: [ChunkStream] = []
                for run in group { inputs.append(try run.chunks()) }
                let merging = group.reduce(0) { $0 + $1.largestChunkBytes }
                memory.hold(merging)
                defer { memory.release(merging) }
                let merged = Self.merge(inputs, types: types, keys: keys, isCancelled: isCancelled)
                while let chunk = try merged.next() { try file.append(chunk) }
                memory.noteSpilled(file.byteCount)
                next.append(file)
            }
            runs = next
        }
        return runs
    }

    /// Writes `run` sorted to `file`.
    private func write(_ run: [Chunk], to file: ChunkSpillFile) throws(SluiceError) {
        let sorted = Sorter.sorted(run, types: types, keys: keys)
        while let piece = try sorted.next() { try file.append(piece) }
        memory.noteSpilled(file.byteCount)
    }

    /// The rows of sorted `inputs` in one order; rows that sort alike come in the inputs' order
    /// (so a merge of a stable sort's runs stays stable).
    static func merge(_ inputs: [ChunkStream], types: [DataType], keys: [SortKey], isCancelled: @escaping @Sendable () -> Bool) -> ChunkStream {
        var current: [Chunk?] = []
        // Each current chunk's keys as words, when they normalize (the same layout for all).
        var words: [NormalizedKeys?] = []
        var rows = [Int](repeating: 0, count: inputs.count)
        var heap: [Int] = []
        var started = false
        let text = TextWidth(types: types)
        func before(_ i: Int, _ j: Int) -> Bool {
            if let x = words[i], let y = words[j] {
                let order = NormalizedKeys.compare(x, rows[i], y, rows[j])
                return order != 0 ? order < 0 : i < j
            }
            let order = Sorter.compare(current[i]!, rows[i], current[j]!, rows[j], keys: keys)
            return order != 0 ? order < 0 : i < j
        }
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { return }
                var child = left
                if left + 1 < heap.count && before(heap[left + 1], heap[left]) { child = left + 1 }
                guard before(heap[child], heap[parent]) else { return }
                heap.swapAt(child, parent)
                parent = child
            }
        }
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            if !started {
                started = true
                for input in inputs { current.append(try input.next()) }
                words = current.map { $0.flatMap { NormalizedKeys($0, keys: keys, fixedLayout: true) } }
                heap = inputs.indices.filter { current[$0] != nil }
                for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
            }
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            // The chunks this output chunk takes rows from, and the position of each input's in it.
            var sources: [Chunk] = []
            var sourceOf = [Int32](repeating: -1, count: inputs.count)
            var picks: [(source: Int32, row: Int32)] = []
            picks.reserveCapacity(Chunk.preferredSize)
            var bytes = 0
            while picks.count < Chunk.preferredSize && bytes < TextWidth.chunkBytes, let top = heap.first {
                if sourceOf[top] < 0 {
                    sourceOf[top] = Int32(sources.count)
                    sources.append(current[top]!)
                }
                picks.append((sourceOf[top], Int32(rows[top])))
                if text.hasText { bytes += text.bytes(current[top]!, rows[top]) }
                rows[top] += 1
                if rows[top] == current[top]!.count {
                    current[top] = try inputs[top].next()
                    words[top] = current[top].flatMap { NormalizedKeys($0, keys: keys, fixedLayout: true) }
                    rows[top] = 0
                    sourceOf[top] = -1
                    if current[top] == nil {
                        heap[0] = heap[heap.count - 1]
                        heap.removeLast()
                    }
                }
                siftDown(0)
            }
            return picks.isEmpty ? nil : Chunk.gather(from: sources, picks: picks, types: types)
        }
    }
}

