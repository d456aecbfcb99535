import SluiceCore
import Testing

@testable import SluiceState

/// ``KeyBuffer/sortedOrder()`` against a comparison sort of the same keys (by bytes, then by
/// index): keys sharing their first eight bytes (a vnode, then a serial id's high bytes), which
/// go on to the runs' sort, in ascending order (left as they are), ascending with repeats and
/// with a key gone back now and then, in random order, and of different lengths.
@Suite struct KeySortTests {
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
        let expected = plain.indices.sorted { left, right in
            let order = ByteOrder.compare(plain[left], plain[right])
            return order < 0 || (order == 0 && left < right)
        }
        #expect(keys.sortedOrder().map(Int.init) == expected)
    }
}
