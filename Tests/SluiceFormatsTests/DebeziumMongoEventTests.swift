import Testing
import SluiceCore
@testable import SluiceFormats

/// Debezium's MongoDB change events taken apart in place (documents as JSON strings or objects,
/// with and without the schema wrapper, Debezium 1.x's `patch` and `filter`), message keys'
/// ids, and `_id`s converted to each column type as RisingWave converts them. Cut and mutated
/// input is an answer or an error, never a trap.
@Suite("Debezium MongoDB events")
struct DebeziumMongoEventTests {
    private func parse(_ text: String) throws(JSONDecodeError) -> (op: Character, after: String?, before: String?, patch: String?, filter: String?) {
        let bytes = Array(text.utf8)
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONDecodeError) -> (Character, String?, String?, String?, String?) in
                let event = try DebeziumMongoEvent.parse(buffer)
                func text(_ document: DebeziumMongoEvent.Document?) throws(JSONDecodeError) -> String? {
                    guard let document else { return nil }
                    var contents: [UInt8] = []
                    try DebeziumMongoEvent.contents(of: document, in: buffer, into: &contents)
                    return String(decoding: contents, as: UTF8.self)
                }
                return (Character(UnicodeScalar(event.operation)), try text(event.after), try text(event.before), try text(event.patch), try text(event.filter))
            }
        }
        return try result.get()
    }

    private func id(ofDocument text: String, as type: DataType) throws(JSONDecodeError) -> MongoDocumentID {
        var reader = MongoDocumentIDReader(type: type)
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { buffer in Result { () throws(JSONDecodeError) in try reader.id(ofDocument: buffer) } }.get()
    }

    private func keyID(_ text: String) throws(JSONDecodeError) -> (text: String, isString: Bool) {
        var buffer: [UInt8] = []
        let bytes = Array(text.utf8)
        let isString = try bytes.withUnsafeBytes { key in Result { () throws(JSONDecodeError) in try DebeziumMongoKey.id(in: key, into: &buffer) } }.get()
        return (String(decoding: buffer, as: UTF8.self), isString)
    }

    @Test func documentsAreStringsOfExtendedJSON() throws {
        let created = try parse(#"{"before":null,"after":"{\"_id\": {\"$oid\": \"65bc9fb6c485f419a7a877fe\"}, \"team\": \"A \\\"b\\\"\"}","patch":null,"filter":null,"source":{"connector":"mongodb","db":"cricket","collection":"t20"},"op":"c","ts_ms":1}"#)
        #expect(created.op == "c")
        #expect(created.after == #"{"_id": {"$oid": "65bc9fb6c485f419a7a877fe"}, "team": "A \"b\""}"#)
        #expect(created.before == nil && created.patch == nil && created.filter == nil)
        // An embedded object is taken as it is.
        let embedded = try parse(#"{"op":"r","after":{"_id":7,"x":[1,2]}}"#)
        #expect(embedded.op == "r" && embedded.after == #"{"_id":7,"x":[1,2]}"#)
    }

    @Test func eventsInsideTheSchemaWrapperAndOlderShapes() throws {
        let wrapped = try parse(#"{"schema":{"type":"struct","fields":[{"field":"after","type":"string"}]},"payload":{"after":"{\"_id\": 1004}","op":"u"}}"#)
        #expect(wrapped.op == "u" && wrapped.after == #"{"_id": 1004}"#)
        // Debezium 1.x: an update's patch and a delete's filter.
        let patched = try parse(#"{"after":null,"patch":"{\"$set\": {\"runs\": 5}}","filter":"{\"_id\": 1}","op":"u"}"#)
        #expect(patched.after == nil && patched.patch == #"{"$set": {"runs": 5}}"# && patched.filter == #"{"_id": 1}"#)
        let deleted = try parse(#"{"payload":{"after":null,"filter":"{\"_id\": \"m-1\"}","op":"d"}}"#)
        #expect(deleted.op == "d" && deleted.filter == #"{"_id": "m-1"}"#)
    }

    @Test func whatIsNotAnEventIsAnError() {
        let bad = [
            "", "[]", "\"x\"", "{", #"{"after":"{}"}"#, #"{"op":"cc","after":"{}"}"#, #"{"op":"c","after":5}"#,
            #"{"op":"c","after":"{}"} x"#, #"{"payload":{"after":"{}"}}"#, #"{"op":"c","after":"\x"}"#,
        ]
        for text in bad {
            #expect(throws: JSONDecodeError.self, "\(text.prefix(40))") { _ = try parse(text) }
        }
    }

    @Test func idsConvertAsTheColumnTypeSays() throws {
        #expect(try id(ofDocument: #"{"_id": {"$oid": "5d505646cf6d4fe581014ab2"}, "a": 1}"#, as: .varchar) == .text("5d505646cf6d4fe581014ab2"))
        #expect(try id(ofDocument: #"{"a": [1, {"_id": 3}], "_id": "m\u00e9-1"}"#, as: .varchar) == .text("mé-1"))
        #expect(try id(ofDocument: #"{"_id": {"$numberLong": "22423434544"}}"#, as: .int64) == .integer(22_423_434_544))
        #expect(try id(ofDocument: #"{"_id": {"$numberInt": "2345"}}"#, as: .int32) == .integer(2345))
        #expect(try id(ofDocument: #"{"_id": -17}"#, as: .int64) == .integer(-17))
        #expect(try id(ofDocument: #"{"_id": {"$oid": "abc"}}"#, as: .jsonb) == .json(#"{"$oid": "abc"}"#))
        #expect(try id(ofDocument: #"{"_id": 1, "_id": 2}"#, as: .int64) == .integer(2))
        let wrong: [(String, DataType)] = [
            (#"{"a": 1}"#, .varchar), (#"{"_id": 5}"#, .varchar), (#"{"_id": {"$oid": 5}}"#, .varchar),
            (#"{"_id": {"$oid": "a", "x": 1}}"#, .varchar), (#"{"_id": "5"}"#, .int64), (#"{"_id": 1.5}"#, .int64),
            (#"{"_id": 3000000000}"#, .int32), (#"{"_id": {"$numberLong": "x"}}"#, .int64), (#"{"_id": 1} 2"#, .int64),
            (#"[1]"#, .int64), (#"{"_id": 1, "b": tru}"#, .int64),
        ]
        for (text, type) in wrong {
            #expect(throws: JSONDecodeError.self, "\(text) as \(type)") { _ = try id(ofDocument: text, as: type) }
        }
        // An id column of a type MongoDB ids cannot take is refused up front.
        #expect(!MongoDocumentIDReader.takes(.float64) && MongoDocumentIDReader.takes(.jsonb))
    }

    @Test func messageKeysNameTheId() throws {
        #expect(try keyID(#"{"id": "{\"$oid\": \"65bc9fb6c485f419a7a877fe\"}"}"#) == (#"{"$oid": "65bc9fb6c485f419a7a877fe"}"#, true))
        #expect(try keyID(#"{"schema": null, "payload": {"id": "1004"}}"#) == ("1004", true))
        #expect(try keyID(#"{"id": 42}"#) == ("42", false))
        for bad in ["", "7", #"{"key": 1}"#, #"{"id": 1"#] {
            #expect(throws: JSONDecodeError.self, "\(bad)") { _ = try keyID(bad) }
        }
    }

    /// Documents read in one pass give the `_id` ``MongoDocumentIDReader/id(ofDocument:)`` gives
    /// and the text `JSONText.normalize` gives (keys reordered, duplicates dropped, numbers and
    /// escapes rewritten), and fail where either fails.
    @Test func documentsReadInOnePassMatchTheNormalizedText() {
        var random = SplitMix64(seed: 20_260_411)
        let keys = [#""_id""#, #""a""#, #""b""#, #""ab""#, #""ba""#, #""\u0061""#, #""é""#, #""\n""#, #""zz""#, #""$oid""#]
        let scalars = [
            "0", "-0", "17", "-3", "1.50", "1e3", "-2.5E-2", "123456789012345678901234567890123456789012", "true", "false", "null",
            #""x""#, #""a\"b\\c""#, #""\u00e9\t""#, #""\ud83d\ude00""#, #""\u0000""#, #""""#,
        ]
        func value(_ depth: Int) -> String {
            switch random.next(below: depth > 2 ? 1 : 4) {
            case 1: return "[" + (0 ..< random.next(below: 3)).map { _ in value(depth + 1) }.joined(separator: random.next(below: 2) == 0 ? "," : " , ") + "]"
            case 2: return object(depth + 1)
            default: return scalars[random.next(below: scalars.count)]
            }
        }
        func object(_ depth: Int) -> String {
            let members = (0 ..< random.next(below: 5)).map { _ in keys[random.next(below: keys.count)] + (random.next(below: 2) == 0 ? ":" : " : ") + value(depth) }
            return "{" + members.joined(separator: ",") + "}"
        }
        var oneReader = [DataType.varchar, .int64, .jsonb].map { MongoDocumentIDReader(type: $0) }
        var idReader = oneReader
        for round in 0 ..< 5_000 {
            var text = object(0)
            if round % 3 == 0 { text = #"{"_id": "# + value(1) + (text == "{}" ? "}" : ", " + text.dropFirst()) }
            let bytes = Array(text.utf8)
            for index in oneReader.indices {
                bytes.withUnsafeBytes { buffer in
                    let id = Result { () throws(JSONDecodeError) in try idReader[index].id(ofDocument: buffer) }
                    let normalized = Result { () throws(SluiceError) in try JSONText.normalize(text) }
                    let read = Result { () throws(JSONDecodeError) in try oneReader[index].read(document: buffer) }
                    switch (id, normalized, read) {
                    case (.success(let id), .success(let normalized), .success):
                        let type = oneReader[index].type
                        var idBuilder = ColumnBuilder(type: type)
                        var expectedID = ColumnBuilder(type: type)
                        var payload = ColumnBuilder(type: .jsonb)
                        oneReader[index].appendID(to: &idBuilder)
                        oneReader[index].appendDocument(to: &payload)
                        id.append(to: &expectedID)
                        #expect(payload.finish().value(at: 0) == .jsonb(normalized), "\(text)")
                        #expect(idBuilder.finish().value(at: 0) == expectedID.finish().value(at: 0), "\(text)")
                    case (.failure(let expected), _, .failure(let error)):
                        #expect(error == expected, "\(text)")
                    case (.success, .failure(let expected), .failure(let error)):
                        #expect(error.message == expected.detail.map { "\(expected.message): \($0)" } ?? expected.message, "\(text)")
                    default:
                        Issue.record("\(text): \(id), \(normalized), \(read)")
                    }
                }
            }
        }
    }

    /// Random, mutated and cut events, documents and keys: an answer or an error, never a trap,
    /// and documents found only inside the message.
    @Test func mutatedInputNeverTraps() {
        let seeds = [
            #"{"schema":{"type":"struct"},"payload":{"before":null,"after":"{\"_id\": {\"$oid\": \"65bc9fb6c485f419a7a877fe\"}, \"s\": \"é\\n\", \"n\": [1, {\"$numberLong\": \"9\"}]}","op":"u","ts_ms":1}}"#,
            #"{"after":null,"patch":"{\"$set\": {\"a\": 1}}","filter":"{\"_id\": 7}","op":"d"}"#,
            #"{"id": "{\"$numberLong\": \"1004\"}"}"#,
            #"{"_id": {"$numberInt": "12"}, "x": {"y": [true, null, "z"]}}"#,
        ].map { Array($0.utf8) }
        var random = SplitMix64(seed: 20_261_203)
        var readers = [DataType.varchar, .int32, .int64, .jsonb].map { MongoDocumentIDReader(type: $0) }
        var scratch: [UInt8] = []
        for round in 0 ..< 20_000 {
            var bytes: [UInt8]
            if round % 10 == 0 {
                bytes = (0 ..< random.next(below: 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                bytes = seeds[random.next(below: seeds.count)]
                for _ in 0 ... random.next(below: 4) {
                    switch random.next(below: 3) {
                    case 0 where !bytes.isEmpty: bytes[random.next(below: bytes.count)] = UInt8(truncatingIfNeeded: random.next())
                    case 1 where !bytes.isEmpty: bytes.removeSubrange(random.next(below: bytes.count)...)
                    default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: random.next(below: bytes.count + 1))
                    }
                }
            }
            bytes.withUnsafeBytes { buffer in
                if let event = try? Result(catching: { () throws(JSONDecodeError) in try DebeziumMongoEvent.parse(buffer) }).get() {
                    for document in [event.after, event.before, event.patch, event.filter].compactMap({ $0 }) {
                        switch document {
                        case .text(let range), .object(let range):
                            #expect(range.lowerBound >= 0 && range.upperBound <= buffer.count)
                        }
                        if (try? Result(catching: { () throws(JSONDecodeError) in try DebeziumMongoEvent.contents(of: document, in: buffer, into: &scratch) }).get()) != nil {
                            scratch.withUnsafeBytes { contents in
                                for index in readers.indices { _ = try? Result(catching: { () throws(JSONDecodeError) in try readers[index].id(ofDocument: contents) }).get() }
                            }
                        }
                    }
                }
                _ = try? Result(catching: { () throws(JSONDecodeError) in try DebeziumMongoKey.id(in: buffer, into: &scratch) }).get()
                for index in readers.indices {
                    _ = try? Result(catching: { () throws(JSONDecodeError) in try readers[index].id(ofDocument: buffer) }).get()
                    _ = try? Result(catching: { () throws(JSONDecodeError) in try readers[index].id(ofValue: buffer) }).get()
                }
            }
        }
    }
}
