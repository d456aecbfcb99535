import SluiceCore

/// A JSON value as Avro schemas hold it: the schema itself, field defaults and the extra
/// attributes Avro keeps (Iceberg's `field-id`, `element-id`, `key-id`, `value-id`,
/// `adjust-to-utc`).
///
/// Integers are kept apart from other numbers so that ids and sizes round-trip exactly; object
/// members keep their order, so a schema is written back as it was read.
package indirect enum AvroJSON: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A number with a fraction or an exponent, or an integer beyond `Int64`.
    case number(Double)
    case string(String)
    case array([AvroJSON])
    case object([AvroJSONMember])

    /// The value of member `key`, when this is an object that has it.
    package subscript(key: String) -> AvroJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    package var integerValue: Int64? {
        if case .integer(let integer) = self { return integer }
        return nil
    }
}

/// One member of a JSON object, in order.
package struct AvroJSONMember: Hashable, Sendable {
    package var key: String
    package var value: AvroJSON

    package init(_ key: String, _ value: AvroJSON) {
        self.key = key
        self.value = value
    }
}

// MARK: - Parsing

extension AvroJSON {
    /// How deeply arrays and objects may nest: far more than any schema needs, and shallow
    /// enough that the recursive parser cannot exhaust the stack on hostile text.
    package static let maximumDepth = 128

    /// Parses one JSON document (RFC 8259), with nothing but whitespace after it.
    ///
    /// - Throws: `invalidJSONText` for text that is not JSON or nests deeper than ``maximumDepth``.
    package static func parse(_ text: String) throws(SluiceError) -> AvroJSON {
        var parser = AvroJSONParser(bytes: Array(text.utf8))
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }
}

/// A recursive-descent JSON parser over UTF-8 bytes; every read is bounds-checked.
private struct AvroJSONParser {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    func error(_ problem: String) -> SluiceError {
        SluiceError(.invalidJSONText, "invalid JSON in Avro schema: \(problem)", detail: "At byte \(position).")
    }

    mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    mutating func parseValue(depth: Int) throws(SluiceError) -> AvroJSON {
        guard depth < AvroJSON.maximumDepth else { throw error("nesting deeper than \(AvroJSON.maximumDepth) levels") }
        skipWhitespace()
        guard position < bytes.count else { throw error("unexpected end of text") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        default: return try parseNumber()
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(SluiceError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw error("unexpected end of text") }
        for offset in 0 ..< count where bytes[position + offset] != literal.utf8Start[offset] {
            throw error("unexpected character")
        }
        position += count
    }

    mutating func parseObject(depth: Int) throws(SluiceError) -> AvroJSON {
        position += 1
        var members: [AvroJSONMember] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            members.append(AvroJSONMember(key, try parseValue(depth: depth + 1)))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of text") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            guard bytes[position] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            position += 1
            return .object(members)
        }
    }

    mutating func parseArray(depth: Int) throws(SluiceError) -> AvroJSON {
        position += 1
        var elements: [AvroJSON] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard position < bytes.count else { throw error("unexpected end of text") }
            if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
            guard bytes[position] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            position += 1
            return .array(elements)
        }
    }

    mutating func parseString() throws(SluiceError) -> String {
        position += 1
        var scalars: [UInt8] = []
        while true {
            guard position < bytes.count else { throw error("unterminated string") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: scalars, as: UTF8.self) else { throw error("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { throw error("unterminated string") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: try parseUnicodeEscape())
                default: throw error("invalid escape")
                }
            case 0x00 ..< 0x20:
                throw error("control character in a string")
            default:
                scalars.append(byte)
            }
        }
    }

    /// The UTF-8 bytes of a `\uXXXX` escape (the `\u` consumed), a surrogate pair included.
    mutating func parseUnicodeEscape() throws(SluiceError) -> [UInt8] {
        var code = try parseHexQuad()
        if (0xD800 ..< 0xDC00).contains(code) {
            guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                throw error("lone surrogate in a string")
            }
            position += 2
            let low = try parseHexQuad()
            guard (0xDC00 ..< 0xE000).contains(low) else { throw error("lone surrogate in a string") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00 ..< 0xE000).contains(code) {
            throw error("lone surrogate in a string")
        }
        guard let scalar = Unicode.Scalar(code) else { throw error("invalid escape") }
        return Array(String(Character(scalar)).utf8)
    }

    mutating func parseHexQuad() throws(SluiceError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("unterminated escape") }
        var code: UInt32 = 0
        for _ in 0 ..< 4 {
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hexadecimal digit in an escape")
            }
            code = code << 4 | digit
            position += 1
        }
        return code
    }

    mutating func parseNumber() throws(SluiceError) -> AvroJSON {
        let start = position
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        while position < bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
        guard position > digitsStart else { throw error("unexpected character") }
        if position - digitsStart > 1, bytes[digitsStart] == UInt8(ascii: "0") { throw error("a number with a leading zero") }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            let fractionStart = position
            while position < bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard position > fractionStart else { throw error("a number without fraction digits") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            let exponentStart = position
            while position < bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
            guard position > exponentStart else { throw error("a number without exponent digits") }
        }
        let text = String(decoding: bytes[start ..< position], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text) else { throw error("invalid number") }
        return .number(number)
    }
}

// MARK: - Writing

extension AvroJSON {
    /// Compact JSON text, members in their order.
    package var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .integer(let integer): output += String(integer)
        case .number(let number):
            // JSON has no NaN or infinities; a schema never needs them.
            output += number.isFinite ? "\(number)" : "null"
        case .string(let text): AvroJSON.writeString(text, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                AvroJSON.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{00}" ..< "\u{20}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
