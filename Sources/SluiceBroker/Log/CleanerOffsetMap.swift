import SluiceCore

/// The log cleaner's map from key (as a ``KeyDigest``) to the offset of the key's latest record
/// (Kafka's `SkimpyOffsetMap`): an open-addressing table with linear probing, each slot three
/// words (the digest and the offset), 24 bytes.
///
/// The table starts small and doubles as keys arrive, up to `maximumBytes`; at that size it
/// holds up to three quarters of its slots and then refuses new keys (``put(_:offset:)`` returns
/// false), which makes the cleaner end its pass there and take the rest of the log in the next
/// one. Its bytes are in the memory ledger (under the broker's indexes) while it holds them;
/// ``release()`` gives them back.
///
/// Not thread-safe: one cleaner uses it, one pass at a time.
final class CleanerOffsetMap {
    /// Words per slot: the digest's two words, then the offset (`UInt64.max` in an empty slot).
    private static let slotWords = 3
    private static let slotBytes = slotWords * MemoryLayout<UInt64>.stride
    private static let initialSlots = 1024
    private static let empty = UInt64.max

    /// The most slots the table may have: a power of two.
    let maximumSlots: Int
    private var slots: UnsafeMutablePointer<UInt64>?
    private var slotCount = 0
    /// Keys held.
    private(set) var count = 0
    private var hasher = SipHash128()
    private let memory = MemoryShare(.brokerIndexes)

    /// A map that takes at most `maximumBytes` (but never fewer than 1,024 slots).
    init(maximumBytes: Int) {
        var slots = Self.initialSlots
        while slots * 2 * Self.slotBytes <= maximumBytes { slots *= 2 }
        maximumSlots = slots
    }

    deinit {
        slots?.deallocate()
    }

    /// The most keys the map can hold at its largest.
    var capacity: Int { maximumSlots / 4 * 3 }

    /// The bytes the table takes now.
    var bytes: Int { slotCount * Self.slotBytes }

    /// The digest of `key` under this map's secret.
    func digest(_ key: UnsafeRawBufferPointer) -> KeyDigest {
        hasher.digest(key)
    }

    /// Records that `digest`'s latest record is at `offset` (offsets arrive in increasing order,
    /// so a later one replaces an earlier). Returns false, changing nothing, when the key is new
    /// and the map is full.
    /// - Complexity: O(1) expected; a doubling rehashes every key.
    func put(_ digest: KeyDigest, offset: Int64) -> Bool {
        if slotCount == 0 { allocate(Self.initialSlots) }
        var slot = find(digest)
        if slots![slot * Self.slotWords + 2] != Self.empty {
            slots![slot * Self.slotWords + 2] = UInt64(offset)
            return true
        }
        if (count + 1) * 4 > slotCount * 3 {
            guard slotCount < maximumSlots else { return false }
            grow()
            slot = find(digest)
        }
        let base = slot * Self.slotWords
        slots![base] = digest.first
        slots![base + 1] = digest.second
        slots![base + 2] = UInt64(offset)
        count += 1
        return true
    }

    /// The offset of `digest`'s latest record, nil if the map does not hold the key.
    func offset(of digest: KeyDigest) -> Int64? {
        guard count > 0 else { return nil }
        let word = slots![find(digest) * Self.slotWords + 2]
        return word == Self.empty ? nil : Int64(word)
    }

    /// Forgets every key, keeping the table (and drawing a new secret).
    func clear() {
        if let slots { slots.update(repeating: Self.empty, count: slotCount * Self.slotWords) }
        count = 0
        hasher = SipHash128()
    }

    /// Forgets every key and frees the table.
    func release() {
        slots?.deallocate()
        slots = nil
        slotCount = 0
        count = 0
        memory.set(0)
        hasher = SipHash128()
    }

    /// The slot holding `digest`, or the empty slot where it would go.
    private func find(_ digest: KeyDigest) -> Int {
        let mask = slotCount - 1
        var slot = Int(truncatingIfNeeded: digest.first) & mask
        while true {
            let base = slot * Self.slotWords
            if slots![base + 2] == Self.empty || (slots![base] == digest.first && slots![base + 1] == digest.second) {
                return slot
            }
            slot = (slot + 1) & mask
        }
    }

    private func allocate(_ count: Int) {
        let storage = UnsafeMutablePointer<UInt64>.allocate(capacity: count * Self.slotWords)
        storage.initialize(repeating: Self.empty, count: count * Self.slotWords)
        slots = storage
        slotCount = count
        memory.set(bytes)
    }

    /// Doubles the table, reinserting every key.
    private func grow() {
        let old = slots!
        let oldCount = slotCount
        allocate(oldCount * 2)
        for index in 0 ..< oldCount {
            let base = index * Self.slotWords
            guard old[base + 2] != Self.empty else { continue }
            let digest = KeyDigest(first: old[base], second: old[base + 1])
            let target = find(digest) * Self.slotWords
            slots![target] = digest.first
            slots![target + 1] = digest.second
            slots![target + 2] = old[base + 2]
        }
        old.deallocate()
    }
}
