import SluiceCore

/// A MongoDB document's `_id`, converted to the type of a table's `_id` column as RisingWave's
/// `DEBEZIUM_MONGO` parser converts it.
package enum MongoDocumentID: Equatable, Sendable {
    /// `varchar`: a string id, or the hex digits of an ObjectId (`{"$oid": "…"}`).
    case text(String)
    /// `integer` and `bigint`: a number, `{"$numberInt": "…"}` or `{"$numberLong": "…"}`.
    case integer(Int64)
    /// `jsonb`: the id as it is written, normalized as `jsonb` text.
    case json(String)

    /// Appends the id to the `_id` column's builder.
    package func append(to builder: inout ColumnBuilder) {
        switch self {
        case .text(var text), .json(var text):
            text.withUTF8 { builder.append(bytes: UnsafeRawBufferPointer($0)) }
        case .integer(let value):
            if case .int32 = builder.type { builder.append(int32: Int32(truncatingIfNeeded: value)) } else { builder.append(int64: value) }
        }
    }
}

/// Reads `_id`s out of MongoDB extended JSON (canonical or relaxed) for one column type, and
/// documents whole: their `_id` and their `jsonb` text in one pass.
///
/// Not `Sendable`: one per reading thread; its buffers are reused from document to document.
package struct MongoDocumentIDReader {
    /// The `_id` column's type: `varchar`, `integer`, `bigint` or `jsonb`.
    package let type: DataType
    private var scratch: [UInt8] = []
    /// The text of the last id read (`varchar` and `jsonb`).
    private var idText: [UInt8] = []
    /// The last document's `jsonb` text.
    private var writer = JSONBTextWriter()
    private var lastID: ReadID?
    private static let depthLimit = 64
    /// The extended-JSON wrappers an id may come in.
    private static let objectIDNames: [StaticString] = ["$oid"]
    private static let integerNames: [StaticString] = ["$numberInt", "$numberLong"]

    /// An id read: its text is in ``idText`` unless it is an integer.
    private enum ReadID {
        case text
        case integer(Int64)
    }

    /// Whether `type` can hold a MongoDB `_id`.
    package static func takes(_ type: DataType) -> Bool {
        switch type {
        case .varchar, .int32, .int64, .jsonb: true
        default: false
        }
    }

    package init(type: DataType) {
        self.type = type
    }

    /// The `_id` member of the document `document` (a JSON object); the whole document is
    /// checked as JSON. The last `_id` counts when there are several, as in `jsonb`.
    package mutating func id(ofDocument document: UnsafeRawBufferPointer) throws(JSONDecodeError) -> MongoDocumentID {
        let id = try readDocument(document)
        return madeID(id)
    }

    /// Reads document `document` (a JSON object) in one pass: its `_id`, converted, for
    /// ``appendID(to:)``, and its `jsonb` text (as `JSONText.normalize` writes it) for
    /// ``appendDocument(to:)``. Throws what ``id(ofDocument:)`` throws, and for a document
    /// `jsonb` cannot hold (`\u0000` in a string).
    package mutating func read(document: UnsafeRawBufferPointer) throws(JSONDecodeError) {
        try readDocument(document)
        if writer.nulCount > 0 { throw Self.jsonbRefusal(document, at: 0, field: nil) }
    }

    /// Appends the `_id` of the document ``read(document:)`` last read to the `_id` column's builder.
    package func appendID(to builder: inout ColumnBuilder) {
        switch lastID {
        case .integer(let value):
            if case .int32 = builder.type { builder.append(int32: Int32(truncatingIfNeeded: value)) } else { builder.append(int64: value) }
        case .text:
            idText.withUnsafeBytes { builder.append(bytes: $0) }
        case nil:
            preconditionFailure("MongoDocumentIDReader.appendID(to:) before a document was read")
        }
    }

    /// Appends the `jsonb` text of the document ``read(document:)`` last read.
    package func appendDocument(to builder: inout ColumnBuilder) {
        writer.output.withUnsafeBytes { builder.append(bytes: $0) }
    }

    /// The id `value` holds: one JSON value, the id itself (as in the `id` of Debezium's message
    /// keys, `{"$oid": "…"}`, `"abc"` or `1004`).
    package mutating func id(ofValue value: UnsafeRawBufferPointer) throws(JSONDecodeError) -> MongoDocumentID {
        var scanner = JSONScanner(value)
        scanner.skipWhitespace()
        let id: ReadID
        if case .jsonb = type {
            let start = scanner.position
            writer.reset()
            try writer.writeValue(&scanner, depth: 1, depthLimit: Self.depthLimit)
            if writer.nulCount > 0 { throw Self.jsonbRefusal(UnsafeRawBufferPointer(rebasing: value[start ..< scanner.position]), at: start, field: "_id") }
            idText.removeAll(keepingCapacity: true)
            idText.append(contentsOf: writer.output)
            id = .text
        } else {
            id = try readID(&scanner)
        }
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw scanner.unexpected("the end of the id") }
        return madeID(id)
    }

    /// Walks `document`, writing its `jsonb` text and reading its last `_id` (also kept in ``lastID``).
    @discardableResult
    private mutating func readDocument(_ document: UnsafeRawBufferPointer) throws(JSONDecodeError) -> ReadID {
        var scanner = JSONScanner(document)
        scanner.skipWhitespace()
        guard scanner.peek == UInt8(ascii: "{") else {
            throw JSONDecodeError(.notAnObject, "a MongoDB document is a JSON object", at: scanner.position)
        }
        lastID = nil
        writer.reset()
        let object = writer.beginObject()
        if try scanner.enterObject() {
            repeat {
                let name = try writer.writeMemberName(&scanner, in: object)
                guard writer.memberName(name, is: "_id") else {
                    try writer.writeValue(&scanner, depth: 1, depthLimit: Self.depthLimit)
                    continue
                }
                if case .jsonb = type {
                    // The id's `jsonb` text is the text the writer gives its value.
                    let (start, nulCount, outputStart) = (scanner.position, writer.nulCount, writer.output.count)
                    try writer.writeValue(&scanner, depth: 1, depthLimit: Self.depthLimit)
                    if writer.nulCount > nulCount {
                        throw Self.jsonbRefusal(UnsafeRawBufferPointer(rebasing: document[start ..< scanner.position]), at: start, field: "_id")
                    }
                    idText.removeAll(keepingCapacity: true)
                    idText.append(contentsOf: writer.output[outputStart...])
                    lastID = .text
                } else {
                    // Converted from a copy of the cursor, then written: ids are short.
                    var idScanner = scanner
                    lastID = try readID(&idScanner)
                    try writer.writeValue(&scanner, depth: 1, depthLimit: Self.depthLimit)
                }
            } while try scanner.nextMember()
        }
        writer.endObject(object)
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw scanner.unexpected("the end of the document") }
        guard let lastID else { throw JSONDecodeError(.invalidValue, "the document has no \"_id\"", at: 0, field: "_id") }
        return lastID
    }

    /// The error for `text`, which holds something `jsonb` cannot (`\u0000`): the one
    /// `JSONText.normalize` gives, which says so in Postgres's words.
    private static func jsonbRefusal(_ text: UnsafeRawBufferPointer, at offset: Int, field: String?) -> JSONDecodeError {
        do throws(SluiceError) {
            _ = try JSONText.normalize(String(decoding: text, as: UTF8.self))
            return JSONDecodeError(.invalidString, "\\u0000 cannot be converted to text", at: offset, field: field)
        } catch {
            // `_id`s keep only the message, as they always have.
            let problem = field == nil ? error.detail.map { "\(error.message): \($0)" } ?? error.message : error.message
            return JSONDecodeError(field == nil ? .invalidString : .invalidValue, problem, at: offset, field: field)
        }
    }

    /// The id read, as the value callers compare.
    private func madeID(_ id: ReadID) -> MongoDocumentID {
        switch id {
        case .integer(let value): return .integer(value)
        case .text:
            let text = String(decoding: idText, as: UTF8.self)
            if case .jsonb = type { return .json(text) }
            return .text(text)
        }
    }

    /// The `varchar`, `integer` or `bigint` id at the cursor (`jsonb` ids are the writer's).
    private mutating func readID(_ scanner: inout JSONScanner) throws(JSONDecodeError) -> ReadID {
        let start = scanner.position
        switch type {
        case .varchar:
            if scanner.peek == UInt8(ascii: "\"") {
                try readText(&scanner)
                return .text
            }
            if scanner.peek == UInt8(ascii: "{"), try readWrapped(&scanner, names: Self.objectIDNames) != nil {
                return .text
            }
            throw mismatch(scanner, from: start, expected: "a string or {\"$oid\": …}")
        case .int32, .int64:
            var limits: ClosedRange<Int64> = Int64.min ... Int64.max
            if case .int32 = type { limits = Int64(Int32.min) ... Int64(Int32.max) }
            let value: Int64?
            if scanner.peek == UInt8(ascii: "-") || scanner.peek &- UInt8(ascii: "0") < 10 {
                let literal = try scanner.readNumber()
                value = literal.hasFractionOrExponent ? nil : JSONNumbers.integer(literal)
            } else if scanner.peek == UInt8(ascii: "{"), try readWrapped(&scanner, names: Self.integerNames) != nil {
                value = idText.withUnsafeBufferPointer { JSONNumbers.parseIntegerText($0) }
            } else {
                throw mismatch(scanner, from: start, expected: "an integer, {\"$numberInt\": …} or {\"$numberLong\": …}")
            }
            guard let value, limits.contains(value) else {
                throw JSONDecodeError(
                    .outOfRange, "\(scanner.excerpt(start ..< scanner.position)) is not an id of type \(type)", at: start, field: "_id")
            }
            return .integer(value)
        default:
            throw JSONDecodeError(.typeMismatch, "an _id column cannot be of type \(type)", at: start, field: "_id")
        }
    }

    /// The string at the cursor, decoded into ``idText``.
    private mutating func readText(_ scanner: inout JSONScanner) throws(JSONDecodeError) {
        if let raw = try scanner.readString(into: &idText) {
            idText.removeAll(keepingCapacity: true)
            idText.append(contentsOf: UnsafeBufferPointer(start: scanner.base + raw.lowerBound, count: raw.count))
        }
    }

    /// An extended-JSON wrapper at the cursor: an object of one member named one of `names`
    /// whose value is a string, which goes into ``idText``. Returns the name's index; nil (the
    /// cursor after the object) when it is another object.
    private mutating func readWrapped(_ scanner: inout JSONScanner, names: [StaticString]) throws(JSONDecodeError) -> Int? {
        var result: Int?
        var members = 0
        if try scanner.enterObject() {
            repeat {
                members += 1
                let raw = try scanner.readMemberName(into: &scratch)
                let index = scanner.withMemberName(raw, scratch: scratch) { name in names.firstIndex { JSONScanner.name(name, is: $0) } }
                if let index, scanner.peek == UInt8(ascii: "\"") {
                    try readText(&scanner)
                    result = index
                } else {
                    try scanner.skipValue(depth: 1, depthLimit: Self.depthLimit, scratch: &scratch)
                }
            } while try scanner.nextMember()
        }
        return members == 1 ? result : nil
    }

    private func mismatch(_ scanner: JSONScanner, from start: Int, expected: String) -> JSONDecodeError {
        JSONDecodeError(.typeMismatch, "an _id of type \(type) must be \(expected)", at: start, field: "_id")
    }
}
