/// A change event of Debezium's MongoDB connector in JSON (`FORMAT DEBEZIUM_MONGO ENCODE JSON`),
/// taken apart without decoding its documents: the operation and where its documents lie.
///
/// Debezium writes each document as a JSON *string* holding MongoDB extended JSON
/// (`"after": "{\"_id\": {\"$oid\": \"…\"}, \"team\": \"…\"}"`); an embedded object is taken
/// too. Events come with Kafka Connect's schema wrapper (`{"schema": …, "payload": {…}}`) or
/// without it. Debezium 1.x's oplog events put an update's changes in `patch` and a delete's
/// document selector in `filter`; both are located, never applied as changes.
package struct DebeziumMongoEvent: DebeziumOperation, Equatable, Sendable {
    /// Where one document of the event lies in the message.
    package enum Document: Equatable, Sendable {
        /// A JSON string literal, quotes included, whose contents are the document's text.
        case text(Range<Int>)
        /// An embedded JSON object.
        case object(Range<Int>)
    }

    /// `op`: c (create), r (read, a snapshot's document), u (update), d (delete).
    package var operation: UInt8
    /// The document after the change; nil when null or absent.
    package var after: Document?
    /// The document before the change (Debezium 2.x with pre-images); nil when null or absent.
    package var before: Document?
    /// Debezium 1.x: an update's modifier document (`{"$set": …}`).
    package var patch: Document?
    /// Debezium 1.x: the selector of the changed document (`{"_id": …}`).
    package var filter: Document?

    package init(operation: UInt8, after: Document? = nil, before: Document? = nil, patch: Document? = nil, filter: Document? = nil) {
        self.operation = operation
        self.after = after
        self.before = before
        self.patch = patch
        self.filter = filter
    }

    /// Finds the event in `message`. Every value is checked as JSON (nesting up to 64 levels),
    /// documents in strings without being decoded; a message that is not an object, or has no
    /// `op`, is an error.
    package static func parse(_ message: UnsafeRawBufferPointer) throws(JSONDecodeError) -> DebeziumMongoEvent {
        try DebeziumJSONEnvelope.parse(message)
    }

    /// The text of `document` in `message` into `buffer` (replacing what it held): a string's
    /// decoded contents, or an object's bytes.
    package static func contents(
        of document: Document, in message: UnsafeRawBufferPointer, into buffer: inout [UInt8]
    ) throws(JSONDecodeError) {
        buffer.removeAll(keepingCapacity: true)
        switch document {
        case .object(let range):
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: message[range]))
        case .text(let range):
            var scanner = JSONScanner(message)
            scanner.position = range.lowerBound
            if let raw = try scanner.readString(into: &buffer) {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: message[raw]))
            }
        }
    }
}

extension DebeziumMongoEvent: DebeziumJSONEvent {
    /// The documents the envelope keeps.
    enum Field {
        case after, before, patch, filter

        var name: String {
            switch self {
            case .after: "after"
            case .before: "before"
            case .patch: "patch"
            case .filter: "filter"
            }
        }
    }

    init() {
        self.init(operation: 0)
    }

    static func field(named name: UnsafeRawBufferPointer) -> Field? {
        if JSONScanner.name(name, is: "after") { return .after }
        if JSONScanner.name(name, is: "before") { return .before }
        if JSONScanner.name(name, is: "patch") { return .patch }
        if JSONScanner.name(name, is: "filter") { return .filter }
        return nil
    }

    mutating func read(_ field: Field, _ scanner: inout JSONScanner, scratch: inout [UInt8], depth: Int) throws(JSONDecodeError) {
        let start = scanner.position
        let document: Document?
        switch scanner.peek {
        case UInt8(ascii: "n"):
            try scanner.expectLiteral("null")
            document = nil
        case UInt8(ascii: "\""):
            // Checked, not decoded: ``contents(of:in:into:)`` decodes the one document used.
            try scanner.skipString()
            document = .text(start ..< scanner.position)
        case UInt8(ascii: "{"):
            try scanner.skipValue(depth: depth + 1, depthLimit: DebeziumJSONEnvelope.depthLimit, scratch: &scratch)
            document = .object(start ..< scanner.position)
        default:
            throw JSONDecodeError(.typeMismatch, "\(field.name) must be a string, an object or null", at: start, field: field.name)
        }
        // A null member keeps what an earlier one of the same name gave.
        guard let document else { return }
        switch field {
        case .after: after = document
        case .before: before = document
        case .patch: patch = document
        case .filter: filter = document
        }
    }
}

/// The message key of Debezium's MongoDB connector: `{"id": "<the _id in extended JSON>"}`,
/// with or without Kafka Connect's schema wrapper (`{"schema": …, "payload": {"id": …}}`).
package enum DebeziumMongoKey {
    /// Puts the text of the key's `id` into `buffer` (replacing what it held): a string's
    /// decoded contents, or any other value's JSON as written. Returns whether it was a string.
    package static func id(in key: UnsafeRawBufferPointer, into buffer: inout [UInt8]) throws(JSONDecodeError) -> Bool {
        var scanner = JSONScanner(key)
        var scratch: [UInt8] = []
        scanner.skipWhitespace()
        guard scanner.peek == UInt8(ascii: "{") else {
            throw JSONDecodeError(.notAnObject, "a Debezium MongoDB key is a JSON object", at: scanner.position)
        }
        guard let found = try find(&scanner, scratch: &scratch, depth: 0) else {
            throw JSONDecodeError(.invalidValue, "the message key has no \"id\"", at: 0, field: "id")
        }
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw scanner.unexpected("the end of the key") }
        buffer.removeAll(keepingCapacity: true)
        if found.isString {
            var reader = JSONScanner(key)
            reader.position = found.range.lowerBound
            if let raw = try reader.readString(into: &buffer) {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: key[raw]))
            }
        } else {
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: key[found.range]))
        }
        return found.isString
    }

    /// The `id` member of the object at the cursor, or of its `payload` object.
    private static func find(_ scanner: inout JSONScanner, scratch: inout [UInt8], depth: Int) throws(JSONDecodeError) -> (range: Range<Int>, isString: Bool)? {
        var id: (range: Range<Int>, isString: Bool)?
        var inPayload: (range: Range<Int>, isString: Bool)?
        if try scanner.enterObject() {
            repeat {
                let raw = try scanner.readMemberName(into: &scratch)
                let (isID, isPayload) = scanner.withMemberName(raw, scratch: scratch) { name in
                    (JSONScanner.name(name, is: "id"), JSONScanner.name(name, is: "payload"))
                }
                let start = scanner.position
                if isID {
                    let isString = scanner.peek == UInt8(ascii: "\"")
                    try scanner.skipValue(depth: depth + 1, depthLimit: 64, scratch: &scratch)
                    id = (start ..< scanner.position, isString)
                } else if depth == 0, isPayload, scanner.peek == UInt8(ascii: "{") {
                    inPayload = try find(&scanner, scratch: &scratch, depth: depth + 1)
                } else {
                    try scanner.skipValue(depth: depth + 1, depthLimit: 64, scratch: &scratch)
                }
            } while try scanner.nextMember()
        }
        return id ?? inPayload
    }
}
