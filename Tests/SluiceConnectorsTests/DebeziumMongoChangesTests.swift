import Testing
import SluiceCore
import SluiceDataflow
@testable import SluiceConnectors

/// `FORMAT DEBEZIUM_MONGO ENCODE JSON` in the Kafka connector: the table shapes it takes, each
/// event's change (upsert of `after`, delete by the `_id` of `before`, `filter` or the message
/// key, tombstones, rejections), and the rows the documents become.
@Suite("Debezium MongoDB changes")
struct DebeziumMongoChangesTests {
    private func table(_ columns: [(name: String, type: DataType)], primaryKey: [Int] = [0], isTable: Bool = true) -> SourceDescription {
        SourceDescription(
            id: 1, name: "t20", columns: columns, primaryKey: primaryKey,
            options: ["connector": "kafka", "topic": "mongo.cricket.t20", "properties.bootstrap.server": "127.0.0.1:9"],
            format: "DEBEZIUM_MONGO", encode: "JSON", formatOptions: [:], isTable: isTable)
    }

    private func change(_ changes: inout DebeziumMongoChanges, _ text: String?) -> DebeziumMongoChanges.Change {
        guard let text else { return changes.change(nil) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { changes.change($0) }
    }

    @Test func tablesMustHaveAnIdAndAPayload() throws {
        _ = try KafkaSourceOptions(table([("_id", .varchar), ("payload", .jsonb)]))
        _ = try KafkaSourceOptions(table([("payload", .jsonb), ("_id", .int64)], primaryKey: [1]))
        let refused: [SourceDescription] = [
            table([("_id", .varchar), ("payload", .jsonb)], isTable: false),
            table([("_id", .float64), ("payload", .jsonb)]),
            table([("_id", .varchar), ("payload", .varchar)]),
            table([("_id", .varchar), ("payload", .jsonb), ("team", .varchar)]),
            table([("_id", .varchar), ("payload", .jsonb)], primaryKey: [1]),
            table([("id", .varchar), ("payload", .jsonb)]),
        ]
        for description in refused {
            #expect(throws: SluiceError.self, "\(description.columns.map(\.name))") { _ = try KafkaSourceOptions(description) }
        }
        var avro = table([("_id", .varchar), ("payload", .jsonb)])
        avro.encode = "AVRO"
        #expect(throws: SluiceError.self) { _ = try KafkaSourceOptions(avro) }
    }

    private func parse(_ parser: inout DebeziumMongoRowParser, _ document: String, into builders: inout [ColumnBuilder]) throws(RowParseError) {
        let bytes = Array(document.utf8)
        try bytes.withUnsafeBytes { buffer in Result { () throws(RowParseError) in try parser.parse(buffer, into: &builders) } }.get()
    }

    @Test func documentsBecomeRowsOfIdAndPayload() throws {
        var parser = DebeziumMongoRowParser(columns: [("payload", .jsonb), ("_id", .varchar)])
        var builders = parser.makeBuilders()
        for document in [#"{"_id": {"$oid": "65bc9fb6c485f419a7a877fe"}, "team": "India", "runs": 187}"#, #"{"team":"x","_id":"m-2"}"#] {
            try parse(&parser, document, into: &builders)
        }
        // A bad document leaves the builders as they were.
        for bad in [#"{"team": "no id"}"#, #"{"_id": 5}"#, #"{"_id": "a", "x": }"#] {
            #expect(throws: RowParseError.self) { try parse(&parser, bad, into: &builders) }
        }
        let chunk = Chunk(columns: builders.map { $0.finish() }, count: builders[0].count)
        #expect(chunk.count == 2)
        #expect(chunk.columns[1].value(at: 0) == .string("65bc9fb6c485f419a7a877fe"))
        #expect(chunk.columns[0].value(at: 0) == .jsonb(#"{"_id": {"$oid": "65bc9fb6c485f419a7a877fe"}, "runs": 187, "team": "India"}"#))
        #expect(chunk.columns[1].value(at: 1) == .string("m-2"))
    }

    @Test func eventsUpsertDeleteSkipOrReject() {
        let description = table([("_id", .int64), ("payload", .jsonb)])
        var changes = DebeziumMongoChanges(description: description)
        guard case .upsert = change(&changes, #"{"payload":{"after":"{\"_id\": {\"$numberLong\": \"1004\"}, \"a\": 1}","op":"r"}}"#) else {
            Issue.record("a read is an upsert")
            return
        }
        #expect(String(decoding: changes.document, as: UTF8.self) == #"{"_id": {"$numberLong": "1004"}, "a": 1}"#)
        guard case .skip = change(&changes, nil) else {
            Issue.record("a tombstone carries nothing")
            return
        }
        for (text, reason) in [
            ("not json", "not a Debezium MongoDB event"), (#"{"op":"u","after":null,"patch":"{\"$set\":{}}"}"#, "patch"),
            (#"{"op":"c","after":null}"#, "without \"after\""), (#"{"op":"t"}"#, "op \"t\" is not applied"),
        ] {
            guard case .reject(let problem) = change(&changes, text), problem.contains(reason) else {
                Issue.record("\(text) is rejected for \(reason)")
                continue
            }
        }
        // Deletes name their document by before's or filter's _id, else by the message key.
        var builders = description.columns.map { ColumnBuilder(type: $0.type) }
        let deletes: [(value: String, key: String?)] = [
            (#"{"op":"d","before":"{\"_id\": 7, \"a\": 1}","after":null}"#, nil),
            (#"{"op":"d","filter":"{\"_id\": {\"$numberLong\": \"8\"}}"}"#, nil),
            (#"{"schema":null,"payload":{"op":"d","after":null}}"#, #"{"schema":null,"payload":{"id":"{\"$numberLong\": \"9\"}"}}"#),
            (#"{"op":"d","after":null}"#, #"{"id":"10"}"#),
        ]
        for (value, key) in deletes {
            guard case .delete(let event) = change(&changes, value) else {
                Issue.record("\(value) is a delete")
                continue
            }
            let problem = Array(value.utf8).withUnsafeBytes { valueBytes in
                if let key { return Array(key.utf8).withUnsafeBytes { changes.appendDeletedKey(event, value: valueBytes, key: $0, into: &builders) } }
                return changes.appendDeletedKey(event, value: valueBytes, key: nil, into: &builders)
            }
            #expect(problem == nil, "\(value)")
        }
        // A delete that names nothing, or names an id the column cannot hold, is refused.
        for (value, key) in [(#"{"op":"d"}"#, nil), (#"{"op":"d"}"#, #"{"id":"\"abc\""}"#)] as [(String, String?)] {
            guard case .delete(let event) = change(&changes, value) else { continue }
            let problem = Array(value.utf8).withUnsafeBytes { valueBytes in
                if let key { return Array(key.utf8).withUnsafeBytes { changes.appendDeletedKey(event, value: valueBytes, key: $0, into: &builders) } }
                return changes.appendDeletedKey(event, value: valueBytes, key: nil, into: &builders)
            }
            #expect(problem != nil, "\(value) \(key ?? "")")
        }
        let keys = Chunk(columns: builders.map { $0.finish() }, count: builders[0].count)
        #expect((0 ..< keys.count).map { keys.columns[0].value(at: $0) } == [.int64(7), .int64(8), .int64(9), .int64(10)])
        #expect((0 ..< keys.count).allSatisfy { keys.columns[1].isNull($0) })
    }
}
