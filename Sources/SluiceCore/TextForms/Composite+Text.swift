/// Postgres text forms of records (`record_out`/`record_in`), arrays (`array_out`/`array_in`)
/// and `bytea` (`byteaout`/`byteain` with `bytea_output = hex`).
package enum CompositeText {
    /// `(1,abc)`: a null field is empty; a field is quoted when empty or holding `"`, `\`,
    /// `(`, `)`, `,` or white space, with `"` and `\` doubled inside the quotes.
    package static func record(_ fields: [Value]) -> String {
        var out = "("
        for (index, field) in fields.enumerated() {
            if index > 0 { out += "," }
            if field.isNull { continue }
            let text = field.textForm
            let needsQuotes = text.isEmpty || text.utf8.contains { byte in
                byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "(")
                    || byte == UInt8(ascii: ")") || byte == UInt8(ascii: ",") || isSpace(byte)
            }
            guard needsQuotes else {
                out += text
                continue
            }
            out += "\""
            for character in text {
                if character == "\"" || character == "\\" { out.append(character) }
                out.append(character)
            }
            out += "\""
        }
        return out + ")"
    }

    /// `{1,2,NULL}`: an element is quoted when empty, `NULL` in any case, or holding `"`,
    /// `\`, `{`, `}`, `,` or white space, with `"` and `\` escaped by a backslash.
    package static func array(_ elements: [Value]) -> String {
        var out = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { out += "," }
            switch element {
            case .null:
                out += "NULL"
            case .list(let nested):
                out += array(nested)
            default:
                let text = element.textForm
                let needsQuotes = text.isEmpty || text.lowercased() == "null" || text.utf8.contains { byte in
                    byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "{")
                        || byte == UInt8(ascii: "}") || byte == UInt8(ascii: ",") || isSpace(byte)
                }
                guard needsQuotes else {
                    out += text
                    continue
                }
                out += "\""
                for character in text {
                    if character == "\"" || character == "\\" { out += "\\" }
                    out.append(character)
                }
                out += "\""
            }
        }
        return out + "}"
    }

    /// `\x` then two lowercase hex digits per byte.
    package static func bytea(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        out.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses `bytea` input: `\x` hex (white space allowed between byte pairs) or the escape
    /// format (`\\`, `\ooo` octal, other bytes as they are).
    package static func parseBytea(_ text: String) throws(SluiceError) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x") {
            var index = 2
            func hexValue(_ byte: UInt8) throws(SluiceError) -> UInt8 {
                guard let value = HexDigits.value(byte) else {
                    throw SluiceError(.invalidParameterValue, "invalid hexadecimal digit: \"\(String(decoding: [byte], as: UTF8.self))\"")
                }
                return value
            }
            while index < bytes.count {
                if isSpace(bytes[index]) {
                    index += 1
                    continue
                }
                let high = try hexValue(bytes[index])
                guard index + 1 < bytes.count else {
                    throw SluiceError(.invalidParameterValue, "invalid hexadecimal data: odd number of digits")
                }
                let low = try hexValue(bytes[index + 1])
                out.append(high << 4 | low)
                index += 2
            }
            return out
        }
        var index = 0
        let invalid = SluiceError(.invalidTextRepresentation, "invalid input syntax for type bytea")
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\\") else {
                out.append(bytes[index])
                index += 1
                continue
            }
            if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\\") {
                out.append(UInt8(ascii: "\\"))
                index += 2
            } else if index + 3 < bytes.count, (UInt8(ascii: "0") ... UInt8(ascii: "3")).contains(bytes[index + 1]),
                      (UInt8(ascii: "0") ... UInt8(ascii: "7")).contains(bytes[index + 2]),
                      (UInt8(ascii: "0") ... UInt8(ascii: "7")).contains(bytes[index + 3]) {
                out.append((bytes[index + 1] - 48) << 6 | (bytes[index + 2] - 48) << 3 | (bytes[index + 3] - 48))
                index += 4
            } else {
                throw invalid
            }
        }
        return out
    }

    /// Parses `record_in` text into one unparsed field per position (nil for NULL).
    package static func splitRecord(_ text: String) throws(SluiceError) -> [String?] {
        let malformed = { (detail: String) in
            SluiceError(.invalidTextRepresentation, "malformed record literal: \"\(text)\"", detail: detail)
        }
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, isSpace(first) { bytes.removeFirst() }
        guard bytes.first == UInt8(ascii: "(") else { throw malformed("Missing left parenthesis.") }
        bytes.removeFirst()
        var fields: [String?] = []
        if bytes.first == UInt8(ascii: ")") {
            bytes.removeFirst()
            guard bytes.allSatisfy(isSpace) else { throw malformed("Junk after right parenthesis.") }
            return []
        }
        while true {
            var field: [UInt8] = []
            var sawQuote = false
            var inQuotes = false
            while true {
                guard let byte = bytes.first else { throw malformed("Unexpected end of input.") }
                if !inQuotes, byte == UInt8(ascii: ",") || byte == UInt8(ascii: ")") { break }
                bytes.removeFirst()
                if byte == UInt8(ascii: "\\") {
                    guard let escaped = bytes.first else { throw malformed("Unexpected end of input.") }
                    bytes.removeFirst()
                    field.append(escaped)
                } else if byte == UInt8(ascii: "\"") {
                    if !inQuotes {
                        inQuotes = true
                        sawQuote = true
                    } else if bytes.first == UInt8(ascii: "\"") {
                        bytes.removeFirst()
                        field.append(byte)
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(byte)
                }
            }
            fields.append(field.isEmpty && !sawQuote ? nil : String(decoding: field, as: UTF8.self))
            let separator = bytes.removeFirst()
            if separator == UInt8(ascii: ")") { break }
        }
        guard bytes.allSatisfy(isSpace) else { throw malformed("Junk after right parenthesis.") }
        return fields
    }

    /// One element of an `array_in` literal before its own type's parsing.
    package indirect enum ArrayElement: Equatable, Sendable {
        case null
        case text(String)
        case nested([ArrayElement])
    }

    /// Parses `array_in` text into elements; unquoted `NULL` is null, nested braces nest.
    package static func splitArray(_ text: String) throws(SluiceError) -> [ArrayElement] {
        let malformed = SluiceError(.invalidTextRepresentation, "malformed array literal: \"\(text)\"")
        let bytes = Array(text.utf8)
        var index = 0
        func skipSpaces() { while index < bytes.count, isSpace(bytes[index]) { index += 1 } }
        func parseLevel() throws(SluiceError) -> [ArrayElement] {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { throw malformed }
            index += 1
            skipSpaces()
            var elements: [ArrayElement] = []
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return []
            }
            while true {
                skipSpaces()
                guard index < bytes.count else { throw malformed }
                if bytes[index] == UInt8(ascii: "{") {
                    elements.append(.nested(try parseLevel()))
                } else {
                    var field: [UInt8] = []
                    var quoted = false
                    var inQuotes = false
                    var trailingSpaces = 0
                    while index < bytes.count {
                        let byte = bytes[index]
                        if !inQuotes, byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") { break }
                        index += 1
                        if byte == UInt8(ascii: "\\") {
                            guard index < bytes.count else { throw malformed }
                            field.append(bytes[index])
                            index += 1
                            trailingSpaces = 0
                        } else if byte == UInt8(ascii: "\"") {
                            guard inQuotes || field.isEmpty else { throw malformed }
                            inQuotes.toggle()
                            quoted = true
                            trailingSpaces = 0
                        } else if !inQuotes, byte == UInt8(ascii: "{") {
                            throw malformed
                        } else {
                            if !inQuotes, isSpace(byte) {
                                trailingSpaces += 1
                            } else {
                                trailingSpaces = 0
                            }
                            field.append(byte)
                        }
                    }
                    guard !inQuotes else { throw malformed }
                    if !quoted { field.removeLast(trailingSpaces) }
                    if !quoted, field.isEmpty { throw malformed }
                    let string = String(decoding: field, as: UTF8.self)
                    elements.append(!quoted && string.lowercased() == "null" ? .null : .text(string))
                }
                skipSpaces()
                guard index < bytes.count else { throw malformed }
                let separator = bytes[index]
                index += 1
                if separator == UInt8(ascii: "}") { return elements }
                guard separator == UInt8(ascii: ",") else { throw malformed }
            }
        }
        skipSpaces()
        let elements = try parseLevel()
        skipSpaces()
        guard index == bytes.count else { throw malformed }
        return elements
    }

    /// Whether nested elements form a proper multidimensional array: at each level all
    /// elements are sub-arrays of one shape, or none are.
    package static func isRectangular(_ elements: [ArrayElement]) -> Bool {
        func shape(_ elements: [ArrayElement]) -> [Int]? {
            var inner: [Int]?? = .none
            for element in elements {
                let elementShape: [Int]?
                if case .nested(let nested) = element {
                    guard let nestedShape = shape(nested) else { return nil }
                    elementShape = nestedShape
                } else {
                    elementShape = nil
                }
                if let seen = inner {
                    guard seen == elementShape else { return nil }
                } else {
                    inner = .some(elementShape)
                }
            }
            return [elements.count] + ((inner ?? nil) ?? [])
        }
        return shape(elements) != nil
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09 ... 0x0D).contains(byte)
    }
}
