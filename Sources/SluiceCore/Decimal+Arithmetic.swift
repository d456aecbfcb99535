/// Exact arithmetic on ``Decimal`` with Postgres's result scales.
///
/// Every operation either returns the exact (or, for division and rounding, the correctly
/// rounded) result or throws `numericValueOutOfRange` when it needs more than
/// ``Decimal/maximumDigits`` significant digits.
extension Decimal {
    /// The most decimal digits a mantissa may hold.
    package static let maximumDigits = 38

    /// The largest mantissa magnitude: 38 nines (a literal, so it is initialized statically).
    package static let maximumMantissa: Int128 = 99_999_999_999_999_999_999_999_999_999_999_999_999

    /// The error Postgres raises when a result does not fit (`value overflows numeric format`).
    package static var overflowError: SluiceError {
        SluiceError(.numericValueOutOfRange, "value overflows numeric format")
    }

    /// `10^0 … 10^38`.
    private static let powersOfTen: [Int128] = [
        1, 10, 100,
        1000, 10000, 100000,
        1000000, 10000000, 100000000,
        1000000000, 10000000000, 100000000000,
        1000000000000, 10000000000000, 100000000000000,
        1000000000000000, 10000000000000000, 100000000000000000,
        1000000000000000000, 10000000000000000000, 100000000000000000000,
        1000000000000000000000, 10000000000000000000000, 100000000000000000000000,
        1000000000000000000000000, 10000000000000000000000000, 100000000000000000000000000,
        1000000000000000000000000000, 10000000000000000000000000000, 100000000000000000000000000000,
        1000000000000000000000000000000, 10000000000000000000000000000000, 100000000000000000000000000000000,
        1000000000000000000000000000000000, 10000000000000000000000000000000000, 100000000000000000000000000000000000,
        1000000000000000000000000000000000000, 10000000000000000000000000000000000000, 100000000000000000000000000000000000000
    ]

    /// `10^exponent` for `0 ... 38`.
    @inline(__always)
    package static func powerOfTen(_ exponent: Int) -> Int128 {
        powersOfTen[exponent]
    }

    /// This value with its scale raised to `newScale`; throws if the mantissa overflows.
    /// A `newScale` below the current scale is a bug (use ``rounded(scale:)``).
    package func rescaled(to newScale: Int) throws(SluiceError) -> Decimal {
        if isSpecial { return self }
        let increase = newScale - Int(scale)
        guard increase > 0 else { return self }
        guard increase <= Decimal.maximumDigits, newScale <= Int(Int16.max) else {
            if mantissa == 0 { return Decimal(mantissa: 0, scale: Int16(clamping: newScale)) }
            throw Decimal.overflowError
        }
        let (product, overflow) = mantissa.multipliedReportingOverflow(by: Decimal.powerOfTen(increase))
        guard !overflow else { throw Decimal.overflowError }
        return try Decimal(checkedMantissa: product, scale: newScale)
    }

    /// A decimal whose mantissa is checked against the 38-digit limit.
    package init(checkedMantissa mantissa: Int128, scale: Int) throws(SluiceError) {
        guard mantissa.magnitude <= Decimal.maximumMantissa.magnitude, scale <= Int(Int16.max), scale >= 0 else {
            throw Decimal.overflowError
        }
        self.init(mantissa: mantissa, scale: Int16(scale))
    }

    /// Whether the value is below zero.
    package var isNegative: Bool { mantissa < 0 }

    /// -1, 0 or 1 by the sign of the value.
    package var signum: Int { mantissa < 0 ? -1 : (mantissa == 0 ? 0 : 1) }

    /// The sum, at the larger of the two scales (`numeric_add`).
    package static func adding(_ lhs: Decimal, _ rhs: Decimal) throws(SluiceError) -> Decimal {
        if lhs.isSpecial || rhs.isSpecial {
            if lhs.isNaN || rhs.isNaN { return .nan }
            if lhs.isInfinite, rhs.isInfinite { return lhs.mantissa == rhs.mantissa ? lhs : .nan }
            return lhs.isInfinite ? lhs : rhs
        }
        if lhs.scale == rhs.scale {
            let (sum, overflow) = lhs.mantissa.addingReportingOverflow(rhs.mantissa)
            guard !overflow, sum.magnitude <= Decimal.maximumMantissa.magnitude else { throw overflowError }
            return Decimal(mantissa: sum, scale: lhs.scale)
        }
        let scale = max(Int(lhs.scale), Int(rhs.scale))
        let left = try lhs.rescaled(to: scale), right = try rhs.rescaled(to: scale)
        let (sum, overflow) = left.mantissa.addingReportingOverflow(right.mantissa)
        guard !overflow else { throw overflowError }
        return try Decimal(checkedMantissa: sum, scale: scale)
    }

    /// The difference, at the larger of the two scales (`numeric_sub`).
    package static func subtracting(_ lhs: Decimal, _ rhs: Decimal) throws(SluiceError) -> Decimal {
        try adding(lhs, rhs.negated)
    }

    /// The product, at the sum of the two scales (`numeric_mul`).
    package static func multiplying(_ lhs: Decimal, _ rhs: Decimal) throws(SluiceError) -> Decimal {
        if lhs.isSpecial || rhs.isSpecial {
            // An infinity times zero is NaN; otherwise the signs multiply.
            if lhs.isNaN || rhs.isNaN || lhs.signum == 0 || rhs.signum == 0 { return .nan }
            return lhs.signum == rhs.signum ? .infinity : .negativeInfinity
        }
        let (product, overflow) = lhs.mantissa.multipliedReportingOverflow(by: rhs.mantissa)
        guard !overflow else { throw overflowError }
        return try Decimal(checkedMantissa: product, scale: Int(lhs.scale) + Int(rhs.scale))
    }

    /// The quotient, rounded half away from zero at the scale Postgres's `select_div_scale`
    /// picks: at least 16 significant digits and no less than either operand's scale.
    package static func dividing(_ lhs: Decimal, _ rhs: Decimal) throws(SluiceError) -> Decimal {
        if let special = try specialQuotient(lhs, rhs) { return special }
        guard rhs.mantissa != 0 else { throw SluiceError(.divisionByZero, "division by zero") }
        return try dividing(lhs, rhs, scale: divisionScale(lhs, rhs))
    }

    /// `numeric_div`'s answers when either side is special: NaN if either is NaN or both are
    /// infinite, an infinity over a nonzero number keeps its infinity (division by zero still
    /// fails), and a number over an infinity is zero.
    private static func specialQuotient(_ lhs: Decimal, _ rhs: Decimal) throws(SluiceError) -> Decimal? {
        guard lhs.isSpecial || rhs.isSpecial else { return nil }
        if lhs.isNaN || rhs.isNaN || (lhs.isInfinite && rhs.isInfinite) { return .nan }
        if rhs.isInfinite { return .zero }
        if rhs.signum == 0 { throw SluiceError(.divisionByZero, "division by zero") }
        return lhs.signum == rhs.signum ? .infinity : .negativeInfinity
    }

    /// The scale `select_div_scale` (numeric.c) gives the quotient `lhs / rhs`.
    package static func divisionScale(_ lhs: Decimal, _ rhs: Decimal) -> Int {
        // Postgres reasons in base-10000 digits: the weight of the first digit and its value.
        let (weight1, first1) = lhs.baseTenThousandLead
        let (weight2, first2) = rhs.baseTenThousandLead
        var quotientWeight = weight1 - weight2
        if first1 <= first2 { quotientWeight -= 1 }
        var scale = 16 - quotientWeight * 4
        scale = max(scale, Int(lhs.scale), Int(rhs.scale), 0)
        return min(scale, 1000)
    }

    /// The weight and value of the leading base-10000 digit, as Postgres's `NumericVar` holds
    /// them; `(0, 0)` for zero.
    package var baseTenThousandLead: (weight: Int, digit: Int) {
        guard mantissa != 0 else { return (0, 0) }
        let digits = Array(String(mantissa.magnitude).utf8)
        let exponent = digits.count - 1 - Int(scale)
        let weight = exponent >= 0 ? exponent / 4 : -((-exponent + 3) / 4)
        let width = exponent - 4 * weight + 1
        var value = 0
        for index in 0 ..< width {
            value = value * 10 + (index < digits.count ? Int(digits[index] - UInt8(ascii: "0")) : 0)
        }
        return (weight, value)
    }

    /// The quotient rounded half away from zero to `scale` fractional digits.
    package static func dividing(_ lhs: Decimal, _ rhs: Decimal, scale: Int) throws(SluiceError) -> Decimal {
        if let special = try specialQuotient(lhs, rhs) { return special }
        guard rhs.mantissa != 0 else { throw SluiceError(.divisionByZero, "division by zero") }
        // lhs/rhs = (m1 / m2) * 10^(s2 - s1); we need q = m1 * 10^(scale - s1 + s2) / m2.
        var shift = scale - Int(lhs.scale) + Int(rhs.scale)
        var numerator = lhs.mantissa.magnitude
        let divisor = rhs.mantissa.magnitude
        if shift < 0 {
            // Only when the requested scale is below the dividend's: fold the extra power into
            // the divisor side by dividing the numerator first would lose digits, so scale the
            // divisor instead when it fits.
            var wideDivisor = divisor
            while shift < 0 {
                let (product, overflow) = wideDivisor.multipliedReportingOverflow(by: 10)
                if overflow { return Decimal(mantissa: 0, scale: Int16(clamping: max(scale, 0))) }
                wideDivisor = product
                shift += 1
            }
            return try longDivision(numerator, wideDivisor, extraDigits: 0, negative: lhs.isNegative != rhs.isNegative, scale: scale)
        }
        if numerator == 0 { return Decimal(mantissa: 0, scale: Int16(clamping: scale)) }
        // Move as much of the shift as fits into the numerator; the rest runs as long division.
        while shift > 0 {
            let (product, overflow) = numerator.multipliedReportingOverflow(by: 10)
            if overflow { break }
            numerator = product
            shift -= 1
        }
        return try longDivision(numerator, divisor, extraDigits: shift, negative: lhs.isNegative != rhs.isNegative, scale: scale)
    }

    /// `numerator / divisor * 10^extraDigits`, rounded half away from zero, as a decimal of `scale`.
    private static func longDivision(_ numerator: UInt128, _ divisor: UInt128, extraDigits: Int, negative: Bool, scale: Int) throws(SluiceError) -> Decimal {
        var quotient = numerator / divisor
        var remainder = numerator % divisor
        for _ in 0 ..< extraDigits {
            let wide = remainder.multipliedFullWidth(by: 10)
            let (digit, rest) = divisor.dividingFullWidth(wide)
            let (shifted, overflow1) = quotient.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw overflowError }
            quotient = next
            remainder = rest
        }
        // remainder < divisor <= 2^127, so doubling cannot overflow.
        if remainder * 2 >= divisor { quotient += 1 }
        guard quotient <= UInt128(maximumMantissa) else { throw overflowError }
        let magnitude = Int128(quotient)
        return try Decimal(checkedMantissa: negative ? -magnitude : magnitude, scale: scale)
    }

    /// The remainder of truncating division, with the dividend's sign, at the larger scale
    /// (`numeric_mod`).
    package static func remainder(_ lhs: Decimal, _ rhs: Decimal) throws(SluiceError) -> Decimal {
        if lhs.isSpecial || rhs.isSpecial {
            // `numeric_mod`: NaN in, NaN out; an infinite dividend has no remainder (NaN,
            // division by zero still fails); a finite dividend over an infinity is itself.
            if lhs.isNaN || rhs.isNaN { return .nan }
            if lhs.isInfinite {
                if rhs.signum == 0 { throw SluiceError(.divisionByZero, "division by zero") }
                return .nan
            }
            return lhs
        }
        guard rhs.mantissa != 0 else { throw SluiceError(.divisionByZero, "division by zero") }
        let scale = max(Int(lhs.scale), Int(rhs.scale))
        let left = try lhs.rescaled(to: scale), right = try rhs.rescaled(to: scale)
        return Decimal(mantissa: left.mantissa % right.mantissa, scale: Int16(scale))
    }

    /// The value with the opposite sign.
    package var negated: Decimal { Decimal(mantissa: -mantissa, scale: scale) }

    /// The absolute value.
    package var magnitude: Decimal { Decimal(mantissa: mantissa < 0 ? -mantissa : mantissa, scale: scale) }
}
