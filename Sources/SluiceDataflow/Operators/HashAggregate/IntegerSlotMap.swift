/// An open-addressing hash map from `Int64` keys to `Int32` slots, with linear probing and
/// backward-shift deletion: the group directory of ``IntegerHashAggregate``.
///
/// Keys and slots sit in two flat arrays of a power-of-two capacity kept at most half full, so a
/// lookup is a multiply, a shift and usually one cache line; Swift's `Dictionary` costs a
/// seeded hash and a generic probe per lookup, which at a million groups was most of the
/// aggregate's time. Not `Sendable`: owned by one operator.
/// - Complexity: O(1) expected per lookup, insert and removal.
struct IntegerSlotMap {
    private var keys: [Int64]
    /// The slot stored under `keys[i]`, or -1 for an empty bucket.
    private var slots: [Int32]
    private var shift: Int
    private(set) var count = 0

    init(capacity: Int = 16) {
        var buckets = 16
        while buckets < capacity * 2 { buckets *= 2 }
        keys = [Int64](repeating: 0, count: buckets)
        slots = [Int32](repeating: -1, count: buckets)
        shift = 64 - buckets.trailingZeroBitCount
    }

    /// Bytes the two arrays take.
    var bytes: Int { keys.count * 12 }

    @inline(__always)
    private func bucket(of key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// The slot of `key`, or nil.
    @inline(__always)
    func slot(for key: Int64) -> Int32? {
        let mask = keys.count - 1
        var index = bucket(of: key)
        return keys.withUnsafeBufferPointer { keys in
            slots.withUnsafeBufferPointer { slots in
                while true {
                    let slot = slots[index]
                    if slot < 0 { return nil }
                    if keys[index] == key { return slot }
                    index = (index + 1) & mask
                }
            }
        }
    }

    /// Stores `slot` under `key`, which must not be present.
    mutating func insert(_ key: Int64, slot: Int32) {
        if (count + 1) * 2 > keys.count { grow() }
        let mask = keys.count - 1
        var index = bucket(of: key)
        while slots[index] >= 0 { index = (index + 1) & mask }
        keys[index] = key
        slots[index] = slot
        count += 1
    }

    /// Removes `key`, if present, moving later entries of its probe run back so that no lookup
    /// stops early at the hole.
    mutating func remove(_ key: Int64) {
        let mask = keys.count - 1
        var index = bucket(of: key)
        while true {
            if slots[index] < 0 { return }
            if keys[index] == key { break }
            index = (index + 1) & mask
        }
        var hole = index
        var next = (hole + 1) & mask
        while slots[next] >= 0 {
            let home = bucket(of: keys[next])
            // The entry at `next` may move into the hole unless its home lies cyclically in
            // (hole, next]: then the hole is before its home and a lookup would not reach it.
            let isBetween = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !isBetween {
                keys[hole] = keys[next]
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = -1
        count -= 1
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldSlots = slots
        self = IntegerSlotMap(capacity: oldKeys.count)
        for index in oldKeys.indices where oldSlots[index] >= 0 {
            insert(oldKeys[index], slot: oldSlots[index])
        }
    }
}
