import SluiceCore

/// The changes a ``PagedTable`` received in the current epoch, in arrival order: a key, a sign
/// and the row each came with, left in the chunk it arrived in. Change `c` is row `c` of the
/// staged chunks laid end to end.
struct StagedChanges {
    var keys = KeyBuffer()
    var signs: [Int8] = []
    var chunks: [Chunk] = []

    /// The changes sorted by key and folded to one per key.
    func folded() -> FoldedChanges {
        var order = (0 ..< Int32(keys.count)).map { $0 }
        let ends = keys.ends
        keys.bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                let base = bytes.baseAddress
                @inline(__always) func start(_ index: Int) -> Int { index == 0 ? 0 : Int(ends[index - 1]) }
                // By key, then by arrival: the changes of one key stay in the order they came.
                order.sort { left, right in
                    let leftStart = start(Int(left))
                    let rightStart = start(Int(right))
                    let order = KeyBuffer.compare(
                        base.map { $0 + leftStart }, Int(ends[Int(left)]) - leftStart, base.map { $0 + rightStart },
                        Int(ends[Int(right)]) - rightStart)
                    return order < 0 || (order == 0 && left < right)
                }
            }
        }
        var entries: [FoldedChange] = []
        entries.reserveCapacity(order.count)
        var index = 0
        while index < order.count {
            let first = order[index]
            var count: Int32 = 0
            var inserted: Int32 = -1
            var next = index
            while next < order.count, next == index || keys.compare(Int(first), with: Int(order[next]), of: keys) == 0 {
                let change = Int(order[next])
                count += Int32(signs[change])
                if signs[change] >= 0 { inserted = Int32(change) }
                next += 1
            }
            entries.append(FoldedChange(key: first, count: count, insertedRow: inserted))
            index = next
        }
        let rows = chunks.count == 1 ? chunks[0] : Chunk.concatenate(chunks, types: chunks.first?.types ?? [])
        return FoldedChanges(keys: keys, entries: entries, rows: rows)
    }
}

/// A key's changes in one epoch: the sum of their signs, and the last row inserted or put in
/// place (sign 0).
struct FoldedChange {
    /// The key's index in ``FoldedChanges/keys``.
    var key: Int32
    var count: Int32
    /// The staged change whose row the key takes, or -1 when the epoch inserted none.
    var insertedRow: Int32
}

/// An epoch's changes, one per key in key order, with the staged rows they point into.
struct FoldedChanges {
    var keys: KeyBuffer
    var entries: [FoldedChange]
    /// Every staged row, in arrival order.
    var rows: Chunk

    /// The rows of staged changes `changes`, in that order, as one chunk.
    func rows(_ changes: [Int]) -> Chunk {
        rows.gather(changes)
    }
}
