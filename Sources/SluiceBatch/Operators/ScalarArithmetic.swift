import SluiceCore
import SluiceExpr

/// Value-level arithmetic for the generic aggregate path.
enum ScalarArithmetic {
    static func widenForSum(_ value: Value) throws(SluiceError) -> Value {
        switch value {
        case .int16(let v): .int64(Int64(v))
        case .int32(let v): .int64(Int64(v))
        case .int64(let v): .decimal(Decimal(v))
        case .float32(let v): .float64(Double(v))
        default: value
        }
    }

    static func add(_ sum: Value, _ value: Value) throws(SluiceError) -> Value {
        switch (sum, try widenForSum(value)) {
        case (.int64(let a), .int64(let b)):
            let (result, overflow) = a.addingReportingOverflow(b)
            if overflow { throw SluiceError(.numericValueOutOfRange, "bigint out of range") }
            return .int64(result)
        case (.decimal(let a), .decimal(let b)): return .decimal(try NumericDivision.add(a, b))
        case (.float64(let a), .float64(let b)): return .float64(a + b)
        case (.interval(let a), .interval(let b)):
            return .interval(Interval(months: a.months &+ b.months, days: a.days &+ b.days, microseconds: a.microseconds &+ b.microseconds))
        default: throw SluiceError.internalError("cannot add \(sum) and \(value)")
        }
    }

    static func average(_ sum: Value, count: Int64) throws(SluiceError) -> Value {
        switch sum {
        case .int64(let total): .decimal(try NumericDivision.divide(Decimal(total), Decimal(count)))
        case .decimal(let total): .decimal(try NumericDivision.divide(total, Decimal(count)))
        case .float64(let total): .float64(total / Double(count))
        case .interval(let total):
            .interval(Interval(months: 0, days: 0, microseconds: Int64((Double(ValueOrdering.intervalKey(total)) / Double(count)).rounded())))
        default: sum
        }
    }

    /// `value` in the physical layout of `type`.
    static func convert(_ value: Value, to type: DataType) throws(SluiceError) -> Value {
        switch (value, type) {
        case (.null, _): .null
        case (.int64(let v), .decimal): .decimal(Decimal(v))
        case (.int64(let v), .int32): .int32(Int32(truncatingIfNeeded: v))
        case (.float64(let v), .float32): .float32(Float(v))
        default: value
        }
    }
}

/// Orders scalar values of the same type.
enum ScalarOrdering {
    static func compare(_ a: Value, _ b: Value) -> Int {
        switch (a, b) {
        case (.bool(let x), .bool(let y)): ValueOrdering.order(x ? 1 : 0, y ? 1 : 0)
        case (.int16(let x), .int16(let y)): ValueOrdering.order(x, y)
        case (.int32(let x), .int32(let y)), (.date(let x), .date(let y)): ValueOrdering.order(x, y)
        case (.int64(let x), .int64(let y)), (.time(let x), .time(let y)), (.timestamp(let x), .timestamp(let y)),
            (.timestamptz(let x), .timestamptz(let y)):
            ValueOrdering.order(x, y)
        case (.float32(let x), .float32(let y)): ValueOrdering.floatOrder(Double(x), Double(y))
        case (.float64(let x), .float64(let y)): ValueOrdering.floatOrder(x, y)
        case (.decimal(let x), .decimal(let y)): Decimal.compare(x, y)
        case (.interval(let x), .interval(let y)): ValueOrdering.intervalOrder(x, y)
        case (.string(let x), .string(let y)):
            x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (x == y ? 0 : 1)
        default:
            a.textForm.utf8.lexicographicallyPrecedes(b.textForm.utf8) ? -1 : (a == b ? 0 : 1)
        }
    }
}

/// Exact decimal addition and division with Postgres's result scales.
enum NumericDivision {
    static let outOfRange = SluiceError(.numericValueOutOfRange, "value overflows numeric format")

    static func scaled(_ value: Decimal, to scale: Int16) throws(SluiceError) -> Int128 {
        var mantissa = value.mantissa
        for _ in 0 ..< Int(scale - value.scale) {
            let (product, overflow) = mantissa.multipliedReportingOverflow(by: 10)
            if overflow { throw outOfRange }
            mantissa = product
        }
        return mantissa
    }

    static func add(_ a: Decimal, _ b: Decimal) throws(SluiceError) -> Decimal {
        let scale = max(a.scale, b.scale)
        let (sum, overflow) = try scaled(a, to: scale).addingReportingOverflow(try scaled(b, to: scale))
        if overflow { throw outOfRange }
        return Decimal(mantissa: sum, scale: scale)
    }

    /// `a / b` with Postgres's `select_div_scale`: at least 16 significant digits, never fewer
    /// fractional digits than either operand; rounded half away from zero.
    static func divide(_ a: Decimal, _ b: Decimal) throws(SluiceError) -> Decimal {
        if b.mantissa == 0 { throw SluiceError(.divisionByZero, "division by zero") }
        let (weightA, firstA) = baseTenThousandWeight(a)
        let (weightB, firstB) = baseTenThousandWeight(b)
        var quotientWeight = weightA - weightB
        if firstA < firstB { quotientWeight -= 1 }
        var scale = 16 - quotientWeight * 4
        scale = max(scale, Int(a.scale), Int(b.scale), 0)
        scale = min(scale, 1000)
        // a / b at `scale`: (a.m × 10^(scale + b.s − a.s)) / b.m, rounded.
        let shift = scale + Int(b.scale) - Int(a.scale)
        var numerator = a.mantissa
        var denominator = b.mantissa
        if shift >= 0 {
            for _ in 0 ..< shift {
                let (product, overflow) = numerator.multipliedReportingOverflow(by: 10)
                if overflow { throw outOfRange }
                numerator = product
            }
        } else {
            for _ in 0 ..< -shift {
                let (product, overflow) = denominator.multipliedReportingOverflow(by: 10)
                if overflow { throw outOfRange }
                denominator = product
            }
        }
        var quotient = numerator / denominator
        let remainder = numerator % denominator
        if remainder.magnitude * 2 >= denominator.magnitude {
            quotient += (numerator < 0) != (denominator < 0) ? -1 : 1
        }
        return Decimal(mantissa: quotient, scale: Int16(scale))
    }

    /// The base-10000 weight of the leading digit group and that group's value.
    private static func baseTenThousandWeight(_ value: Decimal) -> (Int, Int128) {
        let magnitude = value.mantissa.magnitude
        if magnitude == 0 { return (0, 0) }
        // Digits before the decimal point group into 4s from the point; after it likewise.
        var digits = String(magnitude)
        let scale = Int(value.scale)
        var integerDigits = digits.count - scale
        if integerDigits <= 0 {
            digits = String(repeating: "0", count: -integerDigits + 1) + digits
            integerDigits = 1
        }
        let integerPart = String(digits.prefix(integerDigits))
        let fractionPart = String(digits.dropFirst(integerDigits))
        if let integer = UInt128(integerPart), integer > 0 {
            let groups = (integerPart.drop { $0 == "0" }.count + 3) / 4
            let leadingLength = integerPart.drop { $0 == "0" }.count - (groups - 1) * 4
            let leading = Int128(String(integerPart.drop { $0 == "0" }.prefix(leadingLength))) ?? 0
            return (groups - 1, leading)
        }
        // Purely fractional: find the first non-zero group of four digits after the point.
        let padded = fractionPart + String(repeating: "0", count: (4 - fractionPart.count % 4) % 4)
        var weight = -1
        var index = padded.startIndex
        while index < padded.endIndex {
            let end = padded.index(index, offsetBy: 4)
            let group = Int128(padded[index ..< end]) ?? 0
            if group != 0 { return (weight, group) }
            weight -= 1
            index = end
        }
        return (0, 0)
    }
}
