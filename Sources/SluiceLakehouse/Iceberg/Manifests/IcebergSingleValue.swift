import SluiceCore

/// Iceberg's binary single-value serialization (spec, Appendix D): the form of the lower and
/// upper bounds in manifests (`lower_bounds`, `upper_bounds`) and of the partition field
/// summaries in manifest lists.
///
/// | Sluice type | Iceberg type | bytes |
/// |---|---|---|
/// | `boolean` | boolean | `00` false, `01` true (any non-zero byte reads as true) |
/// | `smallint`, `integer` | int | 4-byte little-endian |
/// | `bigint` | long | 8-byte little-endian (4 bytes read too: an int promoted to long) |
/// | `real` / `double precision` | float / double | IEEE 754 little-endian (a double reads 4 bytes too) |
/// | `date` | date | days since 1970-01-01, 4-byte little-endian |
/// | `time`, `timestamp`, `timestamptz` | time, timestamp, timestamptz | microseconds, 8-byte little-endian |
/// | `varchar` | string | UTF-8, no length |
/// | `bytea` | binary | the bytes, no length |
/// | `numeric(p, s)` | decimal(p, s) | the unscaled value at scale `s`, big-endian two's complement, fewest bytes |
///
/// Some Iceberg writers truncate string and binary bounds (to 16 characters by default in
/// Java); these functions write full values, which are valid bounds too.
package enum IcebergSingleValue {
    /// The bytes of `value` as a value of `type`; nil for NULL, for types Appendix D does not
    /// serialize (interval, jsonb, structs, lists, unconstrained `numeric`), for a value of
    /// another kind, and for a decimal that does not fit the column's scale exactly.
    package static func encode(_ value: Value, as type: DataType) -> [UInt8]? {
        switch (type, value) {
        case (.boolean, .bool(let flag)): return [flag ? 1 : 0]
        case (.int16, .int16(let integer)): return littleEndian(UInt64(UInt32(bitPattern: Int32(integer))), count: 4)
        case (.int32, .int16(let integer)): return littleEndian(UInt64(UInt32(bitPattern: Int32(integer))), count: 4)
        case (.int32, .int32(let integer)): return littleEndian(UInt64(UInt32(bitPattern: integer)), count: 4)
        case (.int64, .int16(let integer)): return littleEndian(UInt64(bitPattern: Int64(integer)), count: 8)
        case (.int64, .int32(let integer)): return littleEndian(UInt64(bitPattern: Int64(integer)), count: 8)
        case (.int64, .int64(let integer)): return littleEndian(UInt64(bitPattern: integer), count: 8)
        case (.float32, .float32(let number)): return littleEndian(UInt64(number.bitPattern), count: 4)
        case (.float64, .float64(let number)): return littleEndian(number.bitPattern, count: 8)
        case (.float64, .float32(let number)): return littleEndian(Double(number).bitPattern, count: 8)
        case (.date, .date(let days)): return littleEndian(UInt64(UInt32(bitPattern: days)), count: 4)
        case (.time, .time(let micros)), (.timestamp, .timestamp(let micros)), (.timestamptz, .timestamptz(let micros)):
            return littleEndian(UInt64(bitPattern: micros), count: 8)
        case (.varchar, .string(let text)): return Array(text.utf8)
        case (.bytea, .bytea(let bytes)): return bytes
        case (.decimal(_, let scale?), .decimal(let decimal)):
            guard let unscaled = unscaledValue(decimal, scale: scale) else { return nil }
            return minimalBigEndian(unscaled)
        default:
            return nil
        }
    }

    /// The value `bytes` hold as a value of `type`; nil when they are not a valid encoding
    /// (a wrong length, invalid UTF-8, a decimal beyond 38 digits) or the type has none.
    package static func decode(_ bytes: [UInt8], as type: DataType) -> Value? {
        switch type {
        case .boolean:
            guard bytes.count == 1 else { return nil }
            return .bool(bytes[0] != 0)
        case .int16:
            guard bytes.count == 4, let integer = Int16(exactly: Int32(bitPattern: UInt32(loadLittleEndian(bytes)))) else { return nil }
            return .int16(integer)
        case .int32:
            guard bytes.count == 4 else { return nil }
            return .int32(Int32(bitPattern: UInt32(loadLittleEndian(bytes))))
        case .int64:
            // A column promoted from int keeps its 4-byte bounds (Java's Conversions reads them).
            if bytes.count == 4 { return .int64(Int64(Int32(bitPattern: UInt32(loadLittleEndian(bytes))))) }
            guard bytes.count == 8 else { return nil }
            return .int64(Int64(bitPattern: loadLittleEndian(bytes)))
        case .float32:
            guard bytes.count == 4 else { return nil }
            return .float32(Float(bitPattern: UInt32(loadLittleEndian(bytes))))
        case .float64:
            // A column promoted from float keeps its 4-byte bounds.
            if bytes.count == 4 { return .float64(Double(Float(bitPattern: UInt32(loadLittleEndian(bytes))))) }
            guard bytes.count == 8 else { return nil }
            return .float64(Double(bitPattern: loadLittleEndian(bytes)))
        case .date:
            guard bytes.count == 4 else { return nil }
            return .date(Int32(bitPattern: UInt32(loadLittleEndian(bytes))))
        case .time, .timestamp, .timestamptz:
            guard bytes.count == 8 else { return nil }
            let micros = Int64(bitPattern: loadLittleEndian(bytes))
            switch type {
            case .time: return .time(micros)
            case .timestamp: return .timestamp(micros)
            default: return .timestamptz(micros)
            }
        case .varchar:
            return String(validating: bytes, as: UTF8.self).map { .string($0) }
        case .bytea:
            return .bytea(bytes)
        case .decimal(_, let scale?):
            guard let unscaled = int128(fromBigEndian: bytes), unscaled.magnitude <= Decimal.maximumMantissa.magnitude,
                  scale >= 0, scale <= Int(Int16.max) else { return nil }
            return .decimal(Decimal(mantissa: unscaled, scale: Int16(scale)))
        case .decimal, .interval, .jsonb, .structure, .list, .unknown:
            return nil
        }
    }

    /// The mantissa of `decimal` at exactly `scale` digits after the point, if that is exact.
    static func unscaledValue(_ decimal: Decimal, scale: Int) -> Int128? {
        guard decimal.isFinite, scale >= 0 else { return nil }
        if Int(decimal.scale) <= scale {
            guard let rescaled = try? decimal.rescaled(to: scale) else { return nil }
            return rescaled.mantissa
        }
        let normalized = decimal.normalized
        guard Int(normalized.scale) <= scale, let rescaled = try? normalized.rescaled(to: scale) else { return nil }
        return rescaled.mantissa
    }

    /// `value` in big-endian two's complement with the fewest bytes that keep its sign (at
    /// least one): 0 is `00`, 127 is `7F`, 128 is `00 80`, -1 is `FF`, -129 is `FF 7F`.
    static func minimalBigEndian(_ value: Int128) -> [UInt8] {
        var bytes: [UInt8] = []
        for shift in stride(from: 120, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
        // Drop a leading byte while it only repeats the sign of the byte after it.
        var start = 0
        while start < bytes.count - 1 {
            let next = bytes[start + 1]
            if (bytes[start] == 0x00 && next & 0x80 == 0) || (bytes[start] == 0xFF && next & 0x80 != 0) {
                start += 1
            } else {
                break
            }
        }
        return Array(bytes[start...])
    }

    /// The two's-complement big-endian integer in `bytes`, if it fits 128 bits.
    static func int128(fromBigEndian bytes: [UInt8]) -> Int128? {
        guard let first = bytes.first else { return nil }
        let sign: UInt8 = first & 0x80 != 0 ? 0xFF : 0x00
        // Longer encodings are valid when their extra leading bytes only extend the sign.
        let extra = max(0, bytes.count - 16)
        guard bytes.prefix(extra).allSatisfy({ $0 == sign }) else { return nil }
        let significant = bytes.dropFirst(extra)
        if extra > 0, let lead = significant.first, (lead & 0x80 != 0) != (sign == 0xFF) { return nil }
        var value: Int128 = sign == 0xFF ? -1 : 0
        for byte in significant { value = value << 8 | Int128(byte) }
        return value
    }

    private static func littleEndian(_ value: UInt64, count: Int) -> [UInt8] {
        (0 ..< count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private static func loadLittleEndian(_ bytes: [UInt8]) -> UInt64 {
        var value: UInt64 = 0
        for (index, byte) in bytes.enumerated() { value |= UInt64(byte) << (8 * index) }
        return value
    }
}
