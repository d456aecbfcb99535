import SluiceCore

extension Lexer {
    /// `'…'` with `''` escapes, or `E'…'` with backslash escapes when `escapes` is set.
    ///
    /// Constants separated only by whitespace that contains a newline are one constant, as the
    /// SQL standard and PostgreSQL have it.
    mutating func lexQuotedString(escapes: Bool, from tokenStart: Int? = nil) throws(SluiceError) -> Token {
        let start = tokenStart ?? index
        var value: [UInt8] = []
        index += 1  // opening quote
        while true {
            guard let current = byte(at: index) else {
                throw error("unterminated quoted string at or near \"\(text(from: start, to: bytes.count))\"", from: start)
            }
            if current == UInt8(ascii: "'") {
                if byte(at: index + 1) == UInt8(ascii: "'") {
                    value.append(current)
                    index += 2
                    continue
                }
                index += 1
                if let resumed = continuationQuote() {
                    index = resumed + 1
                    continue
                }
                break
            }
            if escapes && current == UInt8(ascii: "\\") {
                try appendEscape(to: &value, tokenStart: start)
                continue
            }
            value.append(current)
            index += 1
        }
        return makeToken(.string, String(decoding: value, as: UTF8.self), from: start)
    }

    /// The offset of a quote that continues the constant just closed, if any.
    private func continuationQuote() -> Int? {
        var offset = index
        var sawNewline = false
        while let current = byte(at: offset), Self.isWhitespace(current) {
            if current == UInt8(ascii: "\n") || current == UInt8(ascii: "\r") { sawNewline = true }
            offset += 1
        }
        return sawNewline && byte(at: offset) == UInt8(ascii: "'") ? offset : nil
    }

    private mutating func appendEscape(to value: inout [UInt8], tokenStart: Int) throws(SluiceError) {
        index += 1  // backslash
        guard let escaped = byte(at: index) else {
            throw error("unterminated quoted string at or near \"\(text(from: tokenStart, to: bytes.count))\"", from: tokenStart)
        }
        index += 1
        switch escaped {
        case UInt8(ascii: "b"): value.append(0x08)
        case UInt8(ascii: "f"): value.append(0x0C)
        case UInt8(ascii: "n"): value.append(0x0A)
        case UInt8(ascii: "r"): value.append(0x0D)
        case UInt8(ascii: "t"): value.append(0x09)
        case UInt8(ascii: "x"):
            var code: UInt32 = 0
            var digits = 0
            while digits < 2, let digit = byte(at: index), let nibble = Self.hexValue(digit) {
                code = code * 16 + nibble
                digits += 1
                index += 1
            }
            if digits == 0 { value.append(UInt8(ascii: "x")) } else { value.append(UInt8(code)) }
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let width = escaped == UInt8(ascii: "u") ? 4 : 8
            try appendUnicodeEscape(width: width, to: &value, escapeStart: index - 2)
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var code = UInt32(escaped - UInt8(ascii: "0"))
            var digits = 1
            while digits < 3, let digit = byte(at: index), digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7") {
                code = code * 8 + UInt32(digit - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            value.append(UInt8(truncatingIfNeeded: code))
        default:
            value.append(escaped)
        }
    }

    private mutating func appendUnicodeEscape(width: Int, to value: inout [UInt8], escapeStart: Int) throws(SluiceError) {
        var code: UInt32 = 0
        for _ in 0..<width {
            guard let digit = byte(at: index), let nibble = Self.hexValue(digit) else {
                throw error("invalid Unicode escape", from: escapeStart)
            }
            code = code &* 16 &+ nibble
            index += 1
        }
        guard let scalar = Unicode.Scalar(code), code != 0 else {
            throw error("invalid Unicode escape value", from: escapeStart)
        }
        value.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    /// `U&'…'`: `\XXXX` and `\+XXXXXX` escapes, `\\` for a backslash.
    mutating func lexUnicodeString(from start: Int) throws(SluiceError) -> Token {
        let plain = try lexQuotedString(escapes: false, from: start)
        var value: [UInt8] = []
        let raw = Array(plain.text.utf8)
        var offset = 0
        while offset < raw.count {
            if raw[offset] == UInt8(ascii: "\\") {
                if offset + 1 < raw.count && raw[offset + 1] == UInt8(ascii: "\\") {
                    value.append(UInt8(ascii: "\\"))
                    offset += 2
                    continue
                }
                let width = offset + 1 < raw.count && raw[offset + 1] == UInt8(ascii: "+") ? 6 : 4
                let digitsStart = offset + (width == 6 ? 2 : 1)
                var code: UInt32 = 0
                guard digitsStart + width <= raw.count else { throw error("invalid Unicode escape", from: start) }
                for digit in raw[digitsStart..<digitsStart + width] {
                    guard let nibble = Self.hexValue(digit) else { throw error("invalid Unicode escape", from: start) }
                    code = code * 16 + nibble
                }
                guard let scalar = Unicode.Scalar(code), code != 0 else {
                    throw error("invalid Unicode escape value", from: start)
                }
                value.append(contentsOf: Array(String(Character(scalar)).utf8))
                offset = digitsStart + width
            } else {
                value.append(raw[offset])
                offset += 1
            }
        }
        return Token(kind: .string, text: String(decoding: value, as: UTF8.self), start: start, end: plain.end, position: plain.position)
    }

    /// `$tag$…$tag$`, or nil when the `$` does not open a dollar quote.
    mutating func lexDollarQuotedString() throws(SluiceError) -> Token? {
        let start = index
        var tagEnd = index + 1
        if let first = byte(at: tagEnd), first != UInt8(ascii: "$") {
            guard Self.isIdentifierStart(first) else { return nil }
            while let current = byte(at: tagEnd), Self.isIdentifierContinuation(current), current != UInt8(ascii: "$") {
                tagEnd += 1
            }
        }
        guard byte(at: tagEnd) == UInt8(ascii: "$") else { return nil }
        let delimiter = Array(bytes[start...tagEnd])
        let bodyStart = tagEnd + 1
        var offset = bodyStart
        while offset + delimiter.count <= bytes.count {
            if bytes[offset] == UInt8(ascii: "$") && bytes[offset..<offset + delimiter.count].elementsEqual(delimiter) {
                index = offset + delimiter.count
                return makeToken(.string, text(from: bodyStart, to: offset), from: start)
            }
            offset += 1
        }
        throw error("unterminated dollar-quoted string at or near \"\(text(from: start, to: bytes.count))\"", from: start)
    }

    /// `"…"` with `""` escapes, or `` `…` `` as in Flink SQL.
    mutating func lexQuotedIdentifier(quote: UInt8) throws(SluiceError) -> Token {
        let start = index
        var value: [UInt8] = []
        index += 1
        while true {
            guard let current = byte(at: index) else {
                throw error("unterminated quoted identifier at or near \"\(text(from: start, to: bytes.count))\"", from: start)
            }
            if current == quote {
                if byte(at: index + 1) == quote {
                    value.append(quote)
                    index += 2
                    continue
                }
                index += 1
                break
            }
            value.append(current)
            index += 1
        }
        if value.isEmpty {
            throw error("zero-length delimited identifier at or near \"\(text(from: start, to: index))\"", from: start)
        }
        return makeToken(.quotedIdentifier, String(decoding: value, as: UTF8.self), from: start)
    }

    static func hexValue(_ byte: UInt8) -> UInt32? { HexDigits.value(byte).map(UInt32.init) }
}
