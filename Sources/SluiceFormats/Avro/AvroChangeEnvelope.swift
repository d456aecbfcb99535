import SluiceCore

/// A Debezium change event in Avro (`FORMAT DEBEZIUM ENCODE AVRO`): an `Envelope` record with
/// `before` and `after` (each `["null", <row record>]`), `op` (a string) and other fields
/// (`source`, `ts_ms`, `transaction`) that are stepped over.
///
/// Built once per writer schema; ``locate(_:)`` finds an event's operation and where its rows
/// lie in the message without decoding them, for a ``AvroRowDecoder`` of ``rowSchema`` to read
/// in place.
package struct AvroChangeEnvelope {
    private enum Role {
        /// `before` or `after`, and the index of the null branch of its union.
        case before(nullIndex: Int64)
        case after(nullIndex: Int64)
        case operation
        case other(AvroSkip)
    }

    private let roles: [Role]
    private let rowSkip: AvroSkip
    /// The record `after` (and `before`) holds.
    package let rowSchema: AvroSchema

    /// The envelope of writer schema `writer`.
    /// - Throws: `datatypeMismatch` when it is not a record with `before`, `after` and `op`
    ///   fields of Debezium's types.
    package init(writer: AvroSchema) throws(SluiceError) {
        guard case .record(let name, let fields) = writer.kind else {
            throw SluiceError(.datatypeMismatch, "a Debezium event is an Avro record, not \(writer.typeName)")
        }
        var roles: [Role] = []
        var rowSchema: AvroSchema?
        var hasOperation = false
        let compiler = AvroProgramCompiler()
        for field in fields {
            switch field.name {
            case "before", "after":
                let (row, nullIndex) = try Self.rowRecord(field.type, envelope: name, field: field.name)
                if let rowSchema, rowSchema != row {
                    throw SluiceError(.datatypeMismatch, "Debezium envelope \(name): \"before\" and \"after\" hold different records")
                }
                rowSchema = row
                roles.append(field.name == "before" ? .before(nullIndex: nullIndex) : .after(nullIndex: nullIndex))
            case "op":
                guard field.type.kind == .string else { throw SluiceError(.datatypeMismatch, "Debezium envelope \(name): \"op\" is not a string") }
                hasOperation = true
                roles.append(.operation)
            default:
                roles.append(.other(try compiler.skip(field.type, path: field.name)))
            }
        }
        guard let rowSchema, hasOperation else {
            throw SluiceError(
                .datatypeMismatch, "Avro record \(name) is not a Debezium envelope",
                hint: "A Debezium event has fields before, after and op.")
        }
        self.roles = roles
        self.rowSchema = rowSchema
        rowSkip = try compiler.skip(rowSchema, path: "after")
    }

    /// The record of a `before` or `after` field, `["null", record]` in either order, and the
    /// index of its null branch.
    private static func rowRecord(_ type: AvroSchema, envelope: String, field: String) throws(SluiceError) -> (AvroSchema, Int64) {
        if case .union(let branches) = type.kind, branches.count == 2, let nullIndex = branches.firstIndex(where: { $0.kind == .null }),
            case .record = branches[1 - nullIndex].kind
        {
            return (branches[1 - nullIndex], Int64(nullIndex))
        }
        throw SluiceError(.datatypeMismatch, "Debezium envelope \(envelope): \"\(field)\" is not a union of null and a record")
    }

    /// Finds the event in `record` (the Avro record, after the Confluent frame): its `op` byte
    /// and the byte ranges of the `before` and `after` rows (nil when null).
    package func locate(_ record: UnsafeRawBufferPointer) throws(AvroDecodeError) -> (operation: UInt8, before: Range<Int>?, after: Range<Int>?) {
        var cursor = AvroCursor(record)
        var operation: UInt8 = 0
        var before: Range<Int>?
        var after: Range<Int>?
        for role in roles {
            switch role {
            case .before(let nullIndex): before = try row(&cursor, nullIndex: nullIndex)
            case .after(let nullIndex): after = try row(&cursor, nullIndex: nullIndex)
            case .operation:
                let text = try cursor.take(try cursor.length())
                guard text.count == 1 else { throw AvroDecodeError("Debezium op \"\(String(decoding: text, as: UTF8.self))\" is not one letter") }
                operation = text[0]
            case .other(let skip):
                try AvroProgramRunner.skip(skip, &cursor, depth: 1)
            }
        }
        if !cursor.isAtEnd { throw cursor.corrupt("\(cursor.remaining) bytes after the record") }
        return (operation, before, after)
    }

    /// The range of a `before` or `after` row, stepped over; nil for null.
    private func row(_ cursor: inout AvroCursor, nullIndex: Int64) throws(AvroDecodeError) -> Range<Int>? {
        let branch = try cursor.long()
        guard branch == 0 || branch == 1 else { throw cursor.corrupt("union branch \(branch) of 2") }
        if branch == nullIndex { return nil }
        let start = cursor.position
        try AvroProgramRunner.skip(rowSkip, &cursor, depth: 1)
        return start ..< cursor.position
    }
}
