/// A small JSON reader that normalizes documents the way Postgres prints `jsonb`
/// (`jsonb_in` then `jsonb_out`): object keys sorted by length, then bytes; the last of
/// duplicate keys wins; `": "` and `", "` separators; numbers in `numeric` text form.
package enum JSONText {
    /// The normalized `jsonb` text of `text`, or `22P02 invalid input syntax for type json`.
    /// `text` as a JSON string literal, escaped as Postgres's `escape_json` does.
    package static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        JSONValue.writeString(Array(text.utf8), to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    package static func normalize(_ text: String) throws(SluiceError) -> String {
        var parser = JSONParser(bytes: Array(text.utf8), text: text)
        let value = try parser.parseDocument()
        var out: [UInt8] = []
        value.write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

private indirect enum JSONValue {
    case null, bool(Bool)
    /// The number already in its printed form.
    case number([UInt8])
    case string([UInt8])
    case array([JSONValue])
    /// Sorted, duplicate-free members.
    case object([(key: [UInt8], value: JSONValue)])

    func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let digits): out.append(contentsOf: digits)
        case .string(let bytes): JSONValue.writeString(bytes, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(contentsOf: ", ".utf8) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(contentsOf: ", ".utf8) }
                JSONValue.writeString(member.key, to: &out)
                out.append(contentsOf: ": ".utf8)
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Postgres's `escape_json`.
    static func writeString(_ bytes: [UInt8], to out: inout [UInt8]) {
        bytes.withUnsafeBytes { JSONText.appendQuoted($0, to: &out) }
    }
}

extension JSONText {
    /// Appends `text` as a JSON string, escaped as Postgres's `escape_json` escapes it (`\b`,
    /// `\f`, `\n`, `\r`, `\t`, `\"`, `\\`, other control characters as `\u00XX`); runs of
    /// bytes that need no escape are copied at once (file sinks write every string through it).
    package static func appendQuoted(_ text: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var start = 0
        for index in 0 ..< text.count {
            let byte = text[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            out.appendRaw(UnsafeRawBufferPointer(rebasing: text[start ..< index]))
            RawText.append(to: &out, room: 6) { RawText.writeEscape(byte, to: $0) }
            start = index + 1
        }
        out.appendRaw(UnsafeRawBufferPointer(rebasing: text[start...]))
        out.append(UInt8(ascii: "\""))
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    let text: String
    var position = 0
    var depth = 0

    init(bytes: [UInt8], text: String) {
        self.bytes = bytes
        self.text = text
    }

    var invalid: SluiceError {
        SluiceError(.invalidTextRepresentation, "invalid input syntax for type json", detail: "The input string ended unexpectedly.")
    }

    func error(_ detail: String) -> SluiceError {
        SluiceError(.invalidTextRepresentation, "invalid input syntax for type json", detail: detail)
    }

    var tokenError: SluiceError {
        guard position < bytes.count else { return error("The input string ended unexpectedly.") }
        var end = position + 1
        let isWord: (UInt8) -> Bool = { $0 >= 0x80 || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x5F }
        if isWord(bytes[position]) {
            while end < bytes.count, isWord(bytes[end]) { end += 1 }
        }
        return error("Token \"\(String(decoding: bytes[position ..< end], as: UTF8.self))\" is invalid.")
    }

    mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    mutating func parseDocument() throws(SluiceError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        guard position == bytes.count else { throw tokenError }
        return value
    }

    mutating func parseValue() throws(SluiceError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw invalid }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"): return try parseNumber()
        default:
            for (word, value) in [("true", JSONValue.bool(true)), ("false", .bool(false)), ("null", .null)] {
                let wordBytes = Array(word.utf8)
                if bytes.count - position >= wordBytes.count, Array(bytes[position ..< position + wordBytes.count]) == wordBytes {
                    let after = position + wordBytes.count
                    if after == bytes.count || !(bytes[after] >= 0x80 || (bytes[after] | 0x20 >= 0x61 && bytes[after] | 0x20 <= 0x7A) || (bytes[after] >= 0x30 && bytes[after] <= 0x39)) {
                        position = after
                        return value
                    }
                }
            }
            throw tokenError
        }
    }

    mutating func parseObject() throws(SluiceError) -> JSONValue {
        position += 1
        depth += 1
        guard depth <= 6400 else { throw SluiceError(.statementTooComplex, "stack depth limit exceeded") }
        defer { depth -= 1 }
        var members: [(key: [UInt8], value: JSONValue)] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object([])
        }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw invalid }
            guard bytes[position] == UInt8(ascii: "\"") else { throw error("Expected string, but found \"\(String(decoding: bytes[position ... position], as: UTF8.self))\".") }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count else { throw invalid }
            guard bytes[position] == UInt8(ascii: ":") else { throw error("Expected \":\", but found \"\(String(decoding: bytes[position ... position], as: UTF8.self))\".") }
            position += 1
            let value = try parseValue()
            members.append((key, value))
            skipWhitespace()
            guard position < bytes.count else { throw invalid }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "}") else { throw error("Expected \",\" or \"}\", but found \"\(String(decoding: bytes[position ... position], as: UTF8.self))\".") }
            position += 1
            break
        }
        // jsonb order: shorter keys first, then bytewise; a stable sort keeps the last
        // duplicate last, and it is the one kept.
        let sorted = members.enumerated().sorted { lhs, rhs in
            if lhs.element.key.count != rhs.element.key.count { return lhs.element.key.count < rhs.element.key.count }
            if lhs.element.key != rhs.element.key { return lhs.element.key.lexicographicallyPrecedes(rhs.element.key) }
            return lhs.offset < rhs.offset
        }.map(\.element)
        var unique: [(key: [UInt8], value: JSONValue)] = []
        for member in sorted {
            if let last = unique.last, last.key == member.key {
                unique[unique.count - 1] = member
            } else {
                unique.append(member)
            }
        }
        return .object(unique)
    }

    mutating func parseArray() throws(SluiceError) -> JSONValue {
        position += 1
        depth += 1
        guard depth <= 6400 else { throw SluiceError(.statementTooComplex, "stack depth limit exceeded") }
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array([])
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw invalid }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            guard bytes[position] == UInt8(ascii: "]") else { throw error("Expected \",\" or \"]\", but found \"\(String(decoding: bytes[position ... position], as: UTF8.self))\".") }
            position += 1
            return .array(elements)
        }
    }

    /// A string's decoded UTF-8 bytes; the cursor is on the opening quote.
    mutating func parseString() throws(SluiceError) -> [UInt8] {
        position += 1
        var out: [UInt8] = []
        while true {
            guard position < bytes.count else { throw invalid }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return out
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw invalid }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800 ..< 0xDC00).contains(scalar) {
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw SluiceError(.untranslatableCharacter, "unsupported Unicode escape sequence", detail: "Unicode high surrogate must not be followed by a non-surrogate.")
                        }
                        position += 2
                        let low = try parseHex4()
                        guard (0xDC00 ..< 0xE000).contains(low) else {
                            throw SluiceError(.untranslatableCharacter, "unsupported Unicode escape sequence", detail: "Unicode high surrogate must not be followed by a non-surrogate.")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00 ..< 0xE000).contains(scalar) {
                        throw SluiceError(.untranslatableCharacter, "unsupported Unicode escape sequence", detail: "Unicode low surrogate must follow a high surrogate.")
                    }
                    guard scalar != 0, let unicode = Unicode.Scalar(scalar) else {
                        throw SluiceError(.untranslatableCharacter, "unsupported Unicode escape sequence", detail: "\\u0000 cannot be converted to text.")
                    }
                    out.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw error("Escape sequence \"\\\(String(decoding: [escape], as: UTF8.self))\" is invalid.")
                }
            case 0 ..< 0x20:
                throw error("Character with value 0x\(byte < 16 ? "0" : "")\(String(byte, radix: 16)) must be escaped.")
            default:
                out.append(byte)
            }
        }
    }

    mutating func parseHex4() throws(SluiceError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("\"\\u\" must be followed by four hexadecimal digits.") }
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("\"\\u\" must be followed by four hexadecimal digits.")
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    /// A JSON number, printed as Postgres's `numeric_out` prints it (`1e3` → `1000`).
    mutating func parseNumber() throws(SluiceError) -> JSONValue {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        func digits() -> Int {
            let from = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
            return position - from
        }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0 else { position = start; throw tokenError }
        if integerDigits > 1, bytes[integerStart] == UInt8(ascii: "0") { position = start; throw tokenError }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { position = start; throw tokenError }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { position = start; throw tokenError }
        }
        let literal = Array(bytes[start ..< position])
        if let decimal = try? Decimal(parsingText: String(decoding: literal, as: UTF8.self)) {
            return .number(Array(decimal.textForm.utf8))
        }
        // Beyond 38 digits: keep the literal as written.
        return .number(literal)
    }
}
