import SluiceCore
import Testing

/// Key ids against a dictionary of the keys' values: the same key always has the same id, ids
/// are dense in order of first sight, and nulls, empty strings and multi-column keys are told
/// apart.
@Suite struct KeyInternerTests {
    @Test func idsMatchADictionaryOfTheKeys() {
        var interner = KeyInterner()
        var model: [[Value]: Int] = [:]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        for round in 0..<2 {
            for _ in 0..<20 {
                var numbers: [Value] = []
                var texts: [Value] = []
                for _ in 0..<500 {
                    let number = next() % 1_000
                    numbers.append(number == 0 ? .null : .int64(Int64(number)))
                    let text = next() % 7
                    texts.append(text == 0 ? .null : .string(String(repeating: "x", count: Int(text) - 1)))
                }
                let chunk = Chunk(columns: [Column(type: .int64, values: numbers), Column(type: .varchar, values: texts)], count: numbers.count)
                for row in 0..<chunk.count {
                    let key = [numbers[row], texts[row]]
                    let expected = model[key]
                    let (id, inserted) = interner.intern(chunk, row: row, columns: [0, 1])
                    #expect(inserted == (expected == nil))
                    if let expected { #expect(id == expected) } else {
                        #expect(id == model.count)
                        model[key] = id
                    }
                }
            }
            #expect(interner.count == model.count)
            #expect(interner.count > 1_000, "round \(round): enough keys to grow the table several times")
            interner.removeAll()
            model = [:]
            #expect(interner.count == 0)
        }
    }
}
