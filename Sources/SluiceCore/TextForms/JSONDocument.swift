/// A JSON document: Iceberg's metadata files and REST bodies, the dashboard's messages.
///
/// Our own small tree rather than Foundation's `JSONSerialization`, for three reasons: snapshot
/// ids are full 64-bit integers that must survive a round trip exactly (never through `Double`);
/// members keep their order so written files read like Java's; and every malformed or hostile
/// input becomes a ``SluiceError`` (nesting depth and size are bounded), never a trap.
package indirect enum JSONDocument: Hashable, Sendable {
    case null
    case bool(Bool)
    /// An integer literal that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    case string(String)
    case array([JSONDocument])
    /// Members in document order; a later duplicate key shadows nothing (the first one wins on lookup).
    case object([Member])

    /// One `"key": value` pair of an object.
    package struct Member: Hashable, Sendable {
        package var key: String
        package var value: JSONDocument

        package init(_ key: String, _ value: JSONDocument) {
            self.key = key
            self.value = value
        }
    }

    /// The value of member `key` when this is an object that has it.
    package subscript(key: String) -> JSONDocument? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    /// The text of a string value; nil for anything else.
    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value of an integer literal; nil for anything else.
    package var integerValue: Int64? {
        if case .int(let integer) = self { return integer }
        return nil
    }

    /// An object from ordered pairs; pairs whose value is nil are left out.
    package static func object(_ pairs: KeyValuePairs<String, JSONDocument?>) -> JSONDocument {
        .object(pairs.compactMap { key, value in value.map { Member(key, $0) } })
    }

    /// A string map as an object with keys in sorted order (stable files, stable tests).
    package static func stringMap(_ map: [String: String]) -> JSONDocument {
        .object(map.keys.sorted().map { Member($0, .string(map[$0] ?? "")) })
    }
}

// MARK: - Reading

extension JSONDocument {
    /// The deepest nesting accepted; Iceberg metadata nests a handful of levels per nested type.
    static let maximumDepth = 512

    /// Parses a whole document; trailing bytes other than whitespace are an error.
    ///
    /// - Throws: `22032` (`invalidJSONText`) naming the byte offset of the problem.
    package static func parse(_ bytes: [UInt8]) throws(SluiceError) -> JSONDocument {
        var parser = JSONDocumentParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected trailing characters") }
        return value
    }

    package static func parse(_ text: String) throws(SluiceError) -> JSONDocument {
        try parse(Array(text.utf8))
    }
}

private struct JSONDocumentParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    func failure(_ problem: String) -> SluiceError {
        SluiceError(.invalidJSONText, "invalid JSON: \(problem) at byte \(index)")
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(SluiceError) -> JSONDocument {
        guard depth < JSONDocument.maximumDepth else { throw failure("nesting is too deep") }
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(SluiceError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw failure("unexpected end of input") }
        let matches = literal.withUTF8Buffer { expected in
            (0 ..< count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw failure("invalid literal") }
        index += count
    }

    mutating func parseObject(depth: Int) throws(SluiceError) -> JSONDocument {
        index += 1
        var members: [JSONDocument.Member] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            members.append(JSONDocument.Member(key, try parseValue(depth: depth + 1)))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw failure("expected ',' or '}'")
        }
    }

    mutating func parseArray(depth: Int) throws(SluiceError) -> JSONDocument {
        index += 1
        var elements: [JSONDocument] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw failure("expected ',' or ']'")
        }
    }

    mutating func parseString() throws(SluiceError) -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else { throw failure("invalid UTF-8 in string") }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw failure("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): try appendUnicodeEscape(to: &out)
                default: throw failure("invalid escape")
                }
            case 0x00 ..< 0x20:
                throw failure("control character in string")
            default:
                out.append(byte)
            }
        }
    }

    mutating func hexQuad() throws(SluiceError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | digit
        }
        return value
    }

    mutating func appendUnicodeEscape(to out: inout [UInt8]) throws(SluiceError) {
        var scalar = try hexQuad()
        if (0xD800 ..< 0xDC00).contains(scalar) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("lone surrogate in \\u escape")
            }
            index += 2
            let low = try hexQuad()
            guard (0xDC00 ..< 0xE000).contains(low) else { throw failure("invalid surrogate pair") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00 ..< 0xE000).contains(scalar) {
            throw failure("lone surrogate in \\u escape")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
        out.append(contentsOf: String(Character(unicode)).utf8)
    }

    mutating func parseNumber() throws(SluiceError) -> JSONDocument {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ parser: inout JSONDocumentParser) -> Int {
            let begin = parser.index
            while parser.index < parser.bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(parser.bytes[parser.index]) {
                parser.index += 1
            }
            return parser.index - begin
        }
        let integerStart = index
        let integerDigits = digits(&self)
        guard integerDigits > 0 else { throw failure("invalid number") }
        // RFC 8259: no leading zeros ("0" alone, "0.5", but not "01").
        guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw failure("a number has a leading zero") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            isInteger = false
            guard digits(&self) > 0 else { throw failure("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            isInteger = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw failure("invalid number") }
        }
        let text = String(decoding: bytes[start ..< index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        guard let double = Double(text) else { throw failure("invalid number") }
        return .double(double)
    }
}

// MARK: - Writing

extension JSONDocument {
    /// The compact UTF-8 text of the document.
    package var bytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    package func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .double(let value):
            // JSON has no NaN or infinities; Iceberg never writes them in metadata.
            if value.isFinite { out.append(contentsOf: "\(value)".utf8) } else { out.append(contentsOf: "null".utf8) }
        case .string(let value): JSONDocument.writeString(value, to: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (position, member) in members.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                JSONDocument.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ text: String, to out: inout [UInt8]) {
        let hexDigits = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00 ..< 0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
