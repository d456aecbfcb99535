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
func slotOf(_ hash: UInt64, shift: UInt64) -> Int {
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

    /// Appends to `indices` the entry index of each of `values`, adding the values not yet
    /// entries, and appends to `added` the positions in `values` of those added.
    ///
    /// Values already entries (nearly all, while a dictionary pays off) are looked up in one
    /// loop over raw buffers; the loop leaves only to add an entry.
    mutating func encode(_ values: UnsafeBufferPointer<Value>, into indices: inout [UInt32], added: inout [Int]) {
        let first = indices.count
        indices.append(contentsOf: repeatElement(0, count: values.count))
        var position = 0
        while position < values.count {
            var emptySlot = 0
            position = indices.withUnsafeMutableBufferPointer { output in
                entries.withUnsafeBufferPointer { entries in
                    slots.withUnsafeBufferPointer { slots in
                        let mask = slots.count - 1
                        var position = position
                        while position < values.count {
                            let bits = values[position].dictionaryBits
                            var slot = slotOf(bits, shift: shift)
                            while true {
                                let stored = slots[slot]
                                if stored == 0 {
                                    emptySlot = slot
                                    return position
                                }
                                if entries[Int(stored) - 1].dictionaryBits == bits {
                                    output[first + position] = UInt32(stored - 1)
                                    break
                                }
                                slot = (slot + 1) & mask
                            }
                            position += 1
                        }
                        return position
                    }
                }
            }
            guard position < values.count else { break }
            entries.append(values[position])
            slots[emptySlot] = Int32(entries.count)
            indices[first + position] = UInt32(entries.count - 1)
            added.append(position)
            if entries.count * 2 > slots.count { grow() }
            position += 1
        }
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
