import SluiceCore
import Testing

@testable import SluiceState

@Suite struct StagedKeyIndexTests {
    /// Random keys of 0 to 20 bytes from a small alphabet (so many repeat and many share
    /// prefixes), set, looked up and cleared against a dictionary.
    @Test func agreesWithADictionary() {
        var random = SplitMix64(seed: 3)
        var index = StagedKeyIndex()
        var reference: [[UInt8]: StagedKeyIndex.Value] = [:]
        for round in 0 ..< 4 {
            for step in 0 ..< 20_000 {
                let key = (0 ..< random.next(below: 21)).map { _ in UInt8(random.next(below: 3)) }
                let hash = key.withUnsafeBytes { StagedKeyIndex.hash($0) }
                if random.next(below: 2) == 0 {
                    let value = (chunk: Int32(step % 7) - 1, row: Int32(step))
                    key.withUnsafeBytes { index.set(value, for: $0, hash: hash) }
                    reference[key] = value
                }
                let found = key.withUnsafeBytes { index.value(for: $0, hash: hash) }
                #expect(found?.chunk == reference[key]?.chunk && found?.row == reference[key]?.row)
            }
            #expect(index.count == reference.count)
            if round % 2 == 0 {
                index.removeAll()
                reference.removeAll()
                #expect(index.count == 0)
                let key: [UInt8] = [1, 2]
                #expect(key.withUnsafeBytes { index.value(for: $0, hash: StagedKeyIndex.hash($0)) } == nil)
            }
        }
    }

    /// Keys as tables make them (two vnode bytes, then the key) set mostly in ascending order
    /// within their vnode, as bulk loads of serial ids do, so most go past their vnode's greatest
    /// key without the slots; now and then a key goes back (a repeat, or one between) or has no
    /// vnode below 256, which puts the appended keys in the slots. Every lookup, of keys held,
    /// past the greatest and between, agrees with a dictionary.
    @Test func ascendingKeysPerVnodeAgreeWithADictionary() {
        var random = SplitMix64(seed: 11)
        var index = StagedKeyIndex()
        var reference: [[UInt8]: StagedKeyIndex.Value] = [:]
        func makeKey(vnode: Int, _ value: Int) -> [UInt8] {
            [UInt8(vnode >> 8), UInt8(vnode & 0xFF)] + withUnsafeBytes(of: UInt64(value).bigEndian) { Array($0) }
        }
        func check(_ key: [UInt8]) {
            let found = key.withUnsafeBytes { index.value(for: $0, hash: StagedKeyIndex.hash($0)) }
            #expect(found?.chunk == reference[key]?.chunk && found?.row == reference[key]?.row)
        }
        for round in 0 ..< 6 {
            var next = [Int](repeating: 0, count: 8)
            for step in 0 ..< 30_000 {
                let vnode = Int(random.next(below: 8)) * 31
                let slot = vnode / 31
                var value: Int
                switch random.next(below: 100) {
                case 0 ..< 90 where round % 2 == 0:
                    next[slot] += 1 + random.next(below: 3)
                    value = next[slot]
                case 0 ..< 99:
                    value = random.next(below: next[slot] + 2)
                default:
                    value = next[slot] + 1
                }
                let vnodeOrWide = random.next(below: 500) == 0 ? 300 + vnode : vnode
                let key = makeKey(vnode: vnodeOrWide, value)
                let stored = (chunk: Int32(step % 5) - 1, row: Int32(step))
                if random.next(below: 4) != 0 {
                    key.withUnsafeBytes { index.set(stored, for: $0, hash: StagedKeyIndex.hash($0)) }
                    reference[key] = stored
                }
                check(key)
                check(makeKey(vnode: vnode, value + 1))
                check(makeKey(vnode: vnode, random.next(below: next[slot] + 5)))
            }
            #expect(index.count == reference.count)
            for key in reference.keys { check(key) }
            if round % 3 != 2 {
                index.removeAll()
                reference.removeAll()
                #expect(index.count == 0)
                check(makeKey(vnode: 0, 1))
            }
        }
    }

    @Test func hashesDependOnEveryByteAndTheLength() {
        let keys: [[UInt8]] = [[], [0], [0, 0], [1], Array(0 ..< 8), Array(0 ..< 9), Array(1 ..< 9) + [0], [9] + Array(1 ..< 9)]
        let hashes = keys.map { $0.withUnsafeBytes { StagedKeyIndex.hash($0) } }
        #expect(Set(hashes).count == keys.count)
    }
}
