import Testing
import SluiceCore
@testable import SluiceFormats

/// Debezium's change events taken apart in place: the operation and the byte ranges of the
/// `before` and `after` objects, with and without Kafka Connect's schema wrapper; anything that
/// is not an event is an error, and mutated events never trap.
@Suite("Debezium envelope")
struct DebeziumEnvelopeTests {
    private func parse(_ text: String) throws(JSONDecodeError) -> (op: Character, before: String?, after: String?) {
        let bytes = Array(text.utf8)
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(JSONDecodeError) in try DebeziumEvent.parse(buffer) } }
        let event = try result.get()
        let slice = { (range: Range<Int>?) in range.map { String(decoding: bytes[$0], as: UTF8.self) } }
        return (Character(UnicodeScalar(event.operation)), slice(event.before), slice(event.after))
    }

    @Test func eventsWithoutTheSchemaWrapper() throws {
        let created = try parse(#"{"before":null,"after":{"id":1,"name":"a \"b\""},"source":{"db":"x","ts_ms":1},"op":"c","ts_ms":5}"#)
        #expect(created.op == "c" && created.before == nil && created.after == #"{"id":1,"name":"a \"b\""}"#)
        let updated = try parse(#" { "op" : "u", "before" : {"id":1} , "after": {"id":1,"v":[1,{"x":2}]} } "#)
        #expect(updated.op == "u" && updated.before == #"{"id":1}"# && updated.after == #"{"id":1,"v":[1,{"x":2}]}"#)
        let deleted = try parse(#"{"before":{"id":2},"after":null,"op":"d"}"#)
        #expect(deleted.op == "d" && deleted.before == #"{"id":2}"# && deleted.after == nil)
        // An escaped op is read as its letter.
        #expect(try parse(#"{"op":"\u0072","after":{}}"#).op == "r")
    }

    @Test func eventsInsideTheSchemaWrapper() throws {
        let text = #"{"schema":{"type":"struct","fields":[{"field":"op","type":"string"}]},"payload":{"before":null,"after":{"id":7},"op":"r"}}"#
        let event = try parse(text)
        #expect(event.op == "r" && event.before == nil && event.after == #"{"id":7}"#)
    }

    @Test func whatIsNotAnEventIsAnError() {
        let bad = [
            "", "[]", "42", "{", #"{"after":{"id":1}}"#, #"{"op":"cc","after":{}}"#, #"{"op":1,"after":{}}"#,
            #"{"op":"c","after":[1]}"#, #"{"op":"c","after":{"id":1}} x"#, #"{"payload":{"after":{}}}"#,
            #"{"op":"c","after":{"id":1,}}"#, String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100),
        ]
        for text in bad {
            #expect(throws: JSONDecodeError.self, "\(text.prefix(40))") { _ = try parse(text) }
        }
    }

    /// Mutated and cut events: an answer or an error, never a trap, and ranges inside the message.
    @Test func mutatedEventsNeverTrap() {
        let seeds = [
            #"{"schema":{"type":"struct"},"payload":{"before":{"id":1,"s":"é\n"},"after":{"id":1,"s":"x"},"op":"u","ts_ms":1}}"#,
            #"{"before":null,"after":{"id":3,"tags":["a","b"],"n":-1.5e3},"op":"c"}"#,
        ].map { Array($0.utf8) }
        var random = SplitMix64(seed: 20261127)
        for _ in 0 ..< 20_000 {
            var bytes = seeds[random.next(below: seeds.count)]
            for _ in 0 ... random.next(below: 4) {
                switch random.next(below: 3) {
                case 0 where !bytes.isEmpty: bytes[random.next(below: bytes.count)] = UInt8(truncatingIfNeeded: random.next())
                case 1 where !bytes.isEmpty: bytes.removeSubrange(random.next(below: bytes.count)...)
                default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: random.next(below: bytes.count + 1))
                }
            }
            if let event = try? bytes.withUnsafeBytes({ buffer in Result { () throws(JSONDecodeError) in try DebeziumEvent.parse(buffer) } }).get() {
                for range in [event.before, event.after].compactMap({ $0 }) {
                    #expect(range.lowerBound >= 0 && range.upperBound <= bytes.count && bytes[range.lowerBound] == UInt8(ascii: "{"))
                }
            }
        }
    }
}
