/// Rounding and typmod coercion of ``Decimal`` values, as `numeric_round`, `numeric_trunc`,
/// `numeric_ceil`, `numeric_floor` and `apply_typmod` do them.
extension Decimal {
    /// How to drop digits.
    package enum RoundingRule: Sendable {
        /// Half away from zero (`round`).
        case halfAwayFromZero
        /// Toward zero (`trunc`).
        case towardZero
        /// Toward positive infinity (`ceil`).
        case up
        /// Toward negative infinity (`floor`).
        case down
    }

    /// The value rounded to `scale` fractional digits (negative: to tens, hundreds, …).
    ///
    /// The result's scale is `max(scale, 0)`, so `round(1.2, 3)` is `1.200` as in Postgres.
    package func rounded(scale newScale: Int, rule: RoundingRule = .halfAwayFromZero) throws(SluiceError) -> Decimal {
        if isSpecial { return self }
        let target = max(newScale, 0)
        if newScale >= Int(scale) { return try rescaled(to: target) }
        let dropped = Int(scale) - newScale
        guard dropped <= Decimal.maximumDigits else {
            // Every digit goes; only ceil/floor of a nonzero value can leave a unit.
            let unit = newScale < 0 ? Int128(0) : 1
            switch rule {
            case .up where mantissa > 0, .down where mantissa < 0:
                guard newScale >= -Decimal.maximumDigits else { throw Decimal.overflowError }
                let one = newScale >= 0 ? unit : Decimal.powerOfTen(-newScale)
                return try Decimal(checkedMantissa: mantissa > 0 ? one : -one, scale: target)
            default:
                return Decimal(mantissa: 0, scale: Int16(target))
            }
        }
        let divisor = Decimal.powerOfTen(dropped)
        var quotient = mantissa / divisor
        let remainder = mantissa % divisor
        if remainder != 0 {
            switch rule {
            case .halfAwayFromZero:
                if remainder.magnitude >= (divisor.magnitude + 1) / 2 { quotient += mantissa < 0 ? -1 : 1 }
            case .towardZero:
                break
            case .up:
                if remainder > 0 { quotient += 1 }
            case .down:
                if remainder < 0 { quotient -= 1 }
            }
        }
        if newScale < 0 {
            let (product, overflow) = quotient.multipliedReportingOverflow(by: Decimal.powerOfTen(-newScale))
            guard !overflow else { throw Decimal.overflowError }
            return try Decimal(checkedMantissa: product, scale: 0)
        }
        return try Decimal(checkedMantissa: quotient, scale: newScale)
    }

    /// `trunc(x, scale)`.
    package func truncated(scale newScale: Int = 0) throws(SluiceError) -> Decimal {
        try rounded(scale: newScale, rule: .towardZero)
    }

    /// `ceil(x)`: the smallest integer not below the value, at scale 0.
    package func ceiling() throws(SluiceError) -> Decimal {
        try rounded(scale: 0, rule: .up)
    }

    /// `floor(x)`: the largest integer not above the value, at scale 0.
    package func floor() throws(SluiceError) -> Decimal {
        try rounded(scale: 0, rule: .down)
    }

    /// The value coerced to `numeric(precision, scale)`: rounded half away from zero to
    /// `scale` digits, then checked to have at most `precision - scale` integer digits.
    ///
    /// Throws `numericValueOutOfRange` with Postgres's `numeric field overflow` message and
    /// detail when it does not fit.
    package func coerced(precision: Int, scale newScale: Int) throws(SluiceError) -> Decimal {
        if isNaN { return self }
        if isInfinite {
            throw SluiceError(
                .numericValueOutOfRange, "numeric field overflow",
                detail: "A field with precision \(precision), scale \(newScale) cannot hold an infinite value.")
        }
        let rounded = try self.rounded(scale: newScale)
        let integerDigits = precision - newScale
        // |value| must be below 10^integerDigits.
        let digitCount = rounded.mantissa == 0 ? 0 : String(rounded.mantissa.magnitude).utf8.count
        if digitCount - Int(rounded.scale) > integerDigits {
            let detail = integerDigits > 0
                ? "A field with precision \(precision), scale \(newScale) must round to an absolute value less than 10^\(integerDigits)."
                : "A field with precision \(precision), scale \(newScale) must round to an absolute value less than 1."
            throw SluiceError(.numericValueOutOfRange, "numeric field overflow", detail: detail)
        }
        return rounded
    }
}
