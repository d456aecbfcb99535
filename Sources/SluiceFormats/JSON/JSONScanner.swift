/// A cursor over the bytes of one JSON message (RFC 8259), for the schema-directed decoder.
///
/// It never reads outside `0 ..< count`; every method that consumes input checks the end and
/// throws `truncated` there. Strings are checked as they are read: valid UTF-8 (no overlong
/// forms, no encoded surrogates, nothing above U+10FFFF), no unescaped control characters, only
/// the escapes of RFC 8259 §7, and `\u` surrogates only in pairs.
struct JSONScanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    var position = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        // An empty buffer may have no base address; point at a static byte that is never read.
        base = buffer.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? JSONScanner.emptyBase
        count = buffer.count
    }

    /// Never read or written: `count` is 0 whenever it is used.
    nonisolated(unsafe) private static let emptyBase: UnsafePointer<UInt8> = {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return UnsafePointer(pointer)
    }()

    @inline(__always) var isAtEnd: Bool { position >= count }

    /// The byte at the cursor, or 0 at the end (0 never starts a JSON token).
    @inline(__always) var peek: UInt8 { position < count ? base[position] : 0 }

    @inline(__always) mutating func skipWhitespace() {
        while position < count {
            let byte = base[position]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position += 1
        }
    }

    /// The error for an unexpected byte at the cursor (or the end).
    func unexpected(_ expectation: String) -> JSONDecodeError {
        guard position < count else { return JSONDecodeError(.truncated, "unexpected end of input, expected \(expectation)", at: position) }
        return JSONDecodeError(.syntax, "unexpected \(JSONScanner.describe(byte: base[position])), expected \(expectation)", at: position)
    }

    static func describe(byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
    }

    /// Consumes `literal` (`true`, `false`, `null`) at the cursor.
    mutating func expectLiteral(_ literal: StaticString) throws(JSONDecodeError) {
        let length = literal.utf8CodeUnitCount
        let start = position
        for index in 0 ..< length {
            guard start + index < count else { throw JSONDecodeError(.truncated, "unexpected end of input in literal", at: start) }
            guard base[start + index] == literal.utf8Start[index] else {
                throw JSONDecodeError(.syntax, "invalid literal, expected \(literal)", at: start)
            }
        }
        position = start + length
    }

    /// The text of bytes `range`, cut to 40 bytes, for error messages.
    func excerpt(_ range: Range<Int>) -> String {
        let end = min(range.upperBound, range.lowerBound + 40)
        let text = String(decoding: UnsafeBufferPointer(start: base + range.lowerBound, count: end - range.lowerBound), as: UTF8.self)
        return end < range.upperBound ? text + "…" : text
    }

    // MARK: Strings

    /// Reads the string whose opening quote is at the cursor. Returns the byte range of its
    /// raw contents when it holds no escape; otherwise decodes it into `scratch` and returns
    /// nil. The cursor ends after the closing quote.
    @inline(__always)
    mutating func readString(into scratch: inout [UInt8]) throws(JSONDecodeError) -> Range<Int>? {
        try readString(into: &scratch, decoding: true)
    }

    /// Steps over the string whose opening quote is at the cursor, checking it as
    /// ``readString(into:)`` does but decoding nothing.
    mutating func skipString() throws(JSONDecodeError) {
        var nothing: [UInt8] = []
        _ = try readString(into: &nothing, decoding: false)
    }

    /// ``readString(into:)``; without `decoding`, an escaped string is checked but `scratch`
    /// is left alone.
    private mutating func readString(into scratch: inout [UInt8], decoding: Bool) throws(JSONDecodeError) -> Range<Int>? {
        position += 1
        let start = position
        while true {
            // Eight bytes at a time while none is a quote, a backslash, a control byte or
            // non-ASCII (SWAR: a byte b has b < 0x20 when (b - 0x20) borrows into its top bit).
            while position + 8 <= count {
                let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
                let ones: UInt64 = 0x0101_0101_0101_0101
                let highs: UInt64 = 0x8080_8080_8080_8080
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | (word &- ones &* 0x20) | word) & highs
                if special != 0 {
                    // The lowest flagged byte is a real one (a borrow only flags bytes above a
                    // real hit), so step straight to it (loads are little-endian here).
                    position += special.littleEndian.trailingZeroBitCount >> 3
                    break
                }
                position += 8
            }
            guard position < count else { throw JSONDecodeError(.truncated, "unterminated string", at: start - 1) }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return start ..< position - 1
            } else if byte == UInt8(ascii: "\\") {
                if decoding {
                    scratch.removeAll(keepingCapacity: true)
                    scratch.append(contentsOf: UnsafeBufferPointer(start: base + start, count: position - start))
                }
                try readEscapedRest(into: &scratch, decoding: decoding, stringStart: start - 1)
                return nil
            } else if byte < 0x20 {
                throw JSONDecodeError(.invalidString, "control character \(JSONScanner.describe(byte: byte)) in string must be escaped", at: position)
            } else if byte < 0x80 {
                position += 1
            } else {
                try skipUTF8Sequence()
            }
        }
    }

    /// Continues a string from its first backslash, decoding into `scratch` when `decoding`.
    private mutating func readEscapedRest(into scratch: inout [UInt8], decoding: Bool, stringStart: Int) throws(JSONDecodeError) {
        while true {
            guard position < count else { throw JSONDecodeError(.truncated, "unterminated string", at: stringStart) }
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return
            } else if byte == UInt8(ascii: "\\") {
                let scalar = try readEscape()
                if decoding { JSONScanner.appendUTF8(scalar, to: &scratch) }
            } else if byte < 0x20 {
                throw JSONDecodeError(.invalidString, "control character \(JSONScanner.describe(byte: byte)) in string must be escaped", at: position)
            } else if byte < 0x80 {
                if decoding { scratch.append(byte) }
                position += 1
            } else {
                let sequenceStart = position
                try skipUTF8Sequence()
                if decoding { scratch.append(contentsOf: UnsafeBufferPointer(start: base + sequenceStart, count: position - sequenceStart)) }
            }
        }
    }

    /// Decodes the escape at the cursor (RFC 8259 §7) into the scalar it stands for.
    private mutating func readEscape() throws(JSONDecodeError) -> UInt32 {
        let escapeStart = position
        guard position + 1 < count else { throw JSONDecodeError(.truncated, "unterminated escape", at: escapeStart) }
        let escape = base[position + 1]
        position += 2
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return UInt32(escape)
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        case UInt8(ascii: "u"):
            var scalar = try readHex4(escapeStart: escapeStart)
            if scalar >= 0xD800 && scalar < 0xDC00 {
                guard position + 1 < count, base[position] == UInt8(ascii: "\\"), base[position + 1] == UInt8(ascii: "u") else {
                    throw JSONDecodeError(.invalidString, "high surrogate \\u\(String(scalar, radix: 16)) not followed by a low surrogate", at: escapeStart)
                }
                position += 2
                let low = try readHex4(escapeStart: escapeStart)
                guard low >= 0xDC00 && low < 0xE000 else {
                    throw JSONDecodeError(.invalidString, "high surrogate \\u\(String(scalar, radix: 16)) not followed by a low surrogate", at: escapeStart)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw JSONDecodeError(.invalidString, "lone low surrogate \\u\(String(scalar, radix: 16))", at: escapeStart)
            }
            return scalar
        default:
            throw JSONDecodeError(.invalidString, "invalid escape \\\(JSONScanner.describe(byte: escape))", at: escapeStart)
        }
    }

    private mutating func readHex4(escapeStart: Int) throws(JSONDecodeError) -> UInt32 {
        guard position + 4 <= count else { throw JSONDecodeError(.truncated, "unterminated \\u escape", at: escapeStart) }
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            let byte = base[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONDecodeError(.invalidString, "\\u must be followed by four hexadecimal digits", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0 ..< 0x80:
            out.append(UInt8(scalar))
        case 0x80 ..< 0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800 ..< 0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | (scalar >> 12) & 0x3F))
            out.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Steps over one multi-byte UTF-8 sequence whose lead byte (≥ 0x80) is at the cursor
    /// (Unicode 15, table 3-7: well-formed byte sequences).
    private mutating func skipUTF8Sequence() throws(JSONDecodeError) {
        let lead = base[position]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch lead {
        case 0xC2 ... 0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1 ... 0xEC, 0xEE ... 0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1 ... 0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw JSONDecodeError(.invalidString, "invalid UTF-8 byte 0x\(String(lead, radix: 16)) in string", at: position)
        }
        guard position + length <= count else { throw JSONDecodeError(.truncated, "truncated UTF-8 sequence in string", at: position) }
        let second = base[position + 1]
        guard second >= low && second <= high else { throw JSONDecodeError(.invalidString, "invalid UTF-8 sequence in string", at: position) }
        for index in 2 ..< length where base[position + index] & 0xC0 != 0x80 {
            throw JSONDecodeError(.invalidString, "invalid UTF-8 sequence in string", at: position)
        }
        position += length
    }

    // MARK: Numbers

    /// The shape of a number literal.
    struct NumberLiteral {
        var range: Range<Int>
        var isNegative: Bool
        /// The first 19 significant digits of the literal, ignoring the point.
        var digits: UInt64
        /// How many significant digits there were (leading zeros excluded).
        var digitCount: Int
        /// The literal's value is `digits × 10^exponent` when `digitCount <= 19`.
        var exponent: Int
        /// Whether a fraction or an exponent was written (JSON's "not an integer" forms).
        var hasFractionOrExponent: Bool
    }

    /// Reads a number literal (RFC 8259 §6) at the cursor.
    mutating func readNumber() throws(JSONDecodeError) -> NumberLiteral {
        let start = position
        var literal = NumberLiteral(range: start ..< start, isNegative: false, digits: 0, digitCount: 0, exponent: 0, hasFractionOrExponent: false)
        if peek == UInt8(ascii: "-") {
            literal.isNegative = true
            position += 1
        }
        let integerStart = position
        while position < count, base[position] &- UInt8(ascii: "0") < 10 {
            literal.addDigit(base[position])
            position += 1
        }
        let integerDigits = position - integerStart
        guard integerDigits > 0 else { throw unexpectedInNumber(start) }
        if integerDigits > 1, base[integerStart] == UInt8(ascii: "0") {
            throw JSONDecodeError(.syntax, "leading zero in number \(excerpt(start ..< position))", at: start)
        }
        if peek == UInt8(ascii: ".") {
            literal.hasFractionOrExponent = true
            position += 1
            let fractionStart = position
            while position < count, base[position] &- UInt8(ascii: "0") < 10 {
                literal.addDigit(base[position])
                literal.exponent -= 1
                position += 1
            }
            guard position > fractionStart else { throw unexpectedInNumber(start) }
        }
        if peek | 0x20 == UInt8(ascii: "e") {
            literal.hasFractionOrExponent = true
            position += 1
            var negative = false
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") {
                negative = peek == UInt8(ascii: "-")
                position += 1
            }
            let exponentStart = position
            var value = 0
            while position < count, base[position] &- UInt8(ascii: "0") < 10 {
                value = min(value * 10 + Int(base[position] - UInt8(ascii: "0")), 1_000_000)
                position += 1
            }
            guard position > exponentStart else { throw unexpectedInNumber(start) }
            literal.exponent += negative ? -value : value
        }
        literal.range = start ..< position
        return literal
    }

    private func unexpectedInNumber(_ start: Int) -> JSONDecodeError {
        guard position < count else { return JSONDecodeError(.truncated, "unexpected end of input in number", at: start) }
        return JSONDecodeError(.syntax, "invalid number \(excerpt(start ..< position + 1))", at: start)
    }

    // MARK: Skipping

    /// Steps over one value at the cursor, checking it fully (strings, numbers, nesting up to
    /// `depthLimit` levels below `depth`).
    mutating func skipValue(depth: Int, depthLimit: Int, scratch: inout [UInt8]) throws(JSONDecodeError) {
        switch peek {
        case UInt8(ascii: "\""):
            _ = try readString(into: &scratch)
        case UInt8(ascii: "{"):
            guard depth < depthLimit else { throw JSONDecodeError(.tooDeep, "nesting deeper than \(depthLimit) levels", at: position) }
            position += 1
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                position += 1
                return
            }
            while true {
                guard peek == UInt8(ascii: "\"") else { throw unexpected("a string key") }
                _ = try readString(into: &scratch)
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { throw unexpected("':'") }
                position += 1
                skipWhitespace()
                try skipValue(depth: depth + 1, depthLimit: depthLimit, scratch: &scratch)
                skipWhitespace()
                if peek == UInt8(ascii: ",") {
                    position += 1
                    skipWhitespace()
                } else if peek == UInt8(ascii: "}") {
                    position += 1
                    return
                } else {
                    throw unexpected("',' or '}'")
                }
            }
        case UInt8(ascii: "["):
            guard depth < depthLimit else { throw JSONDecodeError(.tooDeep, "nesting deeper than \(depthLimit) levels", at: position) }
            position += 1
            skipWhitespace()
            if peek == UInt8(ascii: "]") {
                position += 1
                return
            }
            while true {
                try skipValue(depth: depth + 1, depthLimit: depthLimit, scratch: &scratch)
                skipWhitespace()
                if peek == UInt8(ascii: ",") {
                    position += 1
                    skipWhitespace()
                } else if peek == UInt8(ascii: "]") {
                    position += 1
                    return
                } else {
                    throw unexpected("',' or ']'")
                }
            }
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"): _ = try readNumber()
        default: throw unexpected("a value")
        }
    }
}

extension JSONScanner.NumberLiteral {
    @inline(__always) mutating func addDigit(_ byte: UInt8) {
        let digit = UInt64(byte &- UInt8(ascii: "0"))
        if digitCount == 0 && digit == 0 {
            return  // leading zeros are not significant
        }
        if digitCount < 19 {
            digits = digits &* 10 &+ digit
        } else {
            exponent += 1  // digits past the 19th only scale the value (the caller re-reads the text when exactness matters)
        }
        digitCount += 1
    }
}
