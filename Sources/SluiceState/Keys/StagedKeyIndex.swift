#if canImport(Glibc)
import Glibc
#endif
import SluiceCore

/// The keys a ``TableStore`` staged and has not committed, each with a value (where its latest
/// staged row is): an open-addressing hash table over one flat key buffer.
///
/// What a bulk load looks every row up in, and adds every row to: a key is copied once into the
/// buffer, nothing is allocated per key, and each key is hashed once by the caller
/// (``hash(_:)``, eight bytes at a time, not SipHash). A slot holds the
/// entry and 32 bits of its hash, so a lookup of a key not held (most of a bulk load's) reads
/// the slots alone, in one or two cache lines. ``removeAll()`` keeps the capacity and frees
/// nothing per key. Not `Sendable`: one owner, under its lock.
///
/// Keys set in ascending order within their vnode (serial ids, times: most bulk loads) are not
/// put in the slots at all while that lasts: each vnode's greatest key is kept, a key past it is
/// known new (to set) or absent (to look up) from one comparison, and such keys are only
/// appended. The first key that is not past its vnode's greatest puts the appended ones in the
/// slots (``catchUp()``), and from then on they are found as any other.
///
/// - Complexity: ``value(for:hash:)`` and ``set(_:for:hash:)`` O(key length) expected;
///   memory 16 bytes a key plus its bytes, and 8 bytes a slot (at most twice the keys, rounded
///   up to a power of two).
struct StagedKeyIndex {
    /// A staged key's value: a chunk of the staged rows and a row there, or chunk -1 for a key
    /// whose latest change removed it.
    typealias Value = (chunk: Int32, row: Int32)

    /// Each key once, in the order first set.
    private var keys = KeyBuffer()
    private var hashes: [UInt64] = []
    private var values: [Value] = []
    /// Per slot: the high 32 bits of the entry's hash, then its index plus one; 0 for an empty
    /// slot. A power of two long, at most half full.
    private var slots: [UInt64] = []
    /// The entries in the slots: those before this one. Every later entry's key was past the
    /// greatest key of its vnode when set.
    private var indexed = 0
    /// Per vnode (a key's first two bytes, below ``VirtualNode/count``), the entry of its
    /// greatest key, or -1 when it has none: every key of the vnode held sorts at or before it.
    private var greatest = [Int32](repeating: -1, count: VirtualNode.count)

    /// The keys held.
    var count: Int { values.count }

    /// A hash of `key`'s bytes for this index (``KeyHashing/bytes(_:)``: the same bytes always
    /// give the same hash).
    @inline(__always)
    static func hash(_ key: UnsafeRawBufferPointer) -> UInt64 { KeyHashing.bytes(key) }

    /// The value under `key` (whose ``hash(_:)`` is `hash`), or nil.
    mutating func value(for key: UnsafeRawBufferPointer, hash: UInt64) -> Value? {
        if let vnode = Self.vnode(of: key), isPastGreatest(key, vnode: vnode) { return nil }
        catchUp()
        guard !slots.isEmpty else { return nil }
        let entry = find(key, hash: hash).entry
        return entry < 0 ? nil : values[Int(entry)]
    }

    /// Sets the value under `key` (whose ``hash(_:)`` is `hash`), adding the key if new.
    mutating func set(_ value: Value, for key: UnsafeRawBufferPointer, hash: UInt64) {
        if let vnode = Self.vnode(of: key), isPastGreatest(key, vnode: vnode) {
            // A new key, the vnode's greatest now: appended, put in the slots only if needed.
            greatest[vnode] = Int32(values.count)
            keys.append(key)
            hashes.append(hash)
            values.append(value)
            return
        }
        catchUp()
        if (values.count + 1) * 2 > slots.count { grow(toHold: values.count + 1) }
        let (entry, slot) = find(key, hash: hash)
        if entry >= 0 {
            values[Int(entry)] = value
            return
        }
        slots[slot] = Self.slot(hash: hash, entry: values.count)
        keys.append(key)
        hashes.append(hash)
        values.append(value)
        indexed = values.count
    }

    /// Forgets every key, keeping the memory for the next ones.
    mutating func removeAll() {
        guard !values.isEmpty else { return }
        keys = KeyBuffer(reservingKeys: values.count, bytes: keys.bytes.count)
        hashes.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        if indexed > 0 {
            for index in slots.indices { slots[index] = 0 }
        }
        indexed = 0
        for index in greatest.indices { greatest[index] = -1 }
    }

    /// The vnode a key begins with, when it has one below ``VirtualNode/count``.
    @inline(__always)
    private static func vnode(of key: UnsafeRawBufferPointer) -> Int? {
        guard key.count >= 2 else { return nil }
        let vnode = Int(key[0]) << 8 | Int(key[1])
        return vnode < VirtualNode.count ? vnode : nil
    }

    /// Whether `key` sorts after every key of `vnode` held (true when the vnode has none).
    @inline(__always)
    private func isPastGreatest(_ key: UnsafeRawBufferPointer, vnode: Int) -> Bool {
        let entry = Int(greatest[vnode])
        guard entry >= 0 else { return true }
        let start = keys.start(entry)
        return keys.bytes.withUnsafeBufferPointer { bytes in
            KeyBuffer.compare(
                key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count, bytes.baseAddress! + start, Int(keys.ends[entry]) - start) > 0
        }
    }

    /// Puts the appended entries (each a key not held before it) in the slots.
    private mutating func catchUp() {
        guard indexed < values.count else { return }
        if values.count * 2 > slots.count { grow(toHold: values.count) }
        let mask = slots.count - 1
        for entry in indexed ..< values.count {
            var slot = Int(truncatingIfNeeded: hashes[entry]) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Self.slot(hash: hashes[entry], entry: entry)
        }
        indexed = values.count
    }

    @inline(__always)
    private static func slot(hash: UInt64, entry: Int) -> UInt64 {
        (hash & 0xFFFF_FFFF_0000_0000) | UInt64(entry + 1)
    }

    /// The entry holding `key` (-1 when none) and the slot where it is or would go.
    @inline(__always)
    private func find(_ key: UnsafeRawBufferPointer, hash: UInt64) -> (entry: Int32, slot: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        let tag = hash & 0xFFFF_FFFF_0000_0000
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let content = slots[slot]
                if content == 0 { return (-1, slot) }
                if content & 0xFFFF_FFFF_0000_0000 == tag {
                    let entry = Int(truncatingIfNeeded: content & 0xFFFF_FFFF) - 1
                    if hashes[entry] == hash && equals(entry, key) { return (Int32(entry), slot) }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    /// Whether entry `entry`'s key is `key`.
    private func equals(_ entry: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        let start = keys.start(entry)
        guard Int(keys.ends[entry]) - start == key.count else { return false }
        guard key.count > 0 else { return true }
        return keys.bytes.withUnsafeBytes { memcmp($0.baseAddress! + start, key.baseAddress!, key.count) == 0 }
    }

    /// Doubles the slots (at least 1,024) until they hold `count` entries at most half full, and
    /// puts every entry in them back by its kept hash.
    private mutating func grow(toHold count: Int) {
        var capacity = max(1024, slots.count * 2)
        while count * 2 > capacity { capacity *= 2 }
        slots = [UInt64](repeating: 0, count: capacity)
        let mask = capacity - 1
        for entry in 0 ..< indexed {
            var slot = Int(truncatingIfNeeded: hashes[entry]) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Self.slot(hash: hashes[entry], entry: entry)
        }
    }
}
