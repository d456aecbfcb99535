import SluiceCore

/// The arithmetic of sum and avg accumulators over scalar values, shared by the batch
/// executor's generic aggregates and the stream aggregate (which also subtracts, for deletes).
///
/// Integers and numeric accumulate exactly as numeric, floats as double precision, intervals
/// as intervals; ``finish(_:as:)`` converts to the aggregate's result type (`sum(integer)` is
/// `bigint`, with Postgres's `bigint out of range` on overflow).
package enum AggregateArithmetic {
    /// `sum + value` (or `sum - value` when `sign` is negative); `sum` may be NULL (nothing yet).
    package static func add(_ sum: Value, _ value: Value, sign: Int64 = 1) throws(SluiceError) -> Value {
        let addend: Value
        switch value {
        case .int16(let v): addend = .decimal(Decimal(Int64(v)))
        case .int32(let v): addend = .decimal(Decimal(Int64(v)))
        case .int64(let v): addend = .decimal(Decimal(v))
        case .float32(let v): addend = .float64(Double(v))
        default: addend = value
        }
        switch (sum, addend) {
        case (.null, .decimal(let v)): return .decimal(sign > 0 ? v : v.negated)
        case (.null, .float64(let v)): return .float64(sign > 0 ? v : -v)
        case (.null, .interval(let v)): return .interval(sign > 0 ? v : try IntervalArithmetic.negate(v))
        case (.decimal(let total), .decimal(let v)):
            return .decimal(sign > 0 ? try Decimal.adding(total, v) : try Decimal.subtracting(total, v))
        case (.float64(let total), .float64(let v)): return .float64(sign > 0 ? total + v : total - v)
        case (.interval(let total), .interval(let v)):
            return .interval(sign > 0 ? try IntervalArithmetic.add(total, v) : try IntervalArithmetic.subtract(total, v))
        default:
            throw SluiceError(.featureNotSupported, "sum over \(value) is not supported")
        }
    }

    /// `sum / count` for avg: exact numeric with Postgres's division scale, or double precision.
    package static func average(_ sum: Value, count: Int64) throws(SluiceError) -> Value {
        switch sum {
        case .decimal(let total): return .decimal(try Decimal.dividing(total, Decimal(count)))
        case .float64(let total): return .float64(total / Double(count))
        case .interval(let total): return .interval(try IntervalArithmetic.divide(total, by: Double(count)))
        default: return .null
        }
    }

    /// An accumulated sum as a value of the aggregate's result type.
    package static func finish(_ sum: Value, as type: DataType) throws(SluiceError) -> Value {
        switch (sum, type) {
        case (.decimal(let v), .int64): return .int64(try v.int64Value())
        case (.float64(let v), .float32): return .float32(Float(v))
        default: return sum
        }
    }
}
