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

    @Test func hashesDependOnEveryByteAndTheLength() {
        let keys: [[UInt8]] = [[], [0], [0, 0], [1], Array(0 ..< 8), Array(0 ..< 9), Array(1 ..< 9) + [0], [9] + Array(1 ..< 9)]
        let hashes = keys.map { $0.withUnsafeBytes { StagedKeyIndex.hash($0) } }
        #expect(Set(hashes).count == keys.count)
    }
}
