/// A SQL data type as Sluice stores and computes it.
///
/// Physical layouts: booleans as `Bool`; integers at their width; `real`/`double precision` as
/// `Float`/`Double`; `numeric` as ``Decimal`` (128-bit mantissa with a per-value scale); `date` as
/// days since 1970-01-01 in `Int32`; `time` as microseconds since midnight, `timestamp` and
/// `timestamptz` as microseconds since 1970-01-01 00:00:00 (UTC for `timestamptz`) in `Int64`;
/// `interval` as ``Interval``; `varchar` and `jsonb` as UTF-8 bytes; structs as child columns.
package indirect enum DataType: Hashable, Sendable, Codable {
    case boolean
    case int16
    case int32
    case int64
    case float32
    case float64
    /// `numeric(precision, scale)`; both nil for an unconstrained `numeric`.
    case decimal(precision: Int?, scale: Int?)
    case varchar
    case date
    case time
    case timestamp
    case timestamptz
    case interval
    case jsonb
    case bytea
    case structure([StructField])
    case list(DataType)
    /// The type of an untyped `NULL` literal or an unresolved parameter before binding.
    case unknown

    /// Unconstrained `numeric`.
    package static let numeric = DataType.decimal(precision: nil, scale: nil)

    /// Whether values of the two types are the same values, compared the same way: equal types,
    /// or `numeric`s of any precision and scale (a `numeric(15,2)` column against `0.05`).
    package func sameValues(as other: DataType) -> Bool {
        if case .decimal = self, case .decimal = other { return true }
        return self == other
    }

    package var isNumeric: Bool {
        switch self {
        case .int16, .int32, .int64, .float32, .float64, .decimal: true
        default: false
        }
    }

    package var isInteger: Bool {
        switch self {
        case .int16, .int32, .int64: true
        default: false
        }
    }

    package var isTemporal: Bool {
        switch self {
        case .date, .time, .timestamp, .timestamptz: true
        default: false
        }
    }

    /// The name Postgres and `psql` show for this type (`format_type` style).
    package var sqlName: String {
        switch self {
        case .boolean: "boolean"
        case .int16: "smallint"
        case .int32: "integer"
        case .int64: "bigint"
        case .float32: "real"
        case .float64: "double precision"
        case .decimal(let precision?, let scale?): "numeric(\(precision),\(scale))"
        case .decimal(let precision?, nil): "numeric(\(precision))"
        case .decimal: "numeric"
        case .varchar: "character varying"
        case .date: "date"
        case .time: "time without time zone"
        case .timestamp: "timestamp without time zone"
        case .timestamptz: "timestamp with time zone"
        case .interval: "interval"
        case .jsonb: "jsonb"
        case .bytea: "bytea"
        case .structure(let fields): "struct<\(fields.map { "\($0.name) \($0.type.sqlName)" }.joined(separator: ", "))>"
        case .list(let element): "\(element.sqlName)[]"
        case .unknown: "unknown"
        }
    }

    /// The Postgres type OID clients see in RowDescription (`pg_type.dat`).
    package var oid: Int32 {
        switch self {
        case .boolean: 16
        case .int16: 21
        case .int32: 23
        case .int64: 20
        case .float32: 700
        case .float64: 701
        case .decimal: 1700
        case .varchar: 1043
        case .date: 1082
        case .time: 1083
        case .timestamp: 1114
        case .timestamptz: 1184
        case .interval: 1186
        case .jsonb: 3802
        case .bytea: 17
        case .structure: 2249  // record
        case .list(let element): element.arrayOID
        case .unknown: 705
        }
    }

    /// The OID of the array type whose elements have this type.
    package var arrayOID: Int32 {
        switch self {
        case .boolean: 1000
        case .int16: 1005
        case .int32: 1007
        case .int64: 1016
        case .float32: 1021
        case .float64: 1022
        case .decimal: 1231
        case .varchar: 1015
        case .date: 1182
        case .time: 1183
        case .timestamp: 1115
        case .timestamptz: 1185
        case .interval: 1187
        case .jsonb: 3807
        case .bytea: 1001
        case .structure, .list, .unknown: 2287
        }
    }

    /// The `typlen` Postgres reports for this type: its width in bytes, or -1 for variable width.
    package var typeLength: Int16 {
        switch self {
        case .boolean: 1
        case .int16: 2
        case .int32, .float32, .date: 4
        case .int64, .float64, .time, .timestamp, .timestamptz: 8
        case .interval: 16
        case .decimal, .varchar, .jsonb, .bytea, .structure, .list, .unknown: -1
        }
    }

    /// `pg_type.typstorage`: `p` (plain) for fixed-length types, `m` (main) for numeric, `x`
    /// (extended) for other variable-length types, as PostgreSQL's types have it.
    package var storage: String {
        switch self {
        case .decimal: "m"
        default: typeLength < 0 ? "x" : "p"
        }
    }

    /// The type for an OID a client sends, if Sluice has one.
    package init?(oid: Int32) {
        switch oid {
        case 16: self = .boolean
        case 21: self = .int16
        case 23: self = .int32
        case 20: self = .int64
        case 700: self = .float32
        case 701: self = .float64
        case 1700: self = .numeric
        case 25, 1043, 1042, 19: self = .varchar
        case 1082: self = .date
        case 1083: self = .time
        case 1114: self = .timestamp
        case 1184: self = .timestamptz
        case 1186: self = .interval
        case 3802, 114: self = .jsonb
        case 17: self = .bytea
        case 0, 705: self = .unknown
        default: return nil
        }
    }
}

/// One named field of a struct type.
package struct StructField: Hashable, Sendable, Codable {
    package var name: String
    package var type: DataType

    package init(name: String, type: DataType) {
        self.name = name
        self.type = type
    }
}
