import SluiceCore
import Testing

@testable import SluiceState

/// ``KeyBuffer/sortedOrder()`` against a stable comparison sort of the keys as byte arrays
/// (a proper prefix first), over keys chosen to defeat the eight-byte radix prefix: short keys,
/// keys that differ only after the eighth byte, zero bytes that pad like a shorter key's
/// padding, duplicates, and prefixes shared by every key (passes that are skipped).
@Suite struct KeySortTests {
    static func buffer(_ keys: [[UInt8]]) -> KeyBuffer {
        var buffer = KeyBuffer()
        for key in keys { buffer.append(key) }
        return buffer
    }

    /// The oracle: the indexes of `keys` by a stable comparison sort of the keys as byte arrays.
    static func stableOrder(_ keys: [[UInt8]]) -> [Int] {
        keys.indices.sorted { left, right in
            keys[left].lexicographicallyPrecedes(keys[right]) || (keys[left] == keys[right] && left < right)
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func agreesWithAStableComparisonSort(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let sharedHead: [UInt8] = seed % 2 == 0 ? [0x80, 0x01, 0x00] : []
        var keys: [[UInt8]] = []
        for _ in 0 ..< 3_000 {
            let length = Int(random.next() % 14)
            var key = sharedHead
            for _ in 0 ..< length {
                // Few byte values, so keys collide and tie often.
                key.append([0x00, 0x01, 0x7F, 0xFF][Int(random.next() % 4)])
            }
            keys.append(key)
            if random.next() % 5 == 0 { keys.append(key) }
        }
        #expect(Self.buffer(keys).sortedOrder().map(Int.init) == Self.stableOrder(keys))
        #expect(KeyBuffer().sortedOrder().isEmpty)
    }
}

extension KeySortTests {
    /// Ascending keys are told apart from keys with a repeat or a step back anywhere, including
    /// a proper prefix after its extension.
    @Test func strictlyAscendingKeys() {
        let buffer = Self.buffer
        #expect(buffer([]).isStrictlyAscending)
        #expect(buffer([[5]]).isStrictlyAscending)
        #expect(buffer([[], [0], [0, 0], [0, 1], [1]]).isStrictlyAscending)
        #expect(!buffer([[0], [0, 1], [0, 1]]).isStrictlyAscending)
        #expect(!buffer([[0, 1], [0]]).isStrictlyAscending)
        #expect(!buffer([[1], [2], [3], [2]]).isStrictlyAscending)
    }
}

extension KeySortTests {
    /// Gathering keys by a shuffled subset of their indexes gives those keys, in that order, for
    /// empty keys, short keys (copied a byte at a time) and long ones (copied in one move).
    @Test func gatheredKeysAreTheNamedOnesInOrder() {
        var random = SplitMix64(seed: 7)
        var keys: [[UInt8]] = []
        for _ in 0 ..< 2_000 {
            let length = [0, 1, 11, 16, 17, 40][Int(random.next() % 6)]
            keys.append((0 ..< length).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        }
        let buffer = Self.buffer(keys)
        var order = keys.indices.filter { _ in random.next() % 3 != 0 }.map(Int32.init)
        for index in order.indices.reversed() { order.swapAt(index, Int(random.next() % UInt64(index + 1))) }
        let gathered = buffer.gathered(order)
        #expect(gathered.count == order.count)
        #expect((0 ..< gathered.count).map { gathered.key($0) } == order.map { keys[Int($0)] })
        #expect(buffer.gathered([]).isEmpty)
    }
}

extension KeySortTests {
    /// Runs longer than the comparison sort's cutoff that tie in their first eight bytes, and
    /// again in the next eight, are ordered like a stable comparison sort: a group's entries
    /// under one long group key, with zero bytes and keys that end where others go on.
    @Test(arguments: [UInt64(11), 12, 13])
    func longRunsThatTiePastEightBytesAgreeWithAComparisonSort(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let heads: [[UInt8]] = [[0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90], [0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80]]
        var keys: [[UInt8]] = []
        for _ in 0 ..< 4_000 {
            var key = heads[Int(random.next() % 2)]
            if random.next() % 3 == 0 { key += [0, 0, 0, 0, 0, 0, 0, 0] }
            for _ in 0 ..< Int(random.next() % 12) { key.append([0x00, 0x01, 0xFF][Int(random.next() % 3)]) }
            keys.append(key)
            if random.next() % 7 == 0 { keys.append(key) }
        }
        #expect(Self.buffer(keys).sortedOrder().map(Int.init) == Self.stableOrder(keys))
    }
}

extension KeySortTests {
    /// Keys sharing their first eight bytes (a vnode, then a serial id's high bytes), which go
    /// on to the runs' radix sort: in ascending order (a run already in order is left as it is),
    /// ascending with repeats, with a key gone back now and then, in random order, and of
    /// different lengths.
    @Test(arguments: ["ascending", "repeats", "some back", "random", "lengths"])
    func sortedOrderAgreesWithAComparisonSort(shape: String) {
        var random = SplitMix64(seed: 5)
        var keys = KeyBuffer()
        var plain: [[UInt8]] = []
        var next = 0
        for _ in 0 ..< 5000 {
            let vnode = random.next(below: 3)
            var value: Int
            switch shape {
            case "ascending": next += 1 + random.next(below: 3); value = next
            case "repeats": next += random.next(below: 2); value = next
            case "some back": next += 1; value = random.next(below: 50) == 0 ? random.next(below: next) : next
            default: value = random.next(below: 100_000)
            }
            var key: [UInt8] = [0, UInt8(vnode), 1, 0, 0, 0, 0, 0]
            key += withUnsafeBytes(of: UInt64(value).bigEndian) { Array($0) }
            if shape == "lengths" { key += [UInt8](repeating: 7, count: random.next(below: 3)) }
            keys.append(key)
            plain.append(key)
        }
        #expect(keys.sortedOrder().map(Int.init) == Self.stableOrder(plain))
    }

    /// Keys that arrive ascending within each vnode (interleaved across vnodes, of varying
    /// lengths) are ordered by the counting sort as the comparison sort orders them; keys that
    /// repeat or go back within a vnode are not taken by it.
    @Test(arguments: [UInt64(21), 22, 23])
    func keysAscendingPerVnodeAreOrderedAsAComparisonSortOrdersThem(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var nextPerVnode = [UInt64](repeating: 0, count: 300)
        var plain: [[UInt8]] = []
        for _ in 0 ..< 5000 {
            let vnode = Int.random(in: 0 ..< 300, using: &generator)
            nextPerVnode[vnode] += UInt64.random(in: 1 ... 70_000, using: &generator)
            var key: [UInt8] = [UInt8(vnode >> 8), UInt8(vnode & 0xFF)]
            withUnsafeBytes(of: nextPerVnode[vnode].bigEndian) { key += $0 }
            if Bool.random(using: &generator) { key += [UInt8.random(in: 0 ... 255, using: &generator)] }
            plain.append(key)
        }
        let order = Self.buffer(plain).orderIfAscendingPerVnode()
        #expect(order?.map(Int.init) == Self.stableOrder(plain))
        var repeated = plain
        repeated.append(plain[17])
        #expect(Self.buffer(repeated).orderIfAscendingPerVnode() == nil)
        var back = plain
        back.append([plain[0][0], plain[0][1]])
        #expect(Self.buffer(back).orderIfAscendingPerVnode() == nil)
        #expect(Self.buffer([[1]]).orderIfAscendingPerVnode() == nil)
    }
}
