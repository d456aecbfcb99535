import SluiceGen

/// A parsed JSON value that keeps what the tests check: member order, and whether a number
/// was written as an integer or with a fraction (its text).
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A number with a fraction or exponent, as written.
    case decimal(String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.decimal(a), .decimal(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    /// The member names of an object, in order.
    var keys: [String] {
        if case .object(let members) = self { return members.map(\.0) }
        return []
    }

    subscript(_ name: String) -> JSONValue? {
        if case .object(let members) = self { return members.first { $0.0 == name }?.1 }
        return nil
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    var boolean: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var isNull: Bool {
        self == .null
    }

    /// Parses one JSON text (RFC 8259); nil if it is not valid or has anything after it.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        var parser = Parser(bytes: bytes)
        guard let value = parser.value() else { return nil }
        parser.skipSpace()
        return parser.position == bytes.count ? value : nil
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        mutating func literal(_ text: String) -> Bool {
            let expected = Array(text.utf8)
            guard bytes.count - position >= expected.count, Array(bytes[position ..< position + expected.count]) == expected else { return false }
            position += expected.count
            return true
        }

        mutating func value() -> JSONValue? {
            skipSpace()
            guard position < bytes.count else { return nil }
            switch bytes[position] {
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "\""): return string().map { .string($0) }
            case UInt8(ascii: "["):
                position += 1
                var elements: [JSONValue] = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(elements)
                }
                while true {
                    guard let element = value() else { return nil }
                    elements.append(element)
                    skipSpace()
                    guard position < bytes.count else { return nil }
                    if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    if bytes[position] == UInt8(ascii: "]") { position += 1; return .array(elements) }
                    return nil
                }
            case UInt8(ascii: "{"):
                position += 1
                var members: [(String, JSONValue)] = []
                skipSpace()
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\""), let name = string() else { return nil }
                    skipSpace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                    position += 1
                    guard let member = value() else { return nil }
                    members.append((name, member))
                    skipSpace()
                    guard position < bytes.count else { return nil }
                    if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                    if bytes[position] == UInt8(ascii: "}") { position += 1; return .object(members) }
                    return nil
                }
            default:
                return number()
            }
        }

        mutating func string() -> String? {
            position += 1
            var scalars: [UInt8] = []
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: scalars, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard position < bytes.count else { return nil }
                    let escaped = bytes[position]
                    position += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard bytes.count - position >= 4, let code = UInt32(String(decoding: bytes[position ..< position + 4], as: UTF8.self), radix: 16),
                              let scalar = Unicode.Scalar(code) else { return nil }
                        position += 4
                        scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: return nil
                    }
                default:
                    guard byte >= 0x20 else { return nil }
                    scalars.append(byte)
                }
            }
            return nil
        }

        mutating func number() -> JSONValue? {
            let start = position
            if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
            let digitsStart = position
            while position < bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard position > digitsStart else { return nil }
            // RFC 8259: no leading zeros.
            if bytes[digitsStart] == UInt8(ascii: "0") && position - digitsStart > 1 { return nil }
            var isInteger = true
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                isInteger = false
                position += 1
                let fractionStart = position
                while position < bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
                guard position > fractionStart else { return nil }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                isInteger = false
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                let exponentStart = position
                while position < bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
                guard position > exponentStart else { return nil }
            }
            let text = String(decoding: bytes[start ..< position], as: UTF8.self)
            if isInteger, let value = Int64(text) { return .integer(value) }
            return .decimal(text)
        }
    }
}

/// One generated event, copied out of the generator's buffers.
struct Event {
    let key: [UInt8]?
    let value: [UInt8]

    var json: JSONValue? { JSONValue.parse(value) }
    var text: String { String(decoding: value, as: UTF8.self) }
    var keyText: String? { key.map { String(decoding: $0, as: UTF8.self) } }
}

/// The first `count` events of `generator`.
func generate<Generator: EventGenerator>(_ generator: inout Generator, count: Int) -> [Event] {
    let event = GeneratedEvent()
    var events: [Event] = []
    events.reserveCapacity(count)
    for _ in 0 ..< count {
        event.clear()
        generator.next(into: event)
        events.append(Event(key: event.hasKey ? event.key.array : nil, value: event.value.array))
    }
    return events
}

/// All of `events` as NDJSON bytes.
func ndjson(_ events: [Event]) -> [UInt8] {
    var bytes: [UInt8] = []
    for event in events {
        bytes.append(contentsOf: event.value)
        bytes.append(UInt8(ascii: "\n"))
    }
    return bytes
}

/// The kind of a JSON value, for checking a member's type.
enum JSONType: Equatable {
    case null, bool, integer, decimal, string, object

    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool: self = .bool
        case .integer: self = .integer
        case .decimal: self = .decimal
        case .string: self = .string
        case .array, .object: self = .object
        }
    }
}
