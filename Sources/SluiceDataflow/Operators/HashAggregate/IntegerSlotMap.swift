/// An open-addressing hash map from `Int64` keys to `Int32` slots, with linear probing and
/// backward-shift deletion: the group directory of ``IntegerHashAggregate``.
///
/// Each bucket holds its key and slot side by side (16 bytes, four to a cache line) in one flat
/// array of a power-of-two capacity kept at most half full, so a lookup is a multiply, a shift
/// and usually one cache miss; Swift's `Dictionary` costs a seeded hash and a generic probe per
/// lookup, and keys and slots in two arrays cost two misses, which at a million groups was most
/// of the aggregate's time. Not `Sendable`: owned by one operator.
/// - Complexity: O(1) expected per lookup, insert and removal.
struct IntegerSlotMap {
    struct Bucket {
        var key: Int64
        /// The slot stored under `key`, or -1 for an empty bucket.
        var slot: Int32
    }

    private var buckets: [Bucket]
    private var shift: Int
    private(set) var count = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        buckets = [Bucket](repeating: Bucket(key: 0, slot: -1), count: size)
        shift = 64 - size.trailingZeroBitCount
    }

    /// Bytes the buckets take.
    var bytes: Int { buckets.count * MemoryLayout<Bucket>.stride }

    @inline(__always)
    private func bucket(of key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift))
    }

    /// The slot of `key`, or nil.
    @inline(__always)
    func slot(for key: Int64) -> Int32? {
        let mask = buckets.count - 1
        var index = bucket(of: key)
        return buckets.withUnsafeBufferPointer { buckets in
            while true {
                let bucket = buckets[index]
                if bucket.slot < 0 { return nil }
                if bucket.key == key { return bucket.slot }
                index = (index + 1) & mask
            }
        }
    }

    /// The slots of `keys[0 ..< count]` into `slots` (-1 where absent), looked up a batch at a
    /// time: the buckets of the next rows are touched before the current row is probed, so the
    /// cache misses of a batch overlap instead of following one another.
    func slots(for keys: UnsafeBufferPointer<Int64>, into slots: UnsafeMutableBufferPointer<Int32>) {
        let mask = buckets.count - 1
        buckets.withUnsafeBufferPointer { buckets in
            let base = buckets.baseAddress!
            let batch = 16
            var homes = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var start = 0
            while start < keys.count {
                let end = min(keys.count, start + batch)
                // First the home buckets' keys, read independently of one another.
                var touched: Int64 = 0
                withUnsafeMutableBytes(of: &homes) { raw in
                    let homes = raw.bindMemory(to: Int.self)
                    for row in start ..< end {
                        let home = bucket(of: keys[row])
                        homes[row - start] = home
                        touched &+= base[home].key
                    }
                    for row in start ..< end {
                        let key = keys[row]
                        var index = homes[row - start]
                        var found: Int32 = -1
                        while true {
                            let bucket = base[index]
                            if bucket.slot < 0 { break }
                            if bucket.key == key {
                                found = bucket.slot
                                break
                            }
                            index = (index + 1) & mask
                        }
                        slots[row] = found
                    }
                }
                // (Kept alive so the first loop's reads are not dropped as dead.)
                if touched == 0x5A5A_5A5A_5A5A_5A5A { slots[start] = slots[start] }
                start = end
            }
        }
    }

    /// Stores `slot` under `key`, which must not be present.
    mutating func insert(_ key: Int64, slot: Int32) {
        if (count + 1) * 2 > buckets.count { grow() }
        let mask = buckets.count - 1
        var index = bucket(of: key)
        while buckets[index].slot >= 0 { index = (index + 1) & mask }
        buckets[index] = Bucket(key: key, slot: slot)
        count += 1
    }

    /// Removes `key`, if present, moving later entries of its probe run back so that no lookup
    /// stops early at the hole.
    mutating func remove(_ key: Int64) {
        let mask = buckets.count - 1
        var index = bucket(of: key)
        while true {
            if buckets[index].slot < 0 { return }
            if buckets[index].key == key { break }
            index = (index + 1) & mask
        }
        var hole = index
        var next = (hole + 1) & mask
        while buckets[next].slot >= 0 {
            let home = bucket(of: buckets[next].key)
            // The entry at `next` may move into the hole unless its home lies cyclically in
            // (hole, next]: then the hole is before its home and a lookup would not reach it.
            let isBetween = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !isBetween {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole].slot = -1
        count -= 1
    }

    private mutating func grow() {
        let old = buckets
        self = IntegerSlotMap(capacity: old.count)
        for bucket in old where bucket.slot >= 0 {
            insert(bucket.key, slot: bucket.slot)
        }
    }
}
