/// An open-addressing hash table from byte strings to their dictionary index; the entries are
/// kept packed (offsets and bytes), so adding one copies its bytes once and allocates nothing
/// per value.
///
/// Lookups are what a dictionary-encoded string column costs, and with a few thousand entries
/// they wait on memory (the table and the bytes outgrow the first-level cache). So a slot holds
/// the entry's hash tag, index, start and length: a lookup reads one slot and then the bytes,
/// two cache misses at most, not three through an offsets array. (Looking strings up sixteen
/// at a time, slots first, was tried and measured slower: the misses overlap well enough.)
struct ByteArrayDictionary {
    private struct Slot {
        /// The high 32 bits of the entry's hash, then its index plus one (0: an empty slot).
        var tagAndEntry: UInt64
        var start: UInt32
        var length: UInt32

        static let empty = Slot(tagAndEntry: 0, start: 0, length: 0)
    }

    private static let tagMask: UInt64 = 0xFFFF_FFFF_0000_0000

    private(set) var offsets: [Int32] = [0]
    private(set) var data: [UInt8] = []
    private var slots: [Slot]
    /// Each entry's full hash, to rehash without reading its bytes again.
    private var hashes: [UInt64] = []
    private var shift: UInt64

    /// The most bytes the entries may take: starts and offsets are 32-bit. The writer falls
    /// back to PLAIN long before (at its dictionary page size, at most a quarter of this).
    static let byteLimit = Int(Int32.max)

    init() {
        slots = [Slot](repeating: .empty, count: 1024)
        shift = 64 - 10
    }

    var count: Int { offsets.count - 1 }

    /// Appends to `indices` the entry index of each string `rows` of (`offsets`, `bytes`) (a
    /// ``VarBytes``'s buffers), adding the strings not yet entries, and appends to `added` the
    /// rows of those added.
    mutating func encode(
        offsets source: UnsafeBufferPointer<Int32>, bytes: UnsafeRawPointer, rows: Range<Int>,
        into indices: inout [UInt32], added: inout [Int]
    ) {
        let first = indices.count - rows.lowerBound
        indices.append(contentsOf: repeatElement(0, count: rows.count))
        var row = rows.lowerBound
        while row < rows.upperBound {
            // Up to the first string not yet an entry, found at an empty slot with its hash.
            var miss = (slot: 0, hash: UInt64(0))
            row = indices.withUnsafeMutableBufferPointer { output in
                slots.withUnsafeBufferPointer { slots in
                    data.withUnsafeBytes { data in
                        Self.lookUp(
                            rows: row ..< rows.upperBound, offsets: source, bytes: bytes, slots: slots, shift: shift,
                            entries: data, output: output, outputShift: first, miss: &miss)
                    }
                }
            }
            guard row < rows.upperBound else { break }
            let start = Int(source[row]), length = Int(source[row + 1]) - start
            let entryStart = data.count
            data.append(contentsOf: UnsafeRawBufferPointer(start: bytes + start, count: length))
            offsets.append(Int32(truncatingIfNeeded: data.count))
            hashes.append(miss.hash)
            slots[miss.slot] = Slot(
                tagAndEntry: miss.hash & Self.tagMask | UInt64(count),
                start: UInt32(truncatingIfNeeded: entryStart), length: UInt32(truncatingIfNeeded: length))
            indices[first + row] = UInt32(count - 1)
            added.append(row)
            if count * 2 > slots.count { grow() }
            row += 1
        }
    }

    /// Writes the entry of each string `rows` to `output[outputShift + row]`, up to the first
    /// string that is not an entry, whose row it returns (with its empty slot and hash in
    /// `miss`); `rows.upperBound` when all are entries.
    @inline(__always)
    private static func lookUp(
        rows: Range<Int>, offsets: UnsafeBufferPointer<Int32>, bytes: UnsafeRawPointer, slots: UnsafeBufferPointer<Slot>,
        shift: UInt64, entries: UnsafeRawBufferPointer, output: UnsafeMutableBufferPointer<UInt32>, outputShift: Int, miss: inout (slot: Int, hash: UInt64)
    ) -> Int {
        // Never read for an empty dictionary: every probe then finds an empty slot.
        let entryBytes = entries.baseAddress ?? bytes
        let mask = slots.count - 1
        for row in rows {
            let start = Int(offsets[row])
            let length = Int(offsets[row + 1]) - start
            let string = bytes + start
            let hash = Self.hash(string, length)
            let tag = hash & tagMask
            var slot = slotOf(hash, shift: shift)
            while true {
                let stored = slots[slot]
                if stored.tagAndEntry == 0 {
                    miss = (slot, hash)
                    return row
                }
                if stored.tagAndEntry & tagMask == tag && Int(stored.length) == length
                    && equal(entryBytes + Int(stored.start), string, length) {
                    output[outputShift + row] = UInt32(truncatingIfNeeded: stored.tagAndEntry) &- 1
                    break
                }
                slot = (slot + 1) & mask
            }
        }
        return rows.upperBound
    }

    /// The bytes of entry `index`.
    func withEntry<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        data.withUnsafeBufferPointer { data in
            let start = Int(offsets[index]), end = Int(offsets[index + 1])
            return body(UnsafeBufferPointer(rebasing: data[start ..< end]))
        }
    }

    private mutating func grow() {
        let newCount = slots.count * 2
        shift -= 1
        var newSlots = [Slot](repeating: .empty, count: newCount)
        let mask = newCount - 1
        for entry in 0 ..< count {
            let hash = hashes[entry]
            var slot = slotOf(hash, shift: shift)
            while newSlots[slot].tagAndEntry != 0 { slot = (slot + 1) & mask }
            let start = offsets[entry]
            newSlots[slot] = Slot(
                tagAndEntry: hash & Self.tagMask | UInt64(entry + 1),
                start: UInt32(truncatingIfNeeded: start), length: UInt32(truncatingIfNeeded: offsets[entry + 1] - start))
        }
        slots = newSlots
    }

    mutating func removeAll() {
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        data.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        slots = [Slot](repeating: .empty, count: 1024)
        shift = 64 - 10
    }

    /// A fast 64-bit hash of `length` bytes. Strings of 4 bytes and more are read a word at a
    /// time, the last word overlapping the one before (so no byte loop and no read past the
    /// end); shorter ones byte by byte. Each word goes through a multiply-xorshift mix.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawPointer, _ length: Int) -> UInt64 {
        @inline(__always) func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
            let mixed = (hash ^ word) &* 0x9FB2_1C65_1E98_DF25
            return mixed ^ (mixed >> 29)
        }
        var hash: UInt64 = 0x2D35_8DCC_AA6C_78A5 ^ UInt64(truncatingIfNeeded: length)
        if length >= 8 {
            var position = 0
            while position + 8 < length {
                hash = mix(hash, bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                position += 8
            }
            hash = mix(hash, bytes.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self))
        } else if length >= 4 {
            let low = UInt64(bytes.loadUnaligned(as: UInt32.self))
            let high = UInt64(bytes.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self))
            hash = mix(hash, low | high << 32)
        } else if length > 0 {
            let first = UInt64(bytes.load(as: UInt8.self))
            let middle = UInt64(bytes.load(fromByteOffset: length / 2, as: UInt8.self))
            let last = UInt64(bytes.load(fromByteOffset: length - 1, as: UInt8.self))
            hash = mix(hash, first | middle << 8 | last << 16)
        }
        hash = (hash ^ (hash >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return hash ^ (hash >> 32)
    }

    /// Whether the `length` bytes at `left` and `right` are equal, read as `hash` reads them.
    @inline(__always)
    static func equal(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer, _ length: Int) -> Bool {
        if length >= 8 {
            var position = 0
            while position + 8 < length {
                if left.loadUnaligned(fromByteOffset: position, as: UInt64.self) != right.loadUnaligned(fromByteOffset: position, as: UInt64.self) {
                    return false
                }
                position += 8
            }
            return left.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self) == right.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
        }
        if length >= 4 {
            return left.loadUnaligned(as: UInt32.self) == right.loadUnaligned(as: UInt32.self)
                && left.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self) == right.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
        }
        for position in 0 ..< length where left.load(fromByteOffset: position, as: UInt8.self) != right.load(fromByteOffset: position, as: UInt8.self) {
            return false
        }
        return true
    }
}
