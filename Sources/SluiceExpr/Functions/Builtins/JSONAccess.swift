import SluiceCore

/// The jsonb field and element operators `->` and `->>` on jsonb kept as normalized JSON text.
///
/// A small scanner finds value boundaries without building a tree: objects and arrays are
/// skipped by bracket depth (outside strings), so a lookup reads each byte at most once.
enum JSONAccess {
    /// `jsonb -> text` / `jsonb -> int` (as jsonb) and `->>` (as text).
    static func access(byIndex: Bool, asText: Bool) -> ScalarFunction {
        let symbol = asText ? "->>" : "->"
        let resultType: DataType = asText ? .varchar : .jsonb
        let keyType: DataType = byIndex ? .int32 : .varchar
        return ScalarFunction(name: symbol, argumentTypes: [.jsonb, keyType], resultType: resultType) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let documents = StringArgument(arguments[0])
            let keys = byIndex ? nil : StringArgument(arguments[1])
            let indexes = byIndex ? arguments[1].integerElements() : []
            return try Kernels.strings(arguments, rowCount: rowCount, type: resultType) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                documents.withBytes(rowIndex) { (document: UnsafeBufferPointer<UInt8>) -> Bool in
                    let found: Range<Int>?
                    if let keys {
                        found = keys.withBytes(rowIndex) { (key: UnsafeBufferPointer<UInt8>) in field(key, in: document) }
                    } else {
                        found = element(Int(clamping: indexes[rowIndex]), in: document)
                    }
                    guard let found else { return false }
                    let value = UnsafeBufferPointer(rebasing: document[found])
                    if asText {
                        if value.first == UInt8(ascii: "\"") { return unescapeString(value, to: &out) }
                        if value.elementsEqual("null".utf8) { return false }
                    }
                    out.append(contentsOf: value)
                    return true
                }
            }
        }
    }

    static func skipWhitespace(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> Int {
        var offset = offset
        while offset < bytes.count, bytes[offset] == 0x20 || bytes[offset] == 0x0A || bytes[offset] == 0x09 || bytes[offset] == 0x0D {
            offset += 1
        }
        return offset
    }

    /// The end of the JSON value starting at `start` (which must not be whitespace).
    static func valueEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var offset = start
            while offset < bytes.count {
                switch bytes[offset] {
                case UInt8(ascii: "\""):
                    offset = stringEnd(bytes, offset)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return offset + 1 }
                default:
                    break
                }
                offset += 1
            }
            return offset
        default:
            var offset = start
            while offset < bytes.count {
                switch bytes[offset] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x09, 0x0D: return offset
                default: offset += 1
                }
            }
            return offset
        }
    }

    /// The end of the string literal starting at the quote at `start`.
    static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var offset = start + 1
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "\\"): offset += 2
            case UInt8(ascii: "\""): return offset + 1
            default: offset += 1
            }
        }
        return bytes.count
    }

    /// The value of member `key` of the object `document`, or nil if it is not an object or has no such key.
    static func field(_ key: UnsafeBufferPointer<UInt8>, in document: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var offset = skipWhitespace(document, 0)
        guard offset < document.count, document[offset] == UInt8(ascii: "{") else { return nil }
        offset += 1
        var decodedKey: [UInt8] = []
        while true {
            offset = skipWhitespace(document, offset)
            guard offset < document.count, document[offset] == UInt8(ascii: "\"") else { return nil }
            let keyEnd = stringEnd(document, offset)
            let rawKey = UnsafeBufferPointer(rebasing: document[offset + 1 ..< max(offset + 1, keyEnd - 1)])
            let matches: Bool
            if rawKey.contains(UInt8(ascii: "\\")) {
                decodedKey.removeAll(keepingCapacity: true)
                _ = unescapeString(UnsafeBufferPointer(rebasing: document[offset ..< keyEnd]), to: &decodedKey)
                matches = decodedKey.elementsEqual(key)
            } else {
                matches = rawKey.elementsEqual(key)
            }
            offset = skipWhitespace(document, keyEnd)
            guard offset < document.count, document[offset] == UInt8(ascii: ":") else { return nil }
            offset = skipWhitespace(document, offset + 1)
            let end = valueEnd(document, offset)
            if matches { return offset ..< end }
            offset = skipWhitespace(document, end)
            guard offset < document.count, document[offset] == UInt8(ascii: ",") else { return nil }
            offset += 1
        }
    }

    /// Element `index` of the array `document` (from the end when negative), or nil.
    static func element(_ index: Int, in document: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var offset = skipWhitespace(document, 0)
        guard offset < document.count, document[offset] == UInt8(ascii: "[") else { return nil }
        offset = skipWhitespace(document, offset + 1)
        var elements: [Range<Int>] = []
        if offset < document.count, document[offset] == UInt8(ascii: "]") { return nil }
        while offset < document.count {
            let end = valueEnd(document, offset)
            elements.append(offset ..< end)
            if index >= 0 && elements.count > index { return elements[index] }
            offset = skipWhitespace(document, end)
            guard offset < document.count, document[offset] == UInt8(ascii: ",") else { break }
            offset = skipWhitespace(document, offset + 1)
        }
        let position = index >= 0 ? index : elements.count + index
        return position >= 0 && position < elements.count ? elements[position] : nil
    }

    /// Appends the contents of the JSON string literal `literal` (quotes included) with escapes resolved.
    @discardableResult
    static func unescapeString(_ literal: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> Bool {
        var offset = 1
        let end = max(1, literal.count - 1)
        while offset < end {
            let byte = literal[offset]
            guard byte == UInt8(ascii: "\\"), offset + 1 < end else {
                out.append(byte)
                offset += 1
                continue
            }
            let escaped = literal[offset + 1]
            offset += 2
            switch escaped {
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u"):
                var code = hexValue(literal, offset)
                offset += 4
                if (0xD800 ..< 0xDC00).contains(code), offset + 6 <= end, literal[offset] == UInt8(ascii: "\\"),
                    literal[offset + 1] == UInt8(ascii: "u")
                {
                    let low = hexValue(literal, offset + 2)
                    if (0xDC00 ..< 0xE000).contains(low) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        offset += 6
                    }
                }
                UTF8Bytes.append(Unicode.Scalar(code) ?? "\u{FFFD}", to: &out)
            default: out.append(escaped)
            }
        }
        return true
    }

    private static func hexValue(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in offset ..< min(offset + 4, bytes.count) {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: digit = 0
            }
            value = value << 4 | digit
        }
        return value
    }
}
