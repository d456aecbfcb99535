/// One scalar value, for the edges of the engine: literals, parameters, wire encoding, tests.
///
/// The data path never holds `Value`s per row; it works on ``Column`` buffers.
package indirect enum Value: Hashable, Sendable {
    case null
    case bool(Bool)
    case int16(Int16)
    case int32(Int32)
    case int64(Int64)
    case float32(Float)
    case float64(Double)
    case decimal(Decimal)
    case string(String)
    /// Days since 1970-01-01.
    case date(Int32)
    /// Microseconds since midnight.
    case time(Int64)
    /// Microseconds since 1970-01-01 00:00:00, no zone.
    case timestamp(Int64)
    /// Microseconds since 1970-01-01 00:00:00 UTC.
    case timestamptz(Int64)
    case interval(Interval)
    /// A JSON document in its normalized text form.
    case jsonb(String)
    case bytea([UInt8])
    case structure([Value])
    case list([Value])

    /// An integer of any width (smallint, integer, bigint) as an `Int64`; nil for other kinds.
    package var integerValue: Int64? {
        switch self {
        case .int16(let integer): Int64(integer)
        case .int32(let integer): Int64(integer)
        case .int64(let integer): integer
        default: nil
        }
    }

    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
