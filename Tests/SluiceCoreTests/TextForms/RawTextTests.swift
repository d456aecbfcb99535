import Testing

@testable import SluiceCore

/// The raw-memory writers against the array ones (separate code) over edge and random values.
struct RawTextTests {
    private func raw(room: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) -> [UInt8] {
        var out: [UInt8] = []
        RawText.append(to: &out, room: room, write)
        return out
    }

    @Test func decimalsAreWhatDecimalTextWrites() {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 101, 999, 1000, Int64.max, Int64.min, Int64.min + 1, 1_000_000_000_000_000_000, 999_999_999_999_999_999]
        var generator = SystemRandomNumberGenerator()
        for _ in 0 ..< 2000 { values.append(Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0 ... 62, using: &generator)) }
        for value in values {
            var expected: [UInt8] = []
            DecimalText.append(value, to: &expected)
            #expect(raw(room: RawText.maximumDecimalLength) { RawText.writeDecimal(value, to: $0) } == expected, "\(value)")
            #expect(String(decoding: expected, as: UTF8.self) == String(value))
        }
    }

    @Test func quotedJSONIsWhatJSONTextWrites() {
        var texts: [[UInt8]] = [[], Array("plain".utf8), Array("a\"b\\c".utf8), Array(0 ..< 0x20), Array("é and \u{1F600}".utf8), [0x7F, 0x22, 0x5C, 0x0A]]
        var generator = SystemRandomNumberGenerator()
        for _ in 0 ..< 500 { texts.append((0 ..< Int.random(in: 0 ... 40, using: &generator)).map { _ in UInt8.random(in: 0 ... 0x7F, using: &generator) }) }
        for text in texts {
            var expected: [UInt8] = []
            text.withUnsafeBytes { JSONText.appendQuoted($0, to: &expected) }
            let written = text.withUnsafeBytes { bytes in raw(room: RawText.maximumQuotedJSONLength(bytes.count)) { RawText.writeQuotedJSON(bytes, to: $0) } }
            #expect(written == expected, "\(text)")
        }
    }
}
