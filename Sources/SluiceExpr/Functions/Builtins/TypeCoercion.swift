import SluiceCore

/// Postgres's implicit conversions and type categories, as `pg_cast` (context `i`) and
/// `pg_type.typcategory`/`typispreferred` define them for the types Sluice has.
package enum TypeCoercion {
    /// Postgres's type categories (`typcategory`).
    enum Category: Equatable {
        case boolean, numeric, string, dateTime, timeSpan, json, binary, composite, array, unknown
    }

    static func category(of type: DataType) -> Category {
        switch type {
        case .boolean: .boolean
        case .int16, .int32, .int64, .float32, .float64, .decimal: .numeric
        case .varchar: .string
        case .date, .time, .timestamp, .timestamptz: .dateTime
        case .interval: .timeSpan
        case .jsonb: .json
        case .bytea: .binary
        case .structure: .composite
        case .list: .array
        case .unknown: .unknown
        }
    }

    /// The preferred type of its category (`typispreferred`): `double precision`, `text`,
    /// `timestamptz`, `interval`, `boolean`.
    static func isPreferred(_ type: DataType) -> Bool {
        switch type {
        case .float64, .varchar, .timestamptz, .interval, .boolean: true
        default: false
        }
    }

    /// The position in the numeric promotion order int2 < int4 < int8 < numeric < float4 < float8.
    package static func numericRank(_ type: DataType) -> Int? {
        switch type {
        case .int16: 0
        case .int32: 1
        case .int64: 2
        case .decimal: 3
        case .float32: 4
        case .float64: 5
        default: nil
        }
    }

    /// The position in date < timestamp < timestamptz.
    package static func dateTimeRank(_ type: DataType) -> Int? {
        switch type {
        case .date: 0
        case .timestamp: 1
        case .timestamptz: 2
        default: nil
        }
    }

    /// True when `source` and `target` are the same type, ignoring a numeric's precision and scale.
    static func isSameType(_ source: DataType, _ target: DataType) -> Bool {
        if case .decimal = source, case .decimal = target { return true }
        return source == target
    }

    /// Whether Postgres converts a value of `source` to `target` without an explicit cast.
    static func canImplicitlyCast(from source: DataType, to target: DataType) -> Bool {
        if isSameType(source, target) || source == .unknown { return true }
        if let from = numericRank(source), let to = numericRank(target) { return from < to }
        if let from = dateTimeRank(source), let to = dateTimeRank(target) { return from < to }
        switch (source, target) {
        case (.time, .interval): return true
        case (.list(let a), .list(let b)): return canImplicitlyCast(from: a, to: b) && a != .unknown
        default: return false
        }
    }

    /// The type both `a` and `b` convert to implicitly (Postgres's `select_common_type`), or nil.
    static func commonType(_ a: DataType, _ b: DataType) -> DataType? {
        if a == b { return a == .unknown ? .varchar : a }
        if a == .unknown { return b }
        if b == .unknown { return a }
        if case .decimal = a, case .decimal = b { return .numeric }
        if let left = numericRank(a), let right = numericRank(b) { return left >= right ? a : b }
        if let left = dateTimeRank(a), let right = dateTimeRank(b) { return left >= right ? a : b }
        if case .list(let left) = a, case .list(let right) = b { return commonType(left, right).map(DataType.list) }
        return nil
    }
}
