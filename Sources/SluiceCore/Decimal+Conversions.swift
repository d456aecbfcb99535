/// Conversions between ``Decimal`` and the machine number types, with Postgres's rounding
/// and range errors.
extension Decimal {
    /// The integer nearest the value, half away from zero (`numeric_int8`); throws
    /// `bigint out of range` when it does not fit.
    package func int64Value() throws(SluiceError) -> Int64 {
        try integerValue(typeName: "bigint")
    }

    /// The integer nearest the value as `Int32` (`numeric_int4`).
    package func int32Value() throws(SluiceError) -> Int32 {
        Int32(try integerValue(typeName: "integer", range: Int64(Int32.min) ... Int64(Int32.max)))
    }

    /// The integer nearest the value as `Int16` (`numeric_int2`).
    package func int16Value() throws(SluiceError) -> Int16 {
        Int16(try integerValue(typeName: "smallint", range: Int64(Int16.min) ... Int64(Int16.max)))
    }

    private func integerValue(typeName: String, range: ClosedRange<Int64> = Int64.min ... Int64.max) throws(SluiceError) -> Int64 {
        let outOfRange = SluiceError(.numericValueOutOfRange, "\(typeName) out of range")
        if isNaN { throw SluiceError(.featureNotSupported, "cannot convert NaN to \(typeName)") }
        if isInfinite { throw SluiceError(.featureNotSupported, "cannot convert infinity to \(typeName)") }
        let whole: Decimal
        do { whole = try rounded(scale: 0) } catch { throw outOfRange }
        guard let value = Int64(exactly: whole.mantissa), range.contains(value) else { throw outOfRange }
        return value
    }

    /// The nearest `Double` (`numeric_float8`, which reads the value's text with `strtod`).
    package var doubleValue: Double {
        if isSpecial { return isNaN ? .nan : Double(mantissa) * .infinity }
        return Double(textForm) ?? .nan
    }

    /// The nearest `Float` (`numeric_float4`).
    package var floatValue: Float {
        if isSpecial { return isNaN ? .nan : Float(mantissa) * .infinity }
        return Float(textForm) ?? .nan
    }

    /// The value of a `Double` rounded to 15 significant digits, as Postgres's `float8::numeric`
    /// (`float8_numeric` prints with `%.15g` and parses the text).
    /// `NaN` and the infinities map to their numeric counterparts.
    package init(_ double: Double) throws(SluiceError) {
        try self.init(double, significantDigits: 15)
    }

    /// The value of a `Float` rounded to 6 significant digits (`float4_numeric`, `%.6g`).
    package init(_ float: Float) throws(SluiceError) {
        try self.init(Double(float), significantDigits: 6, shortest: FloatingDigits(float))
    }

    private init(_ double: Double, significantDigits: Int, shortest: FloatingDigits? = nil) throws(SluiceError) {
        if double.isNaN { self = .nan; return }
        if double.isInfinite { self = double < 0 ? .negativeInfinity : .infinity; return }
        var digits = shortest ?? FloatingDigits(double)
        digits.round(toSignificantDigits: significantDigits, exact: double)
        // value = 0.d1d2… × 10^exponent
        let fractionDigits = max(digits.digits.count - digits.exponent, 0)
        var mantissa: Int128 = 0
        let integerPlaces = digits.exponent - digits.digits.count
        for digit in digits.digits { mantissa = mantissa * 10 + Int128(digit) }
        if integerPlaces > 0 {
            guard integerPlaces <= Decimal.maximumDigits else { throw Decimal.overflowError }
            let (product, overflow) = mantissa.multipliedReportingOverflow(by: Decimal.powerOfTen(integerPlaces))
            guard !overflow else { throw Decimal.overflowError }
            mantissa = product
        }
        if digits.isNegative { mantissa = -mantissa }
        try self.init(checkedMantissa: mantissa, scale: fractionDigits)
    }

    /// The shortest decimal that reads back as `double` (its round-trip digits, as `float8out`
    /// prints them), or nil for non-finite values and values needing more than 38 digits.
    package init?(exactly double: Double) {
        guard double.isFinite else { return nil }
        let digits = FloatingDigits(double)
        var mantissa: Int128 = 0
        for digit in digits.digits { mantissa = mantissa * 10 + Int128(digit) }
        let integerPlaces = digits.exponent - digits.digits.count
        var scale = 0
        if integerPlaces > 0 {
            guard integerPlaces <= Decimal.maximumDigits - digits.digits.count else { return nil }
            mantissa *= Decimal.powerOfTen(integerPlaces)
        } else {
            scale = -integerPlaces
        }
        if digits.isNegative { mantissa = -mantissa }
        guard let value = try? Decimal(checkedMantissa: mantissa, scale: scale), value.doubleValue == double else { return nil }
        self = value
    }
}

/// Running totals for `sum` and `avg` over numeric values.
///
/// Postgres's `numeric_avg` returns `sum / count` with the ordinary division scale rule,
/// so the average of the integers 1 and 2 is `1.5000000000000000`.
package struct DecimalAccumulator: Sendable, Hashable {
    /// The running sum; its scale is the largest scale seen.
    package private(set) var sum: Decimal = .zero
    /// The number of values added.
    package private(set) var count: Int64 = 0

    package init() {}

    /// Adds one value.
    package mutating func add(_ value: Decimal) throws(SluiceError) {
        sum = try Decimal.adding(sum, value)
        count += 1
    }

    /// Removes one value that was added before (for retractions in streaming aggregates).
    package mutating func remove(_ value: Decimal) throws(SluiceError) {
        sum = try Decimal.subtracting(sum, value)
        count -= 1
    }

    /// Folds another accumulator in (for partial aggregates).
    package mutating func merge(_ other: DecimalAccumulator) throws(SluiceError) {
        sum = try Decimal.adding(sum, other.sum)
        count += other.count
    }

    /// `sum(x)`, or nil when nothing was added.
    package var total: Decimal? { count == 0 ? nil : sum }

    /// `avg(x)`, or nil when nothing was added.
    package func average() throws(SluiceError) -> Decimal? {
        guard count > 0 else { return nil }
        return try Decimal.dividing(sum, Decimal(count))
    }
}
