/// Dense ids (0, 1, 2, …, in order of first sight) for the distinct keys of rows, without an
/// allocation per row: each key is encoded (``KeyEncoding``) into one scratch buffer, found by
/// open addressing over its hash, and copied into one arena the first time it is seen.
package struct KeyInterner {
    /// Every distinct key's bytes, one after another; key `id` ends at `ends[id]`.
    private var arena: [UInt8] = []
    private var ends: [Int] = []
    private var hashes: [Int] = []
    /// Open-addressing slots holding key ids, -1 when empty; a power of two, at most half full.
    private var slots: [Int32] = Array(repeating: -1, count: 16)
    private var scratch: [UInt8] = []

    package init() {}

    /// How many distinct keys it holds.
    package var count: Int { ends.count }

    /// The bytes it holds (arena, index and slots).
    package var byteCount: Int {
        arena.capacity + (ends.capacity + hashes.capacity) * MemoryLayout<Int>.stride + slots.count * MemoryLayout<Int32>.stride
    }

    /// The id of row `row`'s key in `columns` of `chunk`, and whether it is new.
    package mutating func intern(_ chunk: Chunk, row: Int, columns: [Int]) -> (id: Int, inserted: Bool) {
        scratch.removeAll(keepingCapacity: true)
        for column in columns { KeyEncoding.append(chunk.columns[column], row: row, to: &scratch) }
        var hasher = Hasher()
        scratch.withUnsafeBytes { hasher.combine(bytes: $0) }
        let hash = hasher.finalize()
        let mask = slots.count - 1
        var slot = hash & mask
        while true {
            let id = Int(slots[slot])
            if id < 0 { break }
            if hashes[id] == hash && matches(id) { return (id, false) }
            slot = (slot + 1) & mask
        }
        let id = ends.count
        arena.append(contentsOf: scratch)
        ends.append(arena.count)
        hashes.append(hash)
        slots[slot] = Int32(id)
        if ends.count * 2 > slots.count { grow() }
        return (id, true)
    }

    /// Forgets every key, keeping the buffers' capacity.
    package mutating func removeAll() {
        arena.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        for index in slots.indices { slots[index] = -1 }
    }

    private func matches(_ id: Int) -> Bool {
        let start = id == 0 ? 0 : ends[id - 1]
        guard ends[id] - start == scratch.count else { return false }
        return arena.withUnsafeBufferPointer { arena in
            scratch.withUnsafeBufferPointer { scratch in
                for offset in 0 ..< scratch.count where arena[start + offset] != scratch[offset] { return false }
                return true
            }
        }
    }

    private mutating func grow() {
        var grown = [Int32](repeating: -1, count: slots.count * 2)
        let mask = grown.count - 1
        for (id, hash) in hashes.enumerated() {
            var slot = hash & mask
            while grown[slot] >= 0 { slot = (slot + 1) & mask }
            grown[slot] = Int32(id)
        }
        slots = grown
    }
}
