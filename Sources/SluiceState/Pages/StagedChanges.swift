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

    /// The changes sorted by key and folded to one per key, with the keys laid out in that
    /// order and the rows they take gathered in it, so a commit reads both in order.
    ///
    /// The keys are radix-sorted by their first eight bytes, carrying each change's sign; runs
    /// of equal prefixes (an update's two halves, keys that differ later) are then ordered by
    /// whole key and arrival. Each key's bytes are read at random once, when its run is walked.
    func folded() -> FoldedChanges {
        // Keys that came in ascending order, each once (an append-only view's row ids) need no
        // sort and no copy: keys and rows are taken as they are.
        if keys.isStrictlyAscending {
            var entries: [FoldedChange] = []
            entries.reserveCapacity(keys.count)
            for change in 0 ..< keys.count {
                let sign = signs[change]
                entries.append(FoldedChange(key: Int32(change), count: sign, insertedRow: sign >= 0 ? Int32(change) : -1))
            }
            let rows = chunks.count == 1 ? chunks[0] : Chunk.concatenate(chunks, types: chunks.first?.types ?? [])
            return FoldedChanges(keys: keys, entries: entries, rows: rows)
        }
        // Keys ascending within each vnode, each once (a table loaded in key order): sorted by
        // vnode alone.
        if let order = keys.orderIfAscendingPerVnode() {
            var entries: [FoldedChange] = []
            entries.reserveCapacity(order.count)
            var picks: [(source: Int32, row: Int32)] = []
            picks.reserveCapacity(order.count)
            let places = changePlaces()
            for change in order {
                let sign = signs[Int(change)]
                var entry = FoldedChange(key: Int32(entries.count), count: sign, insertedRow: -1)
                if sign >= 0 {
                    entry.insertedRow = Int32(picks.count)
                    picks.append(places[Int(change)])
                }
                entries.append(entry)
            }
            let rows = Chunk.gather(from: chunks, picks: picks, types: chunks.first?.types ?? [])
            return FoldedChanges(keys: keys.gathered(order), entries: entries, rows: rows)
        }
        let sorted = keys.sortedByPrefix(carrying: signs)
        var entries: [FoldedChange] = []
        entries.reserveCapacity(sorted.items.count)
        // The keys in order are gathered in one pass at the end (``KeyBuffer/gathered(_:)``).
        var keyOrder: [Int32] = []
        keyOrder.reserveCapacity(sorted.items.count)
        var picks: [(source: Int32, row: Int32)] = []
        picks.reserveCapacity(sorted.items.count)
        var items = sorted.items
        var runStart = 0
        while runStart < items.count {
            let runEnd = sorted.endOfRun(from: runStart)
            if runEnd - runStart == 1 {
                let item = items[runStart]
                let sign = Int32(truncatingIfNeeded: item)
                appendEntry(count: sign, inserted: sign >= 0 ? Int32(truncatingIfNeeded: item >> 32) : -1, into: &entries, &picks)
                keyOrder.append(Int32(truncatingIfNeeded: item >> 32))
                runStart = runEnd
                continue
            }
            // (Items order by their change index, in the high half, among equal keys.)
            keys.sortRun(&items, runStart ..< runEnd, depth: 8)
            var index = runStart
            while index < runEnd {
                let first = Int(items[index] >> 32)
                var next = index + 1
                while next < runEnd && keys.compare(first, with: Int(items[next] >> 32), of: keys) == 0 { next += 1 }
                var count: Int32 = 0
                var inserted: Int32 = -1
                for item in items[index ..< next] {
                    let sign = Int32(truncatingIfNeeded: item)
                    count += sign
                    if sign >= 0 { inserted = Int32(truncatingIfNeeded: item >> 32) }
                }
                appendEntry(count: count, inserted: inserted, into: &entries, &picks)
                keyOrder.append(Int32(first))
                index = next
            }
            runStart = runEnd
        }
        let rows = Chunk.gather(from: chunks, picks: picks, types: chunks.first?.types ?? [])
        return FoldedChanges(keys: keys.gathered(keyOrder), entries: entries, rows: rows)
    }

    /// Each change's chunk and row in it.
    private func changePlaces() -> [(source: Int32, row: Int32)] {
        var places: [(source: Int32, row: Int32)] = []
        places.reserveCapacity(keys.count)
        var start = 0
        for (chunk, end) in chunkEnds.enumerated() {
            for row in 0 ..< end - start { places.append((Int32(chunk), Int32(row))) }
            start = end
        }
        return places
    }

    /// Appends the next key's entry (its count, and the change whose row it takes).
    private func appendEntry(count: Int32, inserted: Int32, into entries: inout [FoldedChange], _ picks: inout [(source: Int32, row: Int32)]) {
        var entry = FoldedChange(key: Int32(entries.count), count: count, insertedRow: -1)
        if inserted >= 0 {
            // The chunk holding change `inserted` (the last whose start is not after it).
            var low = 0
            var high = chunkEnds.count - 1
            while low < high {
                let middle = (low + high) / 2
                if chunkEnds[middle] > Int(inserted) { high = middle } else { low = middle + 1 }
            }
            entry.insertedRow = Int32(picks.count)
            picks.append((Int32(low), inserted - Int32(low == 0 ? 0 : chunkEnds[low - 1])))
        }
        entries.append(entry)
    }
}

/// A key's changes in one epoch: the sum of their signs, and the last row inserted or put in
/// place (sign 0).
struct FoldedChange {
    /// The key's index in ``FoldedChanges/keys`` (the entry's own index: the keys are in order).
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
