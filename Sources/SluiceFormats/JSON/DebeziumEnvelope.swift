/// What the change events of Debezium's connectors share, whatever their encoding: a
/// one-letter operation, and what it does to the table.
package protocol DebeziumOperation {
    /// `op`: c (create), r (read, a snapshot's row), u (update), d (delete), t (truncate).
    var operation: UInt8 { get }
}

extension DebeziumOperation {
    /// Whether the event adds or replaces a row (`after` is the row): c, r and u.
    package var upserts: Bool {
        operation == UInt8(ascii: "c") || operation == UInt8(ascii: "r") || operation == UInt8(ascii: "u")
    }

    /// Whether the event deletes a row (`before`, or the message key, names it).
    package var deletes: Bool { operation == UInt8(ascii: "d") }
}

/// A Debezium change event in JSON, taken apart without decoding its rows: the operation and
/// where the `before` and `after` row objects lie in the message, for the row decoder to read
/// in place. Events come as Debezium writes them, with Kafka Connect's schema wrapper
/// (`{"schema": …, "payload": {…}}`) or without it (`schemas.enable=false`).
package struct DebeziumEvent: DebeziumOperation, Equatable, Sendable {
    package var operation: UInt8
    /// The byte range of the `before` object; nil when null or absent.
    package var before: Range<Int>?
    /// The byte range of the `after` object; nil when null or absent.
    package var after: Range<Int>?

    package init(operation: UInt8, before: Range<Int>?, after: Range<Int>?) {
        self.operation = operation
        self.before = before
        self.after = after
    }

    /// Finds the event in `message`. Every value is checked as JSON (nesting up to 64 levels);
    /// a message that is not an object, or has no `op`, is an error.
    package static func parse(_ message: UnsafeRawBufferPointer) throws(JSONDecodeError) -> DebeziumEvent {
        try DebeziumJSONEnvelope.parse(message)
    }
}

extension DebeziumEvent: DebeziumJSONEvent {
    enum Field { case before, after }

    init() {
        self.init(operation: 0, before: nil, after: nil)
    }

    static func field(named name: UnsafeRawBufferPointer) -> Field? {
        if JSONScanner.name(name, is: "before") { return .before }
        if JSONScanner.name(name, is: "after") { return .after }
        return nil
    }

    mutating func read(_ field: Field, _ scanner: inout JSONScanner, scratch: inout [UInt8], depth: Int) throws(JSONDecodeError) {
        var range: Range<Int>?
        if scanner.peek == UInt8(ascii: "n") {
            try scanner.expectLiteral("null")
        } else {
            guard scanner.peek == UInt8(ascii: "{") else {
                throw JSONDecodeError(.typeMismatch, "\(field == .before ? "before" : "after") must be an object or null", at: scanner.position)
            }
            let start = scanner.position
            try scanner.skipValue(depth: depth + 1, depthLimit: DebeziumJSONEnvelope.depthLimit, scratch: &scratch)
            range = start ..< scanner.position
        }
        if field == .before { before = range } else { after = range }
    }
}

/// A Debezium event in JSON as ``DebeziumJSONEnvelope`` finds it: besides `op` and `payload`,
/// which the envelope reads, the members the event keeps (its documents).
protocol DebeziumJSONEvent: DebeziumOperation {
    associatedtype Field
    var operation: UInt8 { get set }
    /// An event with no operation and no documents yet.
    init()
    /// The member of that name the event keeps, or nil for one to step over.
    static func field(named name: UnsafeRawBufferPointer) -> Field?
    /// Reads the value of member `field` at the cursor (an object nested `depth` levels deep).
    mutating func read(_ field: Field, _ scanner: inout JSONScanner, scratch: inout [UInt8], depth: Int) throws(JSONDecodeError)
}

/// The envelope of Debezium's JSON events, walked once for any ``DebeziumJSONEvent``: the
/// event is the object's members, or those of its `payload` member when it has no `op`.
enum DebeziumJSONEnvelope {
    static let depthLimit = 64

    /// Finds the event in `message`. Every value is checked as JSON (nesting up to 64 levels);
    /// a message that is not an object, or has no `op`, is an error.
    static func parse<Event: DebeziumJSONEvent>(_ message: UnsafeRawBufferPointer) throws(JSONDecodeError) -> Event {
        var scanner = JSONScanner(message)
        var scratch: [UInt8] = []
        scanner.skipWhitespace()
        let event: Event = try parseObject(&scanner, scratch: &scratch, depth: 0)
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw scanner.unexpected("the end of the message") }
        return event
    }

    private enum Member { case op, payload, other }

    /// The event in the object at the cursor, or in its `payload` member when it has no `op`.
    private static func parseObject<Event: DebeziumJSONEvent>(_ scanner: inout JSONScanner, scratch: inout [UInt8], depth: Int) throws(JSONDecodeError) -> Event {
        guard scanner.peek == UInt8(ascii: "{") else {
            throw JSONDecodeError(.notAnObject, "a Debezium event is a JSON object", at: scanner.position)
        }
        var event = Event()
        var hasOperation = false
        var payload: Event?
        if try scanner.enterObject() {
            repeat {
                let raw = try scanner.readMemberName(into: &scratch)
                let (member, field) = scanner.withMemberName(raw, scratch: scratch) { name -> (Member, Event.Field?) in
                    if JSONScanner.name(name, is: "op") { return (.op, nil) }
                    if JSONScanner.name(name, is: "payload") { return (.payload, nil) }
                    return (.other, Event.field(named: name))
                }
                if member == .op, scanner.peek == UInt8(ascii: "\"") {
                    event.operation = try readLetter(&scanner, scratch: &scratch)
                    hasOperation = true
                } else if let field {
                    try event.read(field, &scanner, scratch: &scratch, depth: depth)
                } else if member == .payload, scanner.peek == UInt8(ascii: "{"), depth == 0 {
                    payload = try parseObject(&scanner, scratch: &scratch, depth: depth + 1)
                } else {
                    try scanner.skipValue(depth: depth + 1, depthLimit: depthLimit, scratch: &scratch)
                }
            } while try scanner.nextMember()
        }
        if hasOperation { return event }
        if let payload { return payload }
        throw JSONDecodeError(.invalidValue, "a Debezium event needs \"op\"", at: 0, field: "op")
    }

    /// The one letter of the string at the cursor.
    private static func readLetter(_ scanner: inout JSONScanner, scratch: inout [UInt8]) throws(JSONDecodeError) -> UInt8 {
        let start = scanner.position
        let letter: UInt8?
        if let raw = try scanner.readString(into: &scratch) {
            letter = raw.count == 1 ? scanner.base[raw.lowerBound] : nil
        } else {
            letter = scratch.count == 1 ? scratch[0] : nil
        }
        guard let letter else {
            throw JSONDecodeError(.invalidValue, "op must be one letter, not \(scanner.excerpt(start ..< scanner.position))", at: start, field: "op")
        }
        return letter
    }
}
