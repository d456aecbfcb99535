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

/// Exact decimal sums and averages, with Postgres's result scales.
enum NumericDivision {
    static func add(_ a: Decimal, _ b: Decimal) throws(SluiceError) -> Decimal {
        try Decimal.adding(a, b)
    }

    static func divide(_ a: Decimal, _ b: Decimal) throws(SluiceError) -> Decimal {
        try Decimal.dividing(a, b)
    }
}
