import SluiceCore
import SluiceDataflow
import SluiceFormats

/// `FORMAT DEBEZIUM_MONGO ENCODE JSON`: one MongoDB document (the decoded `after` of a Debezium
/// event) as a row of the table's two columns, `_id` (the document's id, converted to the
/// column's type) and `payload` (the whole document as `jsonb`, extended JSON kept as written).
package struct DebeziumMongoRowParser: RowParser {
    private let columns: [(name: String, type: DataType)]
    /// Where `_id` and `payload` are among `columns` (checked by ``DebeziumMongoColumns``).
    private let idColumn: Int
    private let payloadColumn: Int
    private var ids: MongoDocumentIDReader

    /// `columns` are the table's payload columns, which ``DebeziumMongoColumns/check(_:)`` took.
    package init(columns: [(name: String, type: DataType)]) {
        self.columns = columns
        idColumn = columns.firstIndex { $0.name == "_id" } ?? 0
        payloadColumn = columns.firstIndex { $0.name == "payload" } ?? 0
        ids = MongoDocumentIDReader(type: columns[idColumn].type)
    }

    package func makeBuilders() -> [ColumnBuilder] {
        columns.map { ColumnBuilder(type: $0.type, capacity: Chunk.preferredSize) }
    }

    package mutating func parse(_ payload: UnsafeRawBufferPointer, into builders: inout [ColumnBuilder]) throws(RowParseError) {
        // One pass finds the `_id` and writes the `jsonb` text; both are appended only once the
        // whole document is read, so a bad document leaves the builders as they were.
        do throws(JSONDecodeError) {
            try ids.read(document: payload)
        } catch {
            throw RowParseError("after: \(error.message)")
        }
        ids.appendID(to: &builders[idColumn])
        ids.appendDocument(to: &builders[payloadColumn])
    }
}

/// The columns a `DEBEZIUM_MONGO` table must have, as RisingWave asks: `_id` of type
/// `varchar`, `integer`, `bigint` or `jsonb`, its primary key, and `payload jsonb`, nothing
/// else but `INCLUDE` columns.
enum DebeziumMongoColumns {
    static func check(_ description: SourceDescription) throws(SluiceError) {
        let shape = "CREATE TABLE t (_id varchar PRIMARY KEY, payload jsonb) WITH (connector = 'kafka', …) FORMAT DEBEZIUM_MONGO ENCODE JSON"
        let columns = description.payloadColumns
        guard description.isTable else {
            throw SluiceError(.invalidParameterValue, "FORMAT DEBEZIUM_MONGO needs a table: \(shape)",
                hint: "Debezium's events are applied as upserts and deletes by _id, so they need a table to apply them to.")
        }
        guard let id = columns.first(where: { $0.name == "_id" }), MongoDocumentIDReader.takes(id.type) else {
            throw SluiceError(.invalidTableDefinition, "FORMAT DEBEZIUM_MONGO needs a column \"_id\" of type varchar, integer, bigint or jsonb: \(shape)")
        }
        guard columns.contains(where: { $0.name == "payload" && $0.type == .jsonb }) else {
            throw SluiceError(.invalidTableDefinition, "FORMAT DEBEZIUM_MONGO needs a column \"payload\" of type jsonb: \(shape)")
        }
        guard columns.count == 2 else {
            throw SluiceError(
                .invalidTableDefinition, "FORMAT DEBEZIUM_MONGO takes only the columns \"_id\" and \"payload\" (and INCLUDE columns): \(shape)",
                hint: "Take the document's fields apart in a view: SELECT payload->>'name' AS name FROM t.")
        }
        let idIndex = description.columns.firstIndex { $0.name == "_id" }
        guard description.primaryKey.count == 1, description.primaryKey.first == idIndex else {
            throw SluiceError(.invalidTableDefinition, "FORMAT DEBEZIUM_MONGO needs \"_id\" as the primary key: \(shape)")
        }
    }
}

/// A Kafka reader's view of `DEBEZIUM_MONGO` events: what each does, the decoded `after`
/// document of an upsert, and the key of a delete.
struct DebeziumMongoChanges {
    /// What one message does.
    enum Change {
        /// Upserts ``document`` by its `_id`.
        case upsert
        /// Deletes the document the event names (``appendDeletedKey(_:value:into:)``).
        case delete(DebeziumMongoEvent)
        /// A tombstone: nothing.
        case skip
        case reject(String)
    }

    /// The `after` document of the last upsert, as JSON text.
    private(set) var document: [UInt8] = []
    private var keyText: [UInt8] = []
    private var ids: MongoDocumentIDReader
    /// Where `_id` is among all the table's columns (the delete keys' builders).
    private let idColumn: Int

    init(description: SourceDescription) {
        idColumn = description.columns.firstIndex { $0.name == "_id" } ?? 0
        ids = MongoDocumentIDReader(type: description.columns[idColumn].type)
    }

    /// What the message whose value is `value` does.
    mutating func change(_ value: UnsafeRawBufferPointer?) -> Change {
        guard let value else { return .skip }
        let event: DebeziumMongoEvent
        do throws(JSONDecodeError) {
            event = try DebeziumMongoEvent.parse(value)
        } catch {
            return .reject("not a Debezium MongoDB event: \(error.message)")
        }
        let operation = Character(UnicodeScalar(event.operation))
        if event.upserts {
            guard let after = event.after else {
                if event.patch != nil {
                    return .reject("a Debezium MongoDB \"\(operation)\" event with a patch and no \"after\" cannot be applied; use Debezium 2's capture.mode = 'change_streams_update_full'")
                }
                return .reject("a Debezium MongoDB \"\(operation)\" event without \"after\" (the full document)")
            }
            do throws(JSONDecodeError) {
                try DebeziumMongoEvent.contents(of: after, in: value, into: &document)
            } catch {
                return .reject("after: \(error.message)")
            }
            return .upsert
        }
        if event.deletes { return .delete(event) }
        return .reject("Debezium op \"\(operation)\" is not applied (only c, r, u and d are)")
    }

    /// Appends the key of a delete: the `_id` of its `before` or `filter` document, else the
    /// `id` of the message key (`{"id": "{\"$oid\": \"…\"}"}`, with or without Kafka Connect's
    /// schema wrapper). `_id` gets the id, every other column NULL. Returns why it could not.
    mutating func appendDeletedKey(
        _ event: DebeziumMongoEvent, value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer?, into builders: inout [ColumnBuilder]
    ) -> String? {
        let id: MongoDocumentID
        do throws(JSONDecodeError) {
            if let named = event.before ?? event.filter {
                try DebeziumMongoEvent.contents(of: named, in: value, into: &keyText)
                id = try keyText.withUnsafeBytes { bytes in Result { () throws(JSONDecodeError) in try ids.id(ofDocument: bytes) } }.get()
            } else if let key, key.count > 0 {
                id = try idOfKey(key)
            } else {
                return "a Debezium MongoDB delete without \"before\", \"filter\" or a message key deletes nothing"
            }
        } catch {
            return "delete: \(error.message)"
        }
        for column in builders.indices {
            if column == idColumn { id.append(to: &builders[column]) } else { builders[column].appendNull() }
        }
        return nil
    }

    /// The id a Debezium MongoDB message key holds: its `id` member (in `payload` when wrapped),
    /// a string of extended JSON or the id's value itself. A string that is not JSON is the id
    /// as text.
    private mutating func idOfKey(_ key: UnsafeRawBufferPointer) throws(JSONDecodeError) -> MongoDocumentID {
        let isString = try DebeziumMongoKey.id(in: key, into: &keyText)
        do throws(JSONDecodeError) {
            return try keyText.withUnsafeBytes { bytes in Result { () throws(JSONDecodeError) in try ids.id(ofValue: bytes) } }.get()
        } catch {
            guard isString, case .varchar = ids.type else { throw error }
            return .text(String(decoding: keyText, as: UTF8.self))
        }
    }
}
