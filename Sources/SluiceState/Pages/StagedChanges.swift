import SluiceCore

/// The changes a ``PagedTable`` received in the current epoch, in arrival order: a key, a sign
/// and the row each came with, left in the chunk it arrived in. Change `c` is row `c` of the
/// staged chunks laid end to end.
struct StagedChanges {
    var keys = KeyBuffer()
    /// Per change: +1 or -1 (a row in or out), a larger count, or 0 (the row replaced in place).
    var signs: [Int32] = []
    var chunks: [Chunk] = []
    /// The number of changes in `chunks[0 ... i]`, for reading staged rows back mid-epoch.
    var chunkEnds: [Int] = []

    /// The rows of changes `changes` (in that order) as one chunk, read before the epoch is
    /// folded (a reader that must see its own epoch's writes).
    func rows(at changes: [Int], types: [DataType]) -> Chunk {
        guard !changes.isEmpty else { return Chunk(emptyOf: types) }
        // Grouped by chunk, each group gathered once, then put back in the order asked.
        var byChunk: [Int: [Int]] = [:]
        var positions: [(chunk: Int, offset: Int)] = []
        positions.reserveCapacity(changes.count)
        for change in changes {
            var low = 0
            var high = chunkEnds.count - 1
            while low < high {
                let middle = (low + high) / 2
                if chunkEnds[middle] > change { high = middle } else { low = middle + 1 }
            }
            let rowInChunk = change - (low == 0 ? 0 : chunkEnds[low - 1])
            positions.append((low, byChunk[low, default: []].count))
            byChunk[low, default: []].append(rowInChunk)
        }
        if byChunk.count == 1, let (chunk, rows) = byChunk.first { return chunks[chunk].gather(rows) }
        let order = byChunk.keys.sorted()
        var base: [Int: Int] = [:]
        var total = 0
        for chunk in order {
            base[chunk] = total
            total += byChunk[chunk]!.count
        }
        let combined = Chunk.concatenate(order.map { chunks[$0].gather(byChunk[$0]!) }, types: types)
        return combined.gather(positions.map { base[$0.chunk]! + $0.offset })
    }

    /// The changes sorted by key and folded to one per key.
    func folded() -> FoldedChanges {
        // Sorted by key, and by arrival among equal keys: the changes of one key stay in the
        // order they came.
        let (order, prefixes) = keys.sortedOrderAndPrefixes()
        // Each change's chunk and row in it, for the inserted rows' gather below.
        var chunkOfChange: [Int32] = []
        if chunks.count > 1 {
            chunkOfChange.reserveCapacity(keys.count)
            var start = 0
            for (chunk, end) in chunkEnds.enumerated() {
                chunkOfChange.append(contentsOf: repeatElement(Int32(chunk), count: end - start))
                start = end
            }
        }
        var entries: [FoldedChange] = []
        entries.reserveCapacity(order.count)
        var picks: [(source: Int32, row: Int32)] = []
        picks.reserveCapacity(order.count)
        var index = 0
        while index < order.count {
            let first = order[index]
            var count: Int32 = 0
            var inserted: Int32 = -1
            var next = index
            while next < order.count,
                next == index || (prefixes[next] == prefixes[index] && keys.compare(Int(first), with: Int(order[next]), of: keys) == 0)
            {
                let change = Int(order[next])
                count += signs[change]
                if signs[change] >= 0 { inserted = Int32(change) }
                next += 1
            }
            var entry = FoldedChange(key: first, count: count, insertedRow: -1)
            if inserted >= 0 {
                let chunk = chunkOfChange.isEmpty ? 0 : Int(chunkOfChange[Int(inserted)])
                entry.insertedRow = Int32(picks.count)
                picks.append((Int32(chunk), inserted - Int32(chunk == 0 ? 0 : chunkEnds[chunk - 1])))
            }
            entries.append(entry)
            index = next
        }
        // The rows the keys take, gathered once in key order: the commit then reads them in
        // order, page after page, instead of at random from the chunks as they came.
        let rows = Chunk.gather(from: chunks, picks: picks, types: chunks.first?.types ?? [])
        return FoldedChanges(keys: keys, entries: entries, rows: rows)
    }
}

/// A key's changes in one epoch: the sum of their signs, and the last row inserted or put in
/// place (sign 0).
struct FoldedChange {
    /// The key's index in ``FoldedChanges/keys``.
    var key: Int32
    var count: Int32
    /// The row the key takes: its index in ``FoldedChanges/rows``, or -1 when the epoch
    /// inserted none.
    var insertedRow: Int32
}

/// An epoch's changes, one per key in key order, with the rows they take.
struct FoldedChanges {
    var keys: KeyBuffer
    var entries: [FoldedChange]
    /// The rows the entries take, in key order.
    var rows: Chunk
}
