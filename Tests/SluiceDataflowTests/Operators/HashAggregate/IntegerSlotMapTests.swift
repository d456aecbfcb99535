import SluiceCore
import Testing

@testable import SluiceDataflow

@Suite struct IntegerSlotMapTests {
    /// Inserts, lookups and removals against a Dictionary, over a key range small enough that probe
    /// runs collide and wrap, and large enough to grow the table several times.
    @Test(arguments: [UInt64(1), 2, 3])
    func agreesWithADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var map = IntegerSlotMap()
        var model: [Int64: Int32] = [:]
        for step in 0 ..< 200_000 {
            let key = Int64(bitPattern: random.next() % 5_000) - 2_500
            if let slot = model[key] {
                #expect(map.slot(for: key) == slot)
                if random.next() % 3 == 0 {
                    map.remove(key)
                    model[key] = nil
                    #expect(map.slot(for: key) == nil)
                }
            } else {
                #expect(map.slot(for: key) == nil)
                map.insert(key, slot: Int32(step))
                model[key] = Int32(step)
            }
        }
        #expect(map.count == model.count)
        for (key, slot) in model { #expect(map.slot(for: key) == slot) }
        // The batch lookup, over present and absent keys and a length that is not a whole number
        // of its batches, agrees with the model.
        let probes = (0 ..< 1_037).map { _ in Int64(bitPattern: random.next() % 6_000) - 3_000 }
        var found = [Int32](repeating: 7, count: probes.count)
        probes.withUnsafeBufferPointer { keys in found.withUnsafeMutableBufferPointer { map.slots(for: keys, into: $0) } }
        #expect(found == probes.map { model[$0] ?? -1 })
        #expect(found.contains(-1) && found.contains { $0 >= 0 })
        // Keys that share a bucket's high bits: extremes and multiples of a power of two.
        var extremes = IntegerSlotMap()
        let awkward: [Int64] = [.min, .max, 0, -1, 1 << 40, 2 << 40, 3 << 40, 1 << 62]
        for (index, key) in awkward.enumerated() { extremes.insert(key, slot: Int32(index)) }
        extremes.remove(0)
        for (index, key) in awkward.enumerated() where key != 0 { #expect(extremes.slot(for: key) == Int32(index)) }
    }
}
