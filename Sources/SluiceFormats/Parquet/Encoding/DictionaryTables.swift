#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed-width value the dictionary encoder can hash by its bits.
protocol ParquetFixedWidthValue: Equatable {
    /// The value's bits, zero-extended: equal bits mean the same dictionary entry (so `-0.0`
    /// and `0.0`, or two NaN payloads, are distinct entries, as Parquet keeps them).
    var dictionaryBits: UInt64 { get }
}

extension Int32: ParquetFixedWidthValue {
    @inline(__always) var dictionaryBits: UInt64 { UInt64(UInt32(bitPattern: self)) }
}

extension Int64: ParquetFixedWidthValue {
    @inline(__always) var dictionaryBits: UInt64 { UInt64(bitPattern: self) }
}

extension Float: ParquetFixedWidthValue {
    @inline(__always) var dictionaryBits: UInt64 { UInt64(bitPattern) }
}

extension Double: ParquetFixedWidthValue {
    @inline(__always) var dictionaryBits: UInt64 { bitPattern }
}

/// Fibonacci hashing of 64 bits down to a table index of `shift`'s complement bits.
@inline(__always)
private func slotOf(_ hash: UInt64, shift: UInt64) -> Int {
    Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> shift)
}

/// An open-addressing hash table from fixed-width values to their dictionary index, with the
/// entries in insertion order. Linear probing, at most half full; no allocation per value.
struct FixedWidthDictionary<Value: ParquetFixedWidthValue> {
    private(set) var entries: [Value] = []
    /// Per slot: the entry index plus one (0 for an empty slot).
    private var slots: [Int32]
    private var shift: UInt64

    init() {
        slots = [Int32](repeating: 0, count: 1024)
        shift = 64 - 10
    }

    var count: Int { entries.count }

    /// The entry index of `value`, added if new; `isNew` tells which.
    @inline(__always)
    mutating func index(of value: Value) -> (index: UInt32, isNew: Bool) {
        let bits = value.dictionaryBits
        let mask = slots.count - 1
        var slot = slotOf(bits, shift: shift)
        let found: Int32? = entries.withUnsafeBufferPointer { entries in
            slots.withUnsafeBufferPointer { slots in
                while true {
                    let stored = slots[slot]
                    if stored == 0 { return nil }
                    if entries[Int(stored) - 1].dictionaryBits == bits { return stored - 1 }
                    slot = (slot + 1) & mask
                }
            }
        }
        if let found { return (UInt32(found), false) }
        entries.append(value)
        slots[slot] = Int32(entries.count)
        if entries.count * 2 > slots.count { grow() }
        return (UInt32(entries.count - 1), true)
    }

    private mutating func grow() {
        let newCount = slots.count * 2
        shift -= 1
        var newSlots = [Int32](repeating: 0, count: newCount)
        let mask = newCount - 1
        for (position, value) in entries.enumerated() {
            var slot = slotOf(value.dictionaryBits, shift: shift)
            while newSlots[slot] != 0 { slot = (slot + 1) & mask }
            newSlots[slot] = Int32(position + 1)
        }
        slots = newSlots
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        slots = [Int32](repeating: 0, count: 1024)
        shift = 64 - 10
    }
}

/// An open-addressing hash table from byte strings to their dictionary index; the entries are
/// kept packed (offsets and bytes), so adding one copies its bytes once and allocates nothing
/// per value. Each slot keeps the entry's hash, so probes compare bytes only on a hash match.
struct ByteArrayDictionary {
    private(set) var offsets: [Int32] = [0]
    private(set) var data: [UInt8] = []
    private var slotEntries: [Int32]
    private var slotHashes: [UInt32]
    /// Each entry's full hash, to rehash without reading its bytes again.
    private var hashes: [UInt64] = []
    private var shift: UInt64

    init() {
        slotEntries = [Int32](repeating: 0, count: 1024)
        slotHashes = [UInt32](repeating: 0, count: 1024)
        shift = 64 - 10
    }

    var count: Int { offsets.count - 1 }

    /// The entry index of the bytes `start ..< start + length` of `source`, added if new.
    @inline(__always)
    mutating func index(of source: UnsafePointer<UInt8>, length: Int) -> (index: UInt32, isNew: Bool) {
        let hash = ByteArrayDictionary.hash(source, length)
        let shortHash = UInt32(truncatingIfNeeded: hash >> 32)
        let mask = slotEntries.count - 1
        var slot = slotOf(hash, shift: shift)
        let found: Int32? = slotEntries.withUnsafeBufferPointer { slotEntries in
            slotHashes.withUnsafeBufferPointer { slotHashes in
                offsets.withUnsafeBufferPointer { offsets in
                    data.withUnsafeBufferPointer { data in
                        while true {
                            let stored = slotEntries[slot]
                            if stored == 0 { return nil }
                            if slotHashes[slot] == shortHash {
                                let entry = Int(stored) - 1
                                let start = Int(offsets[entry])
                                if Int(offsets[entry + 1]) - start == length
                                    && (length == 0 || memcmp(data.baseAddress! + start, source, length) == 0) {
                                    return stored - 1
                                }
                            }
                            slot = (slot + 1) & mask
                        }
                    }
                }
            }
        }
        if let found { return (UInt32(found), false) }
        data.append(contentsOf: UnsafeBufferPointer(start: source, count: length))
        offsets.append(Int32(truncatingIfNeeded: data.count))
        hashes.append(hash)
        slotEntries[slot] = Int32(count)
        slotHashes[slot] = shortHash
        if count * 2 > slotEntries.count { grow() }
        return (UInt32(count - 1), true)
    }

    /// The bytes of entry `index`.
    func withEntry<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        data.withUnsafeBufferPointer { data in
            let start = Int(offsets[index]), end = Int(offsets[index + 1])
            return body(UnsafeBufferPointer(rebasing: data[start ..< end]))
        }
    }

    private mutating func grow() {
        let newCount = slotEntries.count * 2
        shift -= 1
        var newEntries = [Int32](repeating: 0, count: newCount)
        var newHashes = [UInt32](repeating: 0, count: newCount)
        let mask = newCount - 1
        for entry in 0 ..< count {
            let hash = hashes[entry]
            var slot = slotOf(hash, shift: shift)
            while newEntries[slot] != 0 { slot = (slot + 1) & mask }
            newEntries[slot] = Int32(entry + 1)
            newHashes[slot] = UInt32(truncatingIfNeeded: hash >> 32)
        }
        slotEntries = newEntries
        slotHashes = newHashes
    }

    mutating func removeAll() {
        offsets.removeAll(keepingCapacity: true)
        offsets.append(0)
        data.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        slotEntries = [Int32](repeating: 0, count: 1024)
        slotHashes = [UInt32](repeating: 0, count: 1024)
        shift = 64 - 10
    }

    /// A fast 64-bit hash of `length` bytes: 8 bytes at a time through a multiply-xorshift mix.
    @inline(__always)
    static func hash(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> UInt64 {
        let raw = UnsafeRawPointer(bytes)
        var hash: UInt64 = 0x2D35_8DCC_AA6C_78A5 ^ UInt64(length)
        var position = 0
        while position + 8 <= length {
            let word = raw.loadUnaligned(fromByteOffset: position, as: UInt64.self)
            hash = (hash ^ word) &* 0x9FB2_1C65_1E98_DF25
            hash ^= hash >> 29
            position += 8
        }
        if position < length {
            var tail: UInt64 = 0
            var shiftBits: UInt64 = 0
            while position < length {
                tail |= UInt64(bytes[position]) << shiftBits
                shiftBits += 8
                position += 1
            }
            hash = (hash ^ tail) &* 0x9FB2_1C65_1E98_DF25
            hash ^= hash >> 29
        }
        hash = (hash ^ (hash >> 32)) &* 0xD6E8_FEB8_6659_FD93
        return hash ^ (hash >> 32)
    }
}
