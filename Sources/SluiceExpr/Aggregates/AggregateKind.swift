import SluiceCore

/// The built-in aggregate functions.
package enum AggregateKind: String, Sendable, Equatable, CaseIterable {
    case count
    /// `count(*)`: counts rows, takes no argument.
    case countStar = "count(*)"
    case sum
    case avg
    case min
    case max
    case boolAnd = "bool_and"
    case boolOr = "bool_or"
    case bitAnd = "bit_and"
    case bitOr = "bit_or"
    case bitXor = "bit_xor"
    case stringAgg = "string_agg"
    /// `array_agg(x)`: every value, NULLs included, as an array.
    case arrayAgg = "array_agg"

    /// The aggregate named `name` (lower case), if any. `every` is `bool_and`; Trino's
    /// `approx_distinct(x)` is `count` (the binder makes it `count(DISTINCT x)`: exact).
    package init?(name: String) {
        switch name {
        case "count", "approx_distinct": self = .count
        case "sum": self = .sum
        case "avg": self = .avg
        case "min": self = .min
        case "max": self = .max
        case "bool_and", "every": self = .boolAnd
        case "bool_or": self = .boolOr
        case "bit_and": self = .bitAnd
        case "bit_or": self = .bitOr
        case "bit_xor": self = .bitXor
        case "string_agg": self = .stringAgg
        case "array_agg": self = .arrayAgg
        default: return nil
        }
    }

    /// The result type for an argument of `argumentType`, as Postgres types it, or nil if the
    /// aggregate does not accept that type.
    package func resultType(for argumentType: DataType) -> DataType? {
        switch self {
        case .count, .countStar: return .int64
        case .sum:
            switch argumentType {
            case .int16, .int32: return .int64
            case .int64, .decimal: return .numeric
            case .float32: return .float32
            case .float64: return .float64
            case .interval: return .interval
            default: return nil
            }
        case .avg:
            switch argumentType {
            case .int16, .int32, .int64, .decimal: return .numeric
            case .float32, .float64: return .float64
            case .interval: return .interval
            default: return nil
            }
        case .min, .max:
            switch argumentType {
            case .jsonb, .structure, .list, .unknown: return nil
            default: return argumentType
            }
        case .boolAnd, .boolOr: return argumentType == .boolean ? .boolean : nil
        case .bitAnd, .bitOr, .bitXor: return [.int16, .int32, .int64].contains(argumentType) ? argumentType : nil
        case .stringAgg: return argumentType == .varchar ? .varchar : nil
        case .arrayAgg: return .list(argumentType)
        }
    }
}
