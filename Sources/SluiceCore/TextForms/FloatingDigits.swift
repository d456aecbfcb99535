/// The shortest decimal digits that read back as a given binary floating-point value, and
/// Postgres's way of printing them (`float8out`/`float4out` with `extra_float_digits > 0`,
/// which use Ryu's shortest round-trip output).
package struct FloatingDigits: Sendable, Hashable {
    /// Whether the sign bit is set (so `-0` prints as `-0`).
    package var isNegative: Bool
    /// Significant digits without leading or trailing zeros, each 0…9; empty for zero.
    package var digits: [UInt8]
    /// The value is `0.d1d2d3… × 10^exponent`.
    package var exponent: Int

    /// The shortest round-trip digits of a finite `Double`.
    package init(_ value: Double) {
        self.init(parsing: value.magnitude.description, isNegative: value.sign == .minus)
    }

    /// The shortest round-trip digits of a finite `Float`.
    package init(_ value: Float) {
        self.init(parsing: value.magnitude.description, isNegative: value.sign == .minus)
    }

    /// Reads Swift's shortest round-trip `description` (`123.45`, `1e-05`, `1.5e+20`).
    private init(parsing text: String, isNegative: Bool) {
        self.isNegative = isNegative
        var digits: [UInt8] = []
        var pointPosition: Int?
        var exponentPart = 0
        var bytes = Array(text.utf8)[...]
        if let eIndex = bytes.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            exponentPart = Int(String(decoding: bytes[(eIndex + 1)...].filter { $0 != UInt8(ascii: "+") }, as: UTF8.self)) ?? 0
            bytes = bytes[..<eIndex]
        }
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                pointPosition = digits.count
            } else {
                digits.append(byte - UInt8(ascii: "0"))
            }
        }
        var exponent = (pointPosition ?? digits.count) + exponentPart
        while let first = digits.first, first == 0 {
            digits.removeFirst()
            exponent -= 1
        }
        while let last = digits.last, last == 0 { digits.removeLast() }
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : exponent
    }

    /// Postgres's text: plain notation for decimal exponents in `-4 ..< fixedLimit`
    /// (15 for `float8`, 6 for `float4`), else `d.ddde±XX` with at least two exponent digits.
    package func postgresText(fixedLimit: Int) -> String {
        var out = isNegative ? "-" : ""
        if digits.isEmpty { return out + "0" }
        let scientificExponent = exponent - 1
        let ascii = digits.map { Character(Unicode.Scalar($0 + UInt8(ascii: "0"))) }
        if scientificExponent < -4 || scientificExponent >= fixedLimit {
            out.append(ascii[0])
            if ascii.count > 1 {
                out.append(".")
                out.append(contentsOf: ascii[1...])
            }
            out.append(scientificExponent < 0 ? "e-" : "e+")
            let magnitude = abs(scientificExponent)
            if magnitude < 10 { out.append("0") }
            out.append(String(magnitude))
        } else if exponent <= 0 {
            out.append("0.")
            out.append(String(repeating: "0", count: -exponent))
            out.append(contentsOf: ascii)
        } else if exponent >= ascii.count {
            out.append(contentsOf: ascii)
            out.append(String(repeating: "0", count: exponent - ascii.count))
        } else {
            out.append(contentsOf: ascii[..<exponent])
            out.append(".")
            out.append(contentsOf: ascii[exponent...])
        }
        return out
    }
}

extension Double {
    /// Postgres's text for a `double precision` (`float8out`).
    package var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return FloatingDigits(self).postgresText(fixedLimit: 15)
    }
}

extension Float {
    /// Postgres's text for a `real` (`float4out`).
    package var postgresText: String {
        if isNaN { return "NaN" }
        if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
        return FloatingDigits(self).postgresText(fixedLimit: 6)
    }
}
