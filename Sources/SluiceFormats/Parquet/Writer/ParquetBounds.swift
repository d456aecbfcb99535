import SluiceCore

/// The least and greatest value of a column chunk or file, in Parquet's physical
/// representation and its sort order for the column's logical type: signed for integers,
/// decimals, dates and timestamps; IEEE order without NaN for floats; unsigned bytewise for
/// strings and binaries.
enum ParquetBounds: Equatable {
    case boolean(Bool, Bool)
    case int32(Int32, Int32)
    case int64(Int64, Int64)
    case float(Float, Float)
    case double(Double, Double)
    case bytes([UInt8], [UInt8])
    case wideDecimal(Int128, Int128)

    /// The bounds of both.
    func merged(with other: ParquetBounds) -> ParquetBounds {
        switch (self, other) {
        case (.boolean(let a, let b), .boolean(let c, let d)): .boolean(a && c, b || d)
        case (.int32(let a, let b), .int32(let c, let d)): .int32(min(a, c), max(b, d))
        case (.int64(let a, let b), .int64(let c, let d)): .int64(min(a, c), max(b, d))
        case (.float(let a, let b), .float(let c, let d)): .float(min(a, c), max(b, d))
        case (.double(let a, let b), .double(let c, let d)): .double(min(a, c), max(b, d))
        case (.bytes(let a, let b), .bytes(let c, let d)):
            .bytes(a.lexicographicallyPrecedes(c) ? a : c, b.lexicographicallyPrecedes(d) ? d : b)
        case (.wideDecimal(let a, let b), .wideDecimal(let c, let d)): .wideDecimal(min(a, c), max(b, d))
        default: self
        }
    }

    /// `min_value` and `max_value` as Statistics holds them: PLAIN-encoded, without a length
    /// for byte arrays. A zero float bound is written as -0.0 for the minimum and +0.0 for the
    /// maximum (parquet.thrift, "ColumnOrder"), so readers never skip a page holding the other.
    func statisticsBytes(typeLength: Int) -> (min: [UInt8], max: [UInt8]) {
        func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
            withUnsafeBytes(of: value.littleEndian) { Array($0) }
        }
        switch self {
        case .boolean(let low, let high): return ([low ? 1 : 0], [high ? 1 : 0])
        case .int32(let low, let high): return (littleEndian(low), littleEndian(high))
        case .int64(let low, let high): return (littleEndian(low), littleEndian(high))
        case .float(let low, let high):
            return (littleEndian((low == 0 ? -0.0 : low).bitPattern), littleEndian((high == 0 ? 0.0 : high).bitPattern))
        case .double(let low, let high):
            return (littleEndian((low == 0 ? -0.0 : low).bitPattern), littleEndian((high == 0 ? 0.0 : high).bitPattern))
        case .bytes(let low, let high): return (low, high)
        case .wideDecimal(let low, let high):
            return (ParquetBounds.bigEndian(low, width: typeLength), ParquetBounds.bigEndian(high, width: typeLength))
        }
    }

    /// The `width` low bytes of `value`, most significant first (two's complement).
    static func bigEndian(_ value: Int128, width: Int) -> [UInt8] {
        (0 ..< width).map { UInt8(truncatingIfNeeded: value >> Int128(8 * (width - 1 - $0))) }
    }

    /// The bounds as Sluice values of the leaf's type.
    func values(for type: DataType) -> (min: Value, max: Value) {
        func decimal(_ mantissa: Int128) -> Value {
            guard case .decimal(_, let scale) = type else { return .null }
            return .decimal(Decimal(mantissa: mantissa, scale: Int16(scale ?? 0)))
        }
        func int32(_ value: Int32) -> Value {
            switch type {
            case .int16: .int16(Int16(truncatingIfNeeded: value))
            case .date: .date(value)
            case .decimal: decimal(Int128(value))
            default: .int32(value)
            }
        }
        func int64(_ value: Int64) -> Value {
            switch type {
            case .time: .time(value)
            case .timestamp: .timestamp(value)
            case .timestamptz: .timestamptz(value)
            case .decimal: decimal(Int128(value))
            default: .int64(value)
            }
        }
        func bytes(_ value: [UInt8]) -> Value {
            switch type {
            case .varchar: .string(String(decoding: value, as: UTF8.self))
            case .jsonb: .jsonb(String(decoding: value, as: UTF8.self))
            default: .bytea(value)
            }
        }
        switch self {
        case .boolean(let low, let high): return (.bool(low), .bool(high))
        case .int32(let low, let high): return (int32(low), int32(high))
        case .int64(let low, let high): return (int64(low), int64(high))
        case .float(let low, let high): return (.float32(low), .float32(high))
        case .double(let low, let high): return (.float64(low), .float64(high))
        case .bytes(let low, let high): return (bytes(low), bytes(high))
        case .wideDecimal(let low, let high): return (decimal(low), decimal(high))
        }
    }
}
