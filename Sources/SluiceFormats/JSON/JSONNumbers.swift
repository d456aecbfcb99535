import SluiceCore

/// Number conversions for the JSON decoder: literals to integers, floats and exact decimals,
/// numeric strings as RisingWave's relaxed numeric handling reads them, and floats back to text.
enum JSONNumbers {
    /// The value of an integer literal (no fraction, no exponent), or nil beyond `Int64`.
    @inline(__always)
    static func integer(_ literal: JSONScanner.NumberLiteral) -> Int64? {
        guard literal.digitCount <= 19 else { return nil }
        if literal.isNegative {
            guard literal.digits <= UInt64(Int64.max) + 1 else { return nil }
            return Int64(truncatingIfNeeded: 0 &- literal.digits)
        }
        guard literal.digits <= UInt64(Int64.max) else { return nil }
        return Int64(literal.digits)
    }

    private static let powersOfTen: [Double] = (0 ... 22).map { exponent in
        var value = 1.0
        for _ in 0 ..< exponent { value *= 10 }
        return value
    }

    /// The nearest `Double` to a number literal. Literals with at most 15 significant digits
    /// and a decimal exponent within ±22 are exact products of two exact doubles (Clinger's
    /// fast path); the rest go through the standard library's correctly rounded parser.
    static func double(_ literal: JSONScanner.NumberLiteral, text: UnsafeBufferPointer<UInt8>) -> Double {
        if literal.digitCount <= 15 && literal.exponent >= -22 && literal.exponent <= 22 {
            var value = Double(literal.digits)
            if literal.exponent < 0 {
                value /= powersOfTen[-literal.exponent]
            } else {
                value *= powersOfTen[literal.exponent]
            }
            return literal.isNegative ? -value : value
        }
        return Double(String(decoding: text, as: UTF8.self)) ?? .nan
    }

    /// The nearest `Float` to a number literal (fast path for 7 digits and exponents within ±10).
    static func float(_ literal: JSONScanner.NumberLiteral, text: UnsafeBufferPointer<UInt8>) -> Float {
        if literal.digitCount <= 7 && literal.exponent >= -10 && literal.exponent <= 10 {
            var value = Float(literal.digits)
            if literal.exponent < 0 {
                value /= Float(powersOfTen[-literal.exponent])
            } else {
                value *= Float(powersOfTen[literal.exponent])
            }
            return literal.isNegative ? -value : value
        }
        return Float(String(decoding: text, as: UTF8.self)) ?? .nan
    }

    /// An integer in a string as Rust's `str::parse::<i64>` reads it: an optional sign, then
    /// one or more ASCII digits, nothing else. Nil when malformed or beyond `Int64`.
    static func parseIntegerText(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < bytes.count else { return nil }
        var magnitude: UInt64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (shifted, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = next
            index += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return Int64(truncatingIfNeeded: 0 &- magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// Whether `bytes` is a decimal float literal as Rust's `str::parse::<f64>` takes it:
    /// `[+-]digits[.digits][(e|E)[+-]digits]`, with digits allowed on either side of the point.
    private static func isFloatLiteral(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        var mantissaDigits = 0
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1; mantissaDigits += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1; mantissaDigits += 1 }
        }
        guard mantissaDigits > 0 else { return false }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let exponentStart = index
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            guard index > exponentStart else { return false }
        }
        return index == bytes.count
    }

    /// `inf`, `infinity` and `nan` in any case, with an optional sign, as Rust reads them.
    private static func specialFloat(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard bytes.count <= 9 else { return nil }
        var word = String(decoding: bytes, as: UTF8.self).lowercased()
        var negative = false
        if word.hasPrefix("+") || word.hasPrefix("-") {
            negative = word.hasPrefix("-")
            word.removeFirst()
        }
        switch word {
        case "inf", "infinity": return negative ? -.infinity : .infinity
        case "nan": return .nan
        default: return nil
        }
    }

    /// A `double precision` in a string (`"3.14"`, `"1e5"`, `"-inf"`, `"NaN"`), or nil.
    static func parseDoubleText(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        if let special = specialFloat(bytes) { return special }
        guard isFloatLiteral(bytes) else { return nil }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    /// A `real` in a string, or nil.
    static func parseFloatText(_ bytes: UnsafeBufferPointer<UInt8>) -> Float? {
        if let special = specialFloat(bytes) { return Float(special) }
        guard isFloatLiteral(bytes) else { return nil }
        return Float(String(decoding: bytes, as: UTF8.self))
    }

    /// The exact value of a JSON number literal as a ``Decimal``: every digit kept, the scale
    /// being the number of fractional digits written minus the exponent (never below zero), as
    /// `numeric_in` reads it (`1.50` → 1.50, `1e3` → 1000, `1.5e-3` → 0.0015).
    static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) throws(SluiceError) -> Decimal {
        var index = 0
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var mantissa: Int128 = 0
        var significantDigits = 0
        var fractionDigits = 0
        var inFraction = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte &- UInt8(ascii: "0") < 10 {
                let digit = Int128(byte &- UInt8(ascii: "0"))
                if significantDigits > 0 || digit != 0 {
                    significantDigits += 1
                    guard significantDigits <= Decimal.maximumDigits else { throw Decimal.overflowError }
                    mantissa = mantissa * 10 + digit
                }
                if inFraction { fractionDigits += 1 }
            } else {
                break
            }
            index += 1
        }
        var exponent = 0
        if index < bytes.count {  // 'e' or 'E' (the scanner checked the literal's shape)
            index += 1
            var exponentNegative = false
            if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            while index < bytes.count {
                exponent = min(exponent * 10 + Int(bytes[index] &- UInt8(ascii: "0")), 100_000)
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        let power = exponent - fractionDigits
        let scale = max(-power, 0)
        let zeros = max(power, 0)
        if mantissa != 0 {
            guard significantDigits + zeros <= Decimal.maximumDigits else { throw Decimal.overflowError }
            mantissa *= Decimal.powerOfTen(zeros)
        }
        return try Decimal(checkedMantissa: negative ? -mantissa : mantissa, scale: min(scale, Int(Int16.max) + 1))
    }

    /// A finite `Double` as text in shortest round-trip digits, laid out as Rust's `ryu` crate
    /// (which RisingWave's JSON values print through) lays them out: `1.5`, `1000.0`, `1e16`,
    /// `0.0001`, `1e-7`, `1.2345e-7`.
    static func shortestText(_ value: Double) -> [UInt8] {
        var out: [UInt8] = []
        if value.sign == .minus { out.append(UInt8(ascii: "-")) }
        if value == 0 {
            out.append(contentsOf: "0.0".utf8)
            return out
        }
        let shortest = FloatingDigits(value)
        let digits = shortest.digits.map { $0 + UInt8(ascii: "0") }
        let length = digits.count
        let pointPosition = shortest.exponent  // value = 0.d1d2… × 10^pointPosition
        let zero = UInt8(ascii: "0")
        if pointPosition >= length && pointPosition <= 16 {
            out.append(contentsOf: digits)
            out.append(contentsOf: repeatElement(zero, count: pointPosition - length))
            out.append(contentsOf: ".0".utf8)
        } else if pointPosition > 0 && pointPosition <= 16 {
            out.append(contentsOf: digits[..<pointPosition])
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: digits[pointPosition...])
        } else if pointPosition > -5 && pointPosition <= 0 {
            out.append(contentsOf: "0.".utf8)
            out.append(contentsOf: repeatElement(zero, count: -pointPosition))
            out.append(contentsOf: digits)
        } else {
            out.append(digits[0])
            if length > 1 {
                out.append(UInt8(ascii: "."))
                out.append(contentsOf: digits[1...])
            }
            out.append(UInt8(ascii: "e"))
            out.append(contentsOf: String(pointPosition - 1).utf8)
        }
        return out
    }
}
