import SluiceCore

// Iceberg spec: "Partition Transforms" and Appendix B, "32-bit Hash Requirements".
//
// Value-level application for the control plane and for computing a data file's partition
// tuple from one representative row; the sink's columnar path can call `bucketHash` per value.

extension IcebergTransform {
    /// The transform of one value of a column whose Iceberg type is `source`; null stays null.
    ///
    /// Integer `Value`s of any width are accepted for `int` and `long` columns (a `smallint`
    /// column maps to `int`), and `uuid` columns take their text form.
    /// - Throws: `0A000` for a transform that does not apply to the type, `22023` for a value
    ///   that does not fit the source type.
    package func apply(to value: Value, sourceType: IcebergType) throws(SluiceError) -> Value {
        _ = try resultType(for: sourceType)
        if value.isNull { return .null }
        switch self {
        case .identity: return value
        case .void: return .null
        case .bucket(let count):
            let hash = try IcebergTransform.bucketHash(value, type: sourceType)
            return .int32(Int32((Int(hash) & Int(Int32.max)) % count))
        case .truncate(let width):
            return try IcebergTransform.truncate(value, type: sourceType, width: width)
        case .year, .month, .day, .hour:
            return try temporal(value)
        case .unknown:
            throw SluiceError(.featureNotSupported, "unknown transform \(self)")
        }
    }

    /// The 32-bit hash of a value as the spec's per-type byte representation defines it.
    package static func bucketHash(_ value: Value, type: IcebergType) throws(SluiceError) -> Int32 {
        switch (type, value) {
        case (.int, _), (.long, _):
            return hashLong(try integer(value))
        case (.date, .date(let days)): return hashLong(Int64(days))
        case (.time, .time(let micros)): return hashLong(micros)
        case (.timestamp, .timestamp(let micros)), (.timestamptz, .timestamptz(let micros)),
             (.timestamp, .timestamptz(let micros)), (.timestamptz, .timestamp(let micros)):
            return hashLong(micros)
        case (.decimal(_, let scale), .decimal(let decimal)):
            guard decimal.isFinite else { throw mismatch(value, type) }
            let rescaled = try decimal.rounded(scale: scale)
            return Murmur3.hash32(minimalBigEndian(rescaled.mantissa))
        case (.decimal, _):
            return try bucketHash(.decimal(Decimal(integer(value))), type: type)
        case (.string, .string(let text)), (.string, .jsonb(let text)):
            return Murmur3.hash32(Array(text.utf8))
        case (.uuid, .string(let text)):
            guard let bytes = uuidBytes(text) else { throw mismatch(value, type) }
            return Murmur3.hash32(bytes)
        case (.fixed, .bytea(let bytes)), (.binary, .bytea(let bytes)), (.uuid, .bytea(let bytes)):
            return Murmur3.hash32(bytes)
        default:
            throw mismatch(value, type)
        }
    }

    /// Hash of an integer as its 8-byte little-endian two's complement form (ints are widened).
    package static func hashLong(_ value: Int64) -> Int32 {
        withUnsafeBytes(of: value.littleEndian) { Murmur3.hash32($0) }
    }

    static func truncate(_ value: Value, type: IcebergType, width: Int) throws(SluiceError) -> Value {
        switch (type, value) {
        case (.int, _):
            let integer = try integer(value)
            let width64 = Int64(width)
            return .int32(Int32(truncatingIfNeeded: integer - (((integer % width64) + width64) % width64)))
        case (.long, _):
            let integer = try integer(value)
            let width64 = Int64(width)
            // `integer - remainder` cannot overflow: the remainder has the sign that moves toward min.
            let remainder = ((integer % width64) + width64) % width64
            let (result, overflow) = integer.subtractingReportingOverflow(remainder)
            guard !overflow else { throw SluiceError(.numericValueOutOfRange, "bigint out of range in truncate[\(width)]") }
            return .int64(result)
        case (.decimal(_, let scale), .decimal(let decimal)):
            guard decimal.isFinite else { throw mismatch(value, type) }
            let unscaled = try decimal.rounded(scale: scale).mantissa
            let width128 = Int128(width)
            let truncated = unscaled - (((unscaled % width128) + width128) % width128)
            return .decimal(Decimal(mantissa: truncated, scale: Int16(scale)))
        case (.string, .string(let text)):
            return .string(String(String.UnicodeScalarView(text.unicodeScalars.prefix(width))))
        case (.binary, .bytea(let bytes)):
            return .bytea(Array(bytes.prefix(width)))
        default:
            throw mismatch(value, type)
        }
    }

    func temporal(_ value: Value) throws(SluiceError) -> Value {
        let micros: Int64
        switch value {
        case .date(let days):
            if case .hour = self { throw IcebergTransform.mismatch(value, .date) }
            micros = Int64(days) * TemporalUnits.microsecondsPerDay
        case .timestamp(let value), .timestamptz(let value):
            micros = value
        default:
            throw IcebergTransform.mismatch(value, .timestamp)
        }
        let days = IcebergTransform.floorDivide(micros, TemporalUnits.microsecondsPerDay)
        switch self {
        case .day:
            return .date(Int32(clamping: days))
        case .hour:
            return .int32(Int32(clamping: IcebergTransform.floorDivide(micros, TemporalUnits.microsecondsPerHour)))
        case .year, .month:
            let date = CivilDate(daysSinceUnixEpoch: Int(days))
            if case .year = self { return .int32(Int32(clamping: date.year - 1970)) }
            return .int32(Int32(clamping: (date.year - 1970) * 12 + date.month - 1))
        default:
            return value
        }
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && value < 0) ? quotient - 1 : quotient
    }

    static func integer(_ value: Value) throws(SluiceError) -> Int64 {
        guard let integer = value.integerValue else { throw SluiceError(.datatypeMismatch, "expected an integer value, got \(value)") }
        return integer
    }

    static func mismatch(_ value: Value, _ type: IcebergType) -> SluiceError {
        SluiceError(.datatypeMismatch, "value \(value) does not fit Iceberg type \(type.primitiveName ?? "nested")")
    }

    /// Java's `BigInteger.toByteArray()`: the shortest big-endian two's complement form.
    static func minimalBigEndian(_ value: Int128) -> [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: value.bigEndian) { bytes = Array($0) }
        var start = 0
        while start < bytes.count - 1 {
            let byte = bytes[start]
            let nextHighBit = bytes[start + 1] & 0x80
            if (byte == 0x00 && nextHighBit == 0) || (byte == 0xFF && nextHighBit != 0) { start += 1 } else { break }
        }
        return Array(bytes[start...])
    }

    /// The 16 bytes of a UUID's canonical text (`f79c3e09-677c-4bbd-a479-3f349cb785e7`): 32
    /// hex digits with dashes at exactly positions 8, 13, 18 and 23.
    static func uuidBytes(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        var pending: UInt8? = nil
        for (position, character) in utf8.enumerated() {
            if position == 8 || position == 13 || position == 18 || position == 23 {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let high = pending {
                bytes.append(high << 4 | nibble)
                pending = nil
            } else {
                pending = nibble
            }
        }
        return bytes
    }
}
