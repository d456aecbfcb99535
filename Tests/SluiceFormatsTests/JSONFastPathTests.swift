import Testing
import SluiceCore
@testable import SluiceFormats

/// Decodes `messages` one after another with one decoder, so key predictions and the date
/// cache carry over from message to message; returns each message's row or error.
func decodeStream(_ messages: [String], columns: [(name: String, type: DataType)]) -> [Result<[Value], JSONDecodeError>] {
    var decoder = JSONRowDecoder(columns: columns)
    var builders = decoder.makeBuilders()
    var results: [Result<[Value], JSONDecodeError>] = []
    for message in messages {
        var bytes = Array(message.utf8)
        let before = builders.first?.count ?? 0
        let outcome: Result<Void, JSONDecodeError> = bytes.withUnsafeMutableBytes { buffer in
            do throws(JSONDecodeError) {
                try decoder.decodeRow(UnsafeRawBufferPointer(buffer), into: &builders)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success:
            let columns = builders.map { $0.finish() }
            results.append(.success(columns.map { $0.value(at: before) }))
        case .failure(let error):
            precondition(builders.allSatisfy { $0.count == before }, "a failed row left values behind")
            results.append(.failure(error))
        }
    }
    return results
}

/// The fast paths (predicted keys, plain strings, short integers, booleans, common
/// timestamps) against the general paths they shortcut: a decoder that has seen earlier
/// messages must give exactly what a fresh one gives.
@Suite("JSON row decoder: fast paths")
struct JSONFastPathTests {
    /// Every message decoded by one long-lived decoder equals the same message decoded by a
    /// fresh decoder (whose predictions are all empty).
    func expectStreamMatchesFreshDecoders(_ messages: [String], columns: [(name: String, type: DataType)], sourceLocation: SourceLocation = #_sourceLocation) {
        let streamed = decodeStream(messages, columns: columns)
        for (index, message) in messages.enumerated() {
            let fresh = decodeOne(message, columns: columns)
            #expect(streamed[index] == fresh, "message \(index): \(message)", sourceLocation: sourceLocation)
        }
    }

    @Test func keysInADifferentOrderThanThePreviousDocument() {
        let columns: [(name: String, type: DataType)] = [("a", .int32), ("b", .varchar), ("c", .boolean)]
        let messages = [#"{"a": 1, "b": "x", "c": true}"#, #"{"b": "y", "a": 2, "c": false}"#, #"{"c": true}"#,
                        #"{"c": false, "b": "z", "a": 3}"#, #"{"a": 4, "b": "w", "c": true}"#, #"{"x": 1, "a": 5}"#, "{}"]
        let results = decodeStream(messages, columns: columns)
        #expect(results.map(\.value) == [
            [.int32(1), .string("x"), .bool(true)], [.int32(2), .string("y"), .bool(false)], [.null, .null, .bool(true)],
            [.int32(3), .string("z"), .bool(false)], [.int32(4), .string("w"), .bool(true)], [.int32(5), .null, .null],
            [.null, .null, .null],
        ])
        expectStreamMatchesFreshDecoders(messages, columns: columns)
    }

    @Test func aKeyThatIsAPrefixOfAnother() {
        let columns: [(name: String, type: DataType)] = [("ab", .int32), ("abc", .int32), ("identifier", .int32), ("identifier_long", .int32)]
        let messages = [#"{"ab": 1, "abc": 2, "identifier": 3, "identifier_long": 4}"#,
                        #"{"abc": 5, "ab": 6, "identifier_long": 7, "identifier": 8}"#,
                        #"{"a": 9, "abcd": 10, "identifie": 11, "identifier_lon": 12}"#,
                        #"{"ab": 13, "abc": 14, "identifier": 15, "identifier_long": 16}"#,
                        #"{"ab":17,"abc":18}"#, #"{"ab":19}"#, #"{"abc":20}"#]
        let results = decodeStream(messages, columns: columns)
        #expect(results[1].value == [.int32(6), .int32(5), .int32(8), .int32(7)])
        #expect(results[2].value == [.null, .null, .null, .null])
        #expect(results[5].value == [.int32(19), .null, .null, .null])
        #expect(results[6].value == [.null, .int32(20), .null, .null])
        expectStreamMatchesFreshDecoders(messages, columns: columns)
    }

    @Test func predictedKeysKeepTheCaseAndDuplicateRules() {
        let columns: [(name: String, type: DataType)] = [("Name", .varchar), ("n", .int64)]
        let messages = [#"{"Name": "a", "n": 1}"#, #"{"name": "b", "n": 2}"#, #"{"Name": "c", "NAME": "d"}"#,
                        #"{"NAME": "e", "Name": "f"}"#, #"{"Name": "g", "Name": "h", "n": 3, "n": 4}"#,
                        #"{"N\u0061me": "i", "\u006e": 5}"#, #"{"Name": "j", "n": 6}"#, #"{"name": "k", "NAME": "l"}"#]
        let results = decodeStream(messages, columns: columns)
        #expect(results.map { $0.value?[0] } == [.string("a"), .string("b"), .string("c"), .string("f"), .string("h"), .string("i"), .string("j"), .string("k")])
        #expect(results[4].value?[1] == .int64(4))
        #expect(results[5].value?[1] == .int64(5))
        expectStreamMatchesFreshDecoders(messages, columns: columns)
    }

    @Test func namesThatCannotBePredictedStillMatch() {
        // A quote or backslash in a column name only appears escaped in a key.
        let columns: [(name: String, type: DataType)] = [("a\"b", .int32), ("c\\d", .int32), ("", .int32), ("é€😀x", .int32)]
        let messages = [#"{"a\"b": 1, "c\\d": 2, "": 3, "é€😀x": 4}"#, #"{"a\"b": 5, "c\\d": 6, "": 7, "é€😀x": 8}"#,
                        #"{"": 9, "é€😀x": 10}"#, #"{"\u00e9€😀x": 11, "": 12}"#]
        let results = decodeStream(messages, columns: columns)
        #expect(results[1].value == [.int32(5), .int32(6), .int32(7), .int32(8)])
        #expect(results[3].value == [.null, .null, .int32(12), .int32(11)])
        expectStreamMatchesFreshDecoders(messages, columns: columns)
    }

    @Test func predictionsPerNestingLevel() {
        let inner = DataType.structure([StructField(name: "x", type: .int32), StructField(name: "xy", type: .varchar)])
        let columns: [(name: String, type: DataType)] = [("s", inner), ("l", .list(inner)), ("x", .int32)]
        let messages = [#"{"s": {"x": 1, "xy": "a"}, "l": [{"xy": "b", "x": 2}, {"x": 3}], "x": 4}"#,
                        #"{"x": 5, "l": [{"x": 6, "xy": "c"}, {"xy": "d"}], "s": {"xy": "e", "x": 7}}"#,
                        #"{"s": "{\"x\": 8, \"xy\": \"f\"}", "l": [], "x": 9}"#,
                        #"{"s": {"x": 10, "xy": "g"}, "l": [{"xy": "h", "x": 11}, {"x": 12}], "x": 13}"#]
        let results = decodeStream(messages, columns: columns)
        #expect(results[1].value?[0] == .structure([.int32(7), .string("e")]))
        #expect(results[1].value?[1] == .list([.structure([.int32(6), .string("c")]), .structure([.null, .string("d")])]))
        expectStreamMatchesFreshDecoders(messages, columns: columns)
    }

    /// Random key orders and subsets over names that prefix each other, differ in case or
    /// collide in the key table, with unknown and duplicate keys: one decoder for the whole
    /// stream must agree with a fresh decoder per message.
    @Test func randomKeyOrdersAgreeWithFreshDecoders() {
        let names = ["id", "ID", "id2", "i", "identifier", "identifier_with_a_long_name", "identifier_with_a_long_nam", "v", "V"]
        let columns = names.enumerated().map { (name: $0.element, type: $0.offset % 2 == 0 ? DataType.int64 : .varchar) }
        let keys = names + ["Id", "iD2", "unknown", "identifiers", "\\u0069d"]
        var random = SplitMix64(seed: 2024)
        var messages: [String] = []
        var order = Array(keys.indices)
        for _ in 0 ..< 400 {
            // Mostly the same order as before, as producers write; sometimes a shuffle.
            if random.next(below: 4) == 0 { order.shuffle(using: &random) }
            var members: [String] = []
            for keyIndex in order where random.next(below: 5) != 0 {
                let value = random.next(below: 2) == 0 ? "\(random.next(below: 1000))" : "\"s\(random.next(below: 1000))\""
                members.append("\"\(keys[keyIndex])\": \(value)")
            }
            messages.append("{" + members.joined(separator: random.next(below: 3) == 0 ? "," : ", ") + "}")
        }
        expectStreamMatchesFreshDecoders(messages, columns: columns)
    }

    /// Escapes, multi-byte UTF-8 and bytes that end the 8-byte scan, at every offset around
    /// two word boundaries.
    @Test func stringsWithEscapesAndUTF8AtWordBoundaries() {
        let pieces: [(json: String, text: String)] = [(#"\n"#, "\n"), (#"\""#, "\""), (#"\\"#, "\\"), (#"\u00e9"#, "é"), (#"\ud83d\ude00"#, "😀"),
                                                       ("é", "é"), ("€", "€"), ("😀", "😀"), ("\u{7F}", "\u{7F}"), ("/", "/")]
        for (json, text) in pieces {
            for prefixLength in 0 ..< 18 {
                let prefix = String(repeating: "p", count: prefixLength)
                for suffix in ["", "s", "suffix__", "suffix_is_longer"] {
                    let value = decodeValue("\"\(prefix)\(json)\(suffix)\"", as: .varchar)
                    #expect(value.value == .string(prefix + text + suffix), "\(prefixLength) \(json) \(suffix)")
                }
            }
        }
    }

    @Test func invalidUTF8AndControlBytesAtWordBoundaries() {
        let invalid: [[UInt8]] = [[0xFF], [0xC0, 0xAF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0x01], [0x1F]]
        for bytes in invalid {
            for prefixLength in 0 ..< 18 {
                for suffix in ["", "x", "xxxxxxxxx"] {
                    var message = Array(#"{"v": ""#.utf8) + Array(repeating: UInt8(ascii: "p"), count: prefixLength) + bytes
                    message += Array(suffix.utf8) + Array(#""}"#.utf8)
                    let error = decodeBytes(message, columns: [("v", .varchar)]).error
                    #expect(error?.kind == .invalidString, "\(bytes) after \(prefixLength) bytes, then \(suffix)")
                }
            }
        }
        // Cut off inside a sequence or before the closing quote.
        #expect(decodeBytes(Array(#"{"v": "abcdefgh"#.utf8) + [0xE2, 0x82], columns: [("v", .varchar)]).error?.kind == .truncated)
        #expect(decodeBytes(Array(#"{"v": "abcdefghijklmnop"#.utf8), columns: [("v", .varchar)]).error?.kind == .truncated)
    }

    @Test func shortIntegerEdges() {
        #expect(decodeValue("0", as: .int32).value == .int32(0))
        #expect(decodeValue("-0", as: .int32).value == .int32(0))
        #expect(decodeValue("2147483647", as: .int32).value == .int32(.max))
        #expect(decodeValue("-2147483648", as: .int32).value == .int32(.min))
        #expect(decodeValue("2147483648", as: .int32).error?.kind == .outOfRange)
        #expect(decodeValue("-2147483649", as: .int32).error?.kind == .outOfRange)
        #expect(decodeValue("99999999999999999", as: .int32).error?.kind == .outOfRange)  // 17 digits
        #expect(decodeValue("99999999999999999", as: .int64).value == .int64(99_999_999_999_999_999))
        #expect(decodeValue("999999999999999999", as: .int64).value == .int64(999_999_999_999_999_999))  // 18: general path
        #expect(decodeValue("-9223372036854775808", as: .int64).value == .int64(.min))
        #expect(decodeValue("9223372036854775808", as: .int64).error?.kind == .outOfRange)
        #expect(decodeValue("007", as: .int32).error?.kind == .syntax)
        #expect(decodeValue("-", as: .int32).error != nil)
        #expect(decodeValue("1.0", as: .int32).error?.kind == .typeMismatch)
        #expect(decodeValue("1e2", as: .int64).error?.kind == .typeMismatch)
        #expect(decodeValue("1E2", as: .int64).error?.kind == .typeMismatch)
        #expect(decodeValue("12x", as: .int32).error?.kind == .syntax)
        #expect(decodeValue("\"12\"", as: .int32).value == .int32(12))
        #expect(decodeOne(#"{"v":7}"#, columns: [("v", .int32)]).value == [.int32(7)])
        #expect(decodeOne(#"{"v":7"#, columns: [("v", .int32)]).error?.kind == .truncated)
    }

    @Test func booleanEdges() {
        #expect(decodeValue("true", as: .boolean).value == .bool(true))
        #expect(decodeValue("false", as: .boolean).value == .bool(false))
        #expect(decodeValue("fals", as: .boolean).error?.kind == .syntax)
        #expect(decodeValue("tru", as: .boolean).error?.kind == .syntax)
        #expect(decodeValue("truex", as: .boolean).error?.kind == .syntax)
        #expect(decodeValue("null", as: .boolean).value == .null)
        #expect(decodeValue("1", as: .boolean).error?.kind == .typeMismatch)
        #expect(decodeOne(#"{"v":true}"#, columns: [("v", .boolean)]).value == [.bool(true)])
        #expect(decodeOne(#"{"v":fal"#, columns: [("v", .boolean)]).error?.kind == .truncated)
    }

    /// The common timestamp form, checked against SluiceCore's Postgres-style parser on random
    /// and edge texts, decoded both by fresh decoders and by one decoder whose date cache
    /// carries over.
    @Test func commonTimestampsAgreeWithTheGeneralParser() {
        var texts = ["2024-05-01T12:34:56.789Z", "2024-05-01t12:34:56z", "2024-05-01 12:34:56Z", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z",
                     "2024-05-01T12:34:56.123456Z", "2024-05-01T12:34:56.1234565Z", "2024-05-01T12:34:56.Z", "2024-05-01T24:00:00Z",
                     "2024-05-01T23:59:60Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z", "2024-05-00T00:00:00Z", "0000-01-01T00:00:00Z",
                     "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "2024-05-01T12:34:56+02:00", "2024-05-01T12:34:56", "2024-05-01",
                     "2024-05-01T12:34Z", "2024-05-01X12:34:56Z", "2024/05/01T12:34:56Z", "2024-05-01T12:34:56.789ZZ", "2024-05-01T1a:34:56Z"]
        var random = SplitMix64(seed: 11)
        for _ in 0 ..< 300 {
            let digits = (0 ..< random.next(below: 8)).map { _ in String(random.next(below: 10)) }.joined()
            let fraction = digits.isEmpty ? "" : "." + digits
            let separator = ["T", "t", " "][random.next(below: 3)], zone = ["Z", "z", ""][random.next(below: 3)]
            let date = "\(padded(1 + random.next(below: 2100), 4))-\(padded(random.next(below: 14), 2))-\(padded(random.next(below: 33), 2))"
            let time = "\(padded(random.next(below: 25), 2)):\(padded(random.next(below: 61), 2)):\(padded(random.next(below: 61), 2))"
            texts.append(date + separator + time + fraction + zone)
        }
        for type in [DataType.timestamptz, .timestamp] {
            let streamed = decodeStream(texts.map { "{\"v\": \"\($0)\"}" }, columns: [("v", type)])
            for (index, text) in texts.enumerated() {
                let expected: Int64? = try? TemporalText.parseTimestamp(text, withZone: type == .timestamptz)
                let decoded = decodeValue("\"\(text)\"", as: type).value
                let expectedValue = expected.map { type == .timestamptz ? Value.timestamptz($0) : .timestamp($0) }
                #expect(decoded == expectedValue, "\(text) as \(type.sqlName)")
                #expect(streamed[index].value?[0] == expectedValue, "\(text) as \(type.sqlName), streamed")
            }
        }
    }

    @Test func theDecoderKeepsUsingPredictionsAfterAFailedMessage() {
        let columns: [(name: String, type: DataType)] = [("a", .int32), ("b", .timestamptz)]
        let messages = [#"{"a": 1, "b": "2024-05-01T00:00:00Z"}"#, #"{"a": 99999999999, "b": "2024-05-01T00:00:00Z"}"#,
                        #"{"a": 2, "b": "2024-05-01T25:00:00Z"}"#, #"{"b": "2024-05-01T00:00:01Z", "a": 3}"#, #"{"a": 4, "b": "2024-05-02T00:00:00Z"}"#]
        let results = decodeStream(messages, columns: columns)
        #expect(results[1].error?.kind == .outOfRange)
        #expect(results[2].error != nil)
        #expect(results[3].value == [.int32(3), .timestamptz(1_714_521_601_000_000)])
        expectStreamMatchesFreshDecoders(messages, columns: columns)
    }
}

/// Decodes raw bytes as one message with a fresh decoder.
func decodeBytes(_ bytes: [UInt8], columns: [(name: String, type: DataType)]) -> Result<[Value], JSONDecodeError> {
    decodeOne(bytes, columns: columns)
}

/// `value` in decimal, zero-padded to `width` digits.
private func padded(_ value: Int, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(width - digits.count, 0)) + digits
}
