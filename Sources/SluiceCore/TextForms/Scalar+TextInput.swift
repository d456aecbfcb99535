/// Postgres text input of booleans, integers and floats (`boolin`, `int2in`/`int4in`/
/// `int8in`, `float4in`/`float8in`).
package enum ScalarText {
    /// `t`, `true`, `yes`, `on`, `1` and the false words, any case, any unique prefix
    /// (`tr`, `of`), surrounded by optional white space.
    package static func parseBool(_ text: String) throws(SluiceError) -> Bool {
        let word = text.trimmingSpaces.lowercased()
        func isPrefix(of candidate: String, minimum: Int = 1) -> Bool {
            word.utf8.count >= minimum && candidate.hasPrefix(word)
        }
        if word == "1" || isPrefix(of: "true") || isPrefix(of: "yes") || isPrefix(of: "on", minimum: 2) { return true }
        if word == "0" || isPrefix(of: "false") || isPrefix(of: "no") || isPrefix(of: "off", minimum: 2) { return false }
        throw SluiceError(.invalidTextRepresentation, "invalid input syntax for type boolean: \"\(text)\"")
    }

    /// An integer with optional sign and surrounding white space, checked against
    /// `range`; `typeName` is `smallint`, `integer` or `bigint`.
    package static func parseInteger(_ text: String, typeName: String, range: ClosedRange<Int64>) throws(SluiceError) -> Int64 {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count, CompositeText.isSpace(bytes[index]) { index += 1 }
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        // Accumulate negatively so Int64.min parses.
        var value: Int64 = 0
        var digitCount = 0
        var overflow = false
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(Int64(bytes[index] - UInt8(ascii: "0")))
            if overflow1 || overflow2 { overflow = true }
            value = next
            digitCount += 1
            index += 1
        }
        while index < bytes.count, CompositeText.isSpace(bytes[index]) { index += 1 }
        guard digitCount > 0, index == bytes.count else {
            throw SluiceError(.invalidTextRepresentation, "invalid input syntax for type \(typeName): \"\(text)\"")
        }
        let outOfRange = SluiceError(.numericValueOutOfRange, "value \"\(text)\" is out of range for type \(typeName)")
        guard !overflow else { throw outOfRange }
        if !negative {
            guard value != Int64.min else { throw outOfRange }
            value = -value
        }
        guard range.contains(value) else { throw outOfRange }
        return value
    }

    /// A `double precision`: decimal or exponent notation, `Infinity`, `inf`, `NaN`.
    package static func parseDouble(_ text: String) throws(SluiceError) -> Double {
        let trimmed = text.trimmingSpaces
        if let special = specialFloat(trimmed) { return special }
        guard isDecimalLiteral(trimmed), let value = Double(trimmed) else {
            throw SluiceError(.invalidTextRepresentation, "invalid input syntax for type double precision: \"\(text)\"")
        }
        if value.isInfinite || (value == 0 && hasNonzeroDigit(trimmed)) {
            throw SluiceError(.numericValueOutOfRange, "\"\(trimmed)\" is out of range for type double precision")
        }
        return value
    }

    /// A `real`, as ``parseDouble(_:)`` but at single precision.
    package static func parseFloat(_ text: String) throws(SluiceError) -> Float {
        let trimmed = text.trimmingSpaces
        if let special = specialFloat(trimmed) { return Float(special) }
        guard isDecimalLiteral(trimmed), let value = Float(trimmed) else {
            throw SluiceError(.invalidTextRepresentation, "invalid input syntax for type real: \"\(text)\"")
        }
        if value.isInfinite || (value == 0 && hasNonzeroDigit(trimmed)) {
            throw SluiceError(.numericValueOutOfRange, "\"\(trimmed)\" is out of range for type real")
        }
        return value
    }

    private static func specialFloat(_ text: String) -> Double? {
        switch text.lowercased() {
        case "nan", "+nan", "-nan": .nan
        case "infinity", "+infinity", "inf", "+inf": .infinity
        case "-infinity", "-inf": -.infinity
        default: nil
        }
    }

    /// `[+-]digits[.digits][e[+-]digits]` with at least one mantissa digit (what `strtod`
    /// accepts in decimal form).
    private static func isDecimalLiteral(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes.removeFirst() }
        var mantissaDigits = 0
        var seenPoint = false
        while let byte = bytes.first {
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                mantissaDigits += 1
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                break
            }
            bytes.removeFirst()
        }
        guard mantissaDigits > 0 else { return false }
        guard let marker = bytes.first else { return true }
        guard marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") else { return false }
        bytes.removeFirst()
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes.removeFirst() }
        return !bytes.isEmpty && bytes.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func hasNonzeroDigit(_ text: String) -> Bool {
        for byte in text.utf8 {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return false }
            if byte >= UInt8(ascii: "1"), byte <= UInt8(ascii: "9") { return true }
        }
        return false
    }
}
