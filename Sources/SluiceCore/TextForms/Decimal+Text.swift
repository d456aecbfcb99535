/// Postgres text forms of ``Decimal`` (`numeric_out`, `numeric_in`).
extension Decimal {
    /// The text Postgres prints: all `scale` fractional digits, no exponent (`1.50`, `-0.001`).
    package var textForm: String {
        if isSpecial { return isNaN ? "NaN" : (mantissa < 0 ? "-Infinity" : "Infinity") }
        var digits = String(mantissa.magnitude)
        let scale = Int(scale)
        if scale > 0 {
            if digits.utf8.count <= scale {
                digits = String(repeating: "0", count: scale - digits.utf8.count + 1) + digits
            }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -scale))
        }
        return mantissa < 0 ? "-" + digits : digits
    }

    /// Parses `numeric` input: optional sign, digits with an optional point, an optional
    /// exponent (`1.5`, `-.5`, `1e3`, ` 2.50 `). The scale is the number of fractional digits
    /// written minus the exponent, never below zero (`1e3` → `1000`, `1.5e-3` → `0.0015`).
    package init(parsingText text: String) throws(SluiceError) {
        let invalid = SluiceError(.invalidTextRepresentation, "invalid input syntax for type numeric: \"\(text)\"")
        let bytes = Array(text.utf8)
        var index = 0
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09 ... 0x0D).contains(byte) }
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var digits: [UInt8] = []
        var fractionDigits = 0
        var seenPoint = false
        var seenDigit = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                seenDigit = true
                if !(digits.isEmpty && byte == UInt8(ascii: "0")) { digits.append(byte - UInt8(ascii: "0")) }
                if seenPoint { fractionDigits += 1 }
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                break
            }
            index += 1
        }
        guard seenDigit else {
            // `numeric_in` takes NaN (unsigned) and the infinities, in any case.
            guard !seenPoint else { throw invalid }
            let signed = index > 0 && (bytes[index - 1] == UInt8(ascii: "+") || bytes[index - 1] == UInt8(ascii: "-"))
            switch String(decoding: bytes[index...], as: UTF8.self).lowercased().trimmingSpaces {
            case "nan" where !signed: self = .nan
            case "infinity", "inf": self = negative ? .negativeInfinity : .infinity
            default: throw invalid
            }
            return
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var exponentDigits = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                exponent = min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 100_000)
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0 else { throw invalid }
            if exponentNegative { exponent = -exponent }
        }
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        guard index == bytes.count else { throw invalid }
        // value = digits × 10^(exponent - fractionDigits)
        let power = exponent - fractionDigits
        let scale = max(-power, 0)
        let zeros = max(power, 0)
        guard digits.count + zeros <= Decimal.maximumDigits || digits.isEmpty else { throw Decimal.overflowError }
        var mantissa: Int128 = 0
        for digit in digits { mantissa = mantissa * 10 + Int128(digit) }
        if !digits.isEmpty { mantissa *= Decimal.powerOfTen(zeros) }
        try self.init(checkedMantissa: negative ? -mantissa : mantissa, scale: min(scale, Int(Int16.max) + 1))
    }
}

extension Decimal: CustomStringConvertible {
    /// The Postgres text form, as ``textForm``.
    package var description: String { textForm }
}
