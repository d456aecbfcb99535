import Testing
import SluiceCore
@testable import SluiceFormats

@Suite("JSON row decoder: documents, keys, nesting, errors")
struct JSONRowDecoderTests {
    static let balloon: [(name: String, type: DataType)] = [
        ("player", .varchar), ("balloon_color", .varchar), ("score", .int32), ("page_id", .int32),
        ("favorite_color_bonus", .boolean), ("event_ts", .timestamptz),
    ]

    // 2024-05-01T12:34:56.789Z in microseconds since 1970: Python
    // (datetime(2024,5,1,12,34,56,789000,tzinfo=timezone.utc) - epoch) // timedelta(microseconds=1).
    static let eventMicroseconds: Int64 = 1_714_566_896_789_000

    static let balloonRow: [Value] = [.string("alice"), .string("red"), .int32(42), .int32(7), .bool(true), .timestamptz(eventMicroseconds)]

    @Test func decodesSeedEvent() {
        let row = decodeOne(#"{"player": "alice", "balloon_color": "red", "score": 42, "page_id": 7, "favorite_color_bonus": true, "event_ts": "2024-05-01T12:34:56.789Z"}"#, columns: Self.balloon)
        #expect(row.value == Self.balloonRow)
    }

    @Test func fieldOrderDoesNotMatter() {
        let members = [#""player": "alice""#, #""balloon_color": "red""#, #""score": 42"#, #""page_id": 7"#,
                       #""favorite_color_bonus": true"#, #""event_ts": "2024-05-01T12:34:56.789Z""#]
        var random = SplitMix64(seed: 7)
        for _ in 0 ..< 50 {
            let shuffled = members.shuffled(using: &random)
            #expect(decodeOne("{" + shuffled.joined(separator: ",") + "}", columns: Self.balloon).value == Self.balloonRow)
        }
    }

    @Test func missingFieldsNullsAndExtraFields() {
        let row = decodeOne(#"{"score": null, "extra": {"x": [1, {"y": "z"}]}, "player": "bob", "more": 1.5e10}"#, columns: Self.balloon)
        #expect(row.value == [.string("bob"), .null, .null, .null, .null, .null])
        #expect(decodeOne("{}", columns: Self.balloon).value == Array(repeating: .null, count: 6))
    }

    @Test func keysMatchCaseInsensitivelyPreferringExact() {
        let columns: [(name: String, type: DataType)] = [("score", .int32)]
        #expect(decodeOne(#"{"SCORE": 1}"#, columns: columns).value == [.int32(1)])
        #expect(decodeOne(#"{"Score": 1, "score": 2}"#, columns: columns).value == [.int32(2)])
        #expect(decodeOne(#"{"score": 2, "Score": 1}"#, columns: columns).value == [.int32(2)])
        #expect(decodeOne(#"{"SCORE": 1, "Score": 3}"#, columns: columns).value == [.int32(1)])  // first case-insensitive key wins
        #expect(decodeOne(#"{"score": 1, "score": 4}"#, columns: columns).value == [.int32(4)])  // last exact key wins
        #expect(decodeOne(#"{"sc\u006Fre": 5}"#, columns: columns).value == [.int32(5)])  // escaped keys
        #expect(decodeOne(#"{"scores": 5, "scor": 6}"#, columns: columns).value == [.null])
        // A bad value under an ignored duplicate key is still checked as JSON.
        #expect(decodeOne(#"{"score": 1, "SCORE": [1, }"#, columns: columns).error?.kind == .syntax)
    }

    @Test func wideSchemasUseTheOverflowMarks() {
        let columns = (0 ..< 100).map { (name: "c\($0)", type: DataType.int64) }
        let text = "{" + (0 ..< 100).reversed().filter { $0 % 3 != 0 }.map { "\"C\($0)\": \($0)" }.joined(separator: ", ") + ", \"c99\": -1}"
        let row = decodeOne(text, columns: columns).value
        #expect(row?.count == 100)
        #expect(row?[99] == .int64(-1))
        #expect(row?[98] == .int64(98))
        #expect(row?[3] == .null)
        #expect(row?[70] == .int64(70))
    }

    @Test func nestedStructsAndLists() {
        let columns: [(name: String, type: DataType)] = [
            ("location", .structure([StructField(name: "lat", type: .float64), StructField(name: "lon", type: .float64),
                                     StructField(name: "tags", type: .list(.varchar))])),
            ("readings", .list(.structure([StructField(name: "k", type: .varchar), StructField(name: "v", type: .list(.int64))]))),
        ]
        let row = decodeOne(#"{"readings": [{"v": [1, 2], "K": "a"}, null, {"k": "b", "v": []}], "location": {"LON": 13.5, "lat": 52.5, "extra": 1}}"#, columns: columns)
        #expect(row.value == [
            .structure([.float64(52.5), .float64(13.5), .null]),
            .list([.structure([.string("a"), .list([.int64(1), .int64(2)])]), .null, .structure([.string("b"), .list([])])]),
        ])
        // RisingWave's StructHandling::AllowJsonString: a string holding an object.
        #expect(decodeOne(#"{"location": "{\"lat\": 1, \"tags\": [\"x\"]}"}"#, columns: columns).value
            == [.structure([.float64(1), .null, .list([.string("x")])]), .null])
        let error = decodeOne(#"{"location": {"lat": 1, "tags": ["x", 5, {}]}}"#, columns: columns).error
        #expect(error?.message == #"field "location.tags[2]": expected a string, number or boolean, found an object"#)
        #expect(decodeOne(#"{"location": [1]}"#, columns: columns).error?.kind == .typeMismatch)
        #expect(decodeOne(#"{"location": "[1]"}"#, columns: columns).error?.kind == .typeMismatch)
        #expect(decodeOne(#"{"readings": {"k": "a"}}"#, columns: columns).error?.message == #"field "readings": expected an array, found an object"#)
    }

    @Test func wholeDocumentErrors() {
        let columns: [(name: String, type: DataType)] = [("a", .int64)]
        let cases: [(String, JSONDecodeError.Kind, Int)] = [
            ("", .truncated, 0), ("   ", .truncated, 3), ("nope", .syntax, 0), (#"{"a": 1} x"#, .syntax, 9),
            (#"{"a": 1}{"#, .syntax, 8), ("[1, 2]", .notAnObject, 0), (#""text""#, .notAnObject, 0), ("42", .notAnObject, 0),
            ("null", .notAnObject, 0), (#"{"a": 1"#, .truncated, 7), (#"{"a": "#, .truncated, 6), (#"{"a" 1}"#, .syntax, 5),
            (#"{"a": 1,}"#, .syntax, 8), (#"{a: 1}"#, .syntax, 1), (#"{"a": 01}"#, .syntax, 6), (#"{"a": 1.}"#, .syntax, 6),
            (#"{"a": -}"#, .syntax, 6), (#"{"a": tru}"#, .syntax, 6), (#"{"b": "x\q"}"#, .invalidString, 8),
            (#"{"b": "abc"#, .truncated, 6), ("{\"b\": \"a\u{1}\"}", .invalidString, 8),
        ]
        for (text, kind, offset) in cases {
            let error = decodeOne(text, columns: columns).error
            #expect(error?.kind == kind, "\(text)")
            #expect(error?.offset == offset, "\(text): \(String(describing: error))")
        }
    }

    @Test func nestingLimit() {
        var decoder = JSONRowDecoder(columns: [("doc", .jsonb), ("skip", .int32)], maximumDepth: 128)
        var builders = decoder.makeBuilders()
        func decode(_ text: String) -> JSONDecodeError? {
            Array(text.utf8).withUnsafeBytes { bytes in
                do throws(JSONDecodeError) { try decoder.decodeRow(bytes, into: &builders); return nil } catch { return error }
            }
        }
        // The document's object is level 1, so 127 nested arrays fit and 128 do not.
        #expect(decode("{\"doc\": " + String(repeating: "[", count: 127) + String(repeating: "]", count: 127) + "}") == nil)
        #expect(decode("{\"doc\": " + String(repeating: "[", count: 128) + String(repeating: "]", count: 128) + "}")?.kind == .tooDeep)
        #expect(decode("{\"other\": " + String(repeating: "{\"a\":", count: 100_000) + "}")?.kind == .tooDeep)
        #expect(decode(String(repeating: "[", count: 100_000))?.kind == .tooDeep)
        #expect(builders[0].count == 1)
    }

    @Test func errorMessagesNameTheFieldAndOffset() {
        let error = decodeOne(#"{"player": "x", "score": 3000000000}"#, columns: Self.balloon).error
        #expect(error?.message == #"field "score": 3000000000 is out of range for integer"#)
        #expect(error?.offset == 25)
        #expect(error?.description == #"field "score": 3000000000 is out of range for integer (at byte 25)"#)
        #expect(decodeOne(#"{"score": 1.5}"#, columns: Self.balloon).error?.message == #"field "score": 1.5 is not an integer"#)
        #expect(decodeOne(#"{"favorite_color_bonus": 1}"#, columns: Self.balloon).error?.message
            == #"field "favorite_color_bonus": expected boolean, found a number"#)
    }

    @Test func failedRowsRollBackEveryBuilderIncludingNestedOnes() {
        let columns: [(name: String, type: DataType)] = [
            ("a", .int64), ("s", .structure([StructField(name: "x", type: .varchar), StructField(name: "l", type: .list(.int32))])),
            ("l", .list(.list(.varchar))), ("b", .varchar),
        ]
        var decoder = JSONRowDecoder(columns: columns)
        var builders = decoder.makeBuilders()
        func decode(_ text: String) -> Bool {
            Array(text.utf8).withUnsafeBytes { bytes in
                do throws(JSONDecodeError) { try decoder.decodeRow(bytes, into: &builders); return true } catch { return false }
            }
        }
        #expect(decode(#"{"a": 1, "s": {"x": "one", "l": [1, 2]}, "l": [["p"], []], "b": "keep"}"#))
        let failures = [
            #"{"a": 2, "s": {"x": "two", "l": [3, 4, "no"]}, "b": "x"}"#,  // inside a struct's list
            #"{"l": [["p", "q"], ["r", {}]], "a": 3}"#,  // inside a nested list
            #"{"a": 4, "s": {"x": "t", "l": []}, "l": [["p"]], "b": "y"} trailing"#,  // after a complete object
            #"{"b": "z", "s": "{\"x\": \"u\", \"l\": [9, 9.5]}"}"#,  // inside an embedded object
            #"{"a": 1, "A": "bad"}"#,  // an exact key then a case-insensitive one: ignored; then truncated below
            #"{"a": 5, "s": {"x": "v""#,
        ]
        for text in failures {
            #expect(!decode(text) || text.contains(#""A": "bad""#))
        }
        // The case-insensitive duplicate was ignored, so that row decoded; drop it from the count.
        #expect(builders.allSatisfy { $0.count == 2 })
        let chunk = Chunk(columns: builders.map { $0.finish() })
        #expect(chunk.columns[1].value(at: 0) == .structure([.string("one"), .list([.int32(1), .int32(2)])]))
        #expect(chunk.columns[2].value(at: 0) == .list([.list([.string("p")]), .list([])]))
        #expect(chunk.columns[3].value(at: 0) == .string("keep"))
        #expect(chunk.columns.map { $0.value(at: 1) } == [.int64(1), .null, .null, .null])
        guard case .structure(let children, _) = chunk.columns[1].storage, case .list(let offsets, let elements) = children[1].storage else {
            Issue.record("unexpected storage")
            return
        }
        #expect(offsets == [0, 2, 2])
        #expect(elements.count == 2)
    }

    @Test func batchOfMessagesCollectsErrors() {
        var decoder = JSONRowDecoder(columns: Self.balloon)
        let messages = [
            #"{"player": "a", "score": 1}"#, #"{"player": "b", "score": "x"}"#, "not json", #"{"player": "c"}"#,
        ].map { Array($0.utf8) }
        let batch = messages.withUnsafeBufferPointer { all in
            decoder.decodeBatch(count: all.count) { index in all[index].withUnsafeBytes { $0 } }
        }
        #expect(batch.chunk.count == 2)
        #expect(batch.messageCount == 4)
        #expect(batch.errors.map(\.index) == [1, 2])
        #expect(batch.errors[0].error.message == #"field "score": "x" is not a valid integer"#)
        #expect(batch.chunk.columns[0].values == [.string("a"), .string("c")])
    }

    @Test func ndjsonLinesInChunks() {
        var decoder = JSONRowDecoder(columns: [("n", .int64)])
        var text = ""
        for index in 0 ..< 2500 { text += index == 1000 ? "{\"n\": oops}\n\n  \r\n" : "{\"n\": \(index)}\n" }
        text += #"{"n": 2500}"#  // no final newline
        let bytes = Array(text.utf8)
        var offset = 0
        var chunks: [JSONDecodedBatch] = []
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                let (batch, next) = decoder.decodeLines(buffer, from: offset)
                chunks.append(batch)
                offset = next
            }
        }
        #expect(chunks.map(\.chunk.count) == [1024, 1024, 452])
        #expect(chunks.flatMap(\.errors).count == 1)
        #expect(chunks[0].errors.first?.byteOffset == (0 ..< 1000).map { "{\"n\": \($0)}\n".utf8.count }.reduce(0, +))
        #expect(chunks[0].messageCount == 1025)
        let all = chunks.flatMap { $0.chunk.columns[0].values }
        #expect(all == (0 ... 2500).filter { $0 != 1000 }.map { .int64(Int64($0)) })
    }
}
