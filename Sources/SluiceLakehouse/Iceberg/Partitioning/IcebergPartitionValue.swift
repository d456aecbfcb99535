import SluiceCore
import SluiceFormats

/// Converts partition values between Sluice's ``Value`` and the ``AvroValue`` a manifest's
/// partition tuple stores (Iceberg spec: Appendix A, "Avro").
///
/// | result type | Value | AvroValue |
/// |---|---|---|
/// | boolean | `.bool` | `.boolean` |
/// | int | `.int16`, `.int32` (`.int64` that fits) | `.int` |
/// | long | any integer | `.long` |
/// | float / double | `.float32` / `.float64` (or `.float32`) | `.float` / `.double` |
/// | date | `.date` days | `.int` |
/// | time, timestamp, timestamptz | `.time`, `.timestamp`, `.timestamptz` microseconds | `.long` |
/// | string | `.string`, `.jsonb` | `.string` |
/// | binary / fixed[L] | `.bytea` | `.bytes` / `.fixed` of L bytes |
/// | uuid | `.string` text or `.bytea` of 16 | `.fixed` of 16 bytes |
/// | decimal(P, S) | `.decimal` (or an integer) | `.fixed`: the unscaled value at scale S, big-endian two's complement, sign-extended to the type's byte count |
///
/// `IcebergPartitionFilter.value(_:as:)` reads these back as the type's own kind (`.int32`
/// for int, `.int64` for long, `.string` for string, the decimal at scale S); every row above
/// round-trips but uuid, which that reader does not read.
package enum IcebergPartitionValue {
    /// `value`, a partition value of result type `type`, in the manifest's Avro form; null
    /// stays null. NaN floats are stored as the canonical NaN so that every NaN row lands in
    /// one partition, as Java's `Double.compare` groups them.
    /// - Throws: `22023` for a value that does not fit the type (a wrong kind, a fixed of the
    ///   wrong length, a malformed uuid), `22003` for a decimal beyond the type's precision.
    package static func encode(_ value: Value, as type: IcebergType) throws(SluiceError) -> AvroValue {
        switch (type, value) {
        case (_, .null): return .null
        case (.boolean, .bool(let flag)): return .boolean(flag)
        case (.int, .int16(let integer)): return .int(Int32(integer))
        case (.int, .int32(let integer)): return .int(integer)
        case (.int, .int64(let integer)):
            guard let narrow = Int32(exactly: integer) else { throw outOfRange(value, type) }
            return .int(narrow)
        case (.long, .int16(let integer)): return .long(Int64(integer))
        case (.long, .int32(let integer)): return .long(Int64(integer))
        case (.long, .int64(let integer)): return .long(integer)
        case (.float, .float32(let number)): return .float(number.isNaN ? .nan : number)
        case (.double, .float64(let number)): return .double(number.isNaN ? .nan : number)
        case (.double, .float32(let number)): return .double(number.isNaN ? .nan : Double(number))
        case (.date, .date(let days)): return .int(days)
        case (.time, .time(let micros)): return .long(micros)
        case (.timestamp, .timestamp(let micros)), (.timestamp, .timestamptz(let micros)),
             (.timestamptz, .timestamptz(let micros)), (.timestamptz, .timestamp(let micros)):
            return .long(micros)
        case (.string, .string(let text)), (.string, .jsonb(let text)): return .string(text)
        case (.binary, .bytea(let bytes)): return .bytes(bytes)
        case (.fixed(let length), .bytea(let bytes)):
            guard bytes.count == length else { throw mismatch(value, type) }
            return .fixed(bytes)
        case (.uuid, .bytea(let bytes)):
            guard bytes.count == 16 else { throw mismatch(value, type) }
            return .fixed(bytes)
        case (.uuid, .string(let text)):
            guard let bytes = IcebergTransform.uuidBytes(text) else { throw mismatch(value, type) }
            return .fixed(bytes)
        case (.decimal(let precision, let scale), .decimal(let decimal)):
            guard decimal.isFinite else { throw mismatch(value, type) }
            let unscaled = try decimal.rounded(scale: scale).mantissa
            guard unscaled.magnitude < powerOfTen(precision) else { throw outOfRange(value, type) }
            return .fixed(bigEndian(unscaled, byteCount: IcebergPartitionSchemas.decimalByteCount(precision: precision)))
        case (.decimal, .int16), (.decimal, .int32), (.decimal, .int64):
            guard let integer = value.integerValue else { throw mismatch(value, type) }
            return try encode(.decimal(Decimal(integer)), as: type)
        default:
            throw mismatch(value, type)
        }
    }

    /// The `byteCount` low bytes of `value`'s two's complement, most significant first; the
    /// caller has checked that they hold it (sign extension to the width Java writes).
    static func bigEndian(_ value: Int128, byteCount: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        for shift in stride(from: 8 * (byteCount - 1), through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> Int128(shift)))
        }
        return bytes
    }

    /// 10^digits as an unsigned magnitude, for digits 0...38.
    static func powerOfTen(_ digits: Int) -> UInt128 {
        var power: UInt128 = 1
        for _ in 0 ..< min(max(digits, 0), 38) { power *= 10 }
        return power
    }

    private static func mismatch(_ value: Value, _ type: IcebergType) -> SluiceError {
        SluiceError(.invalidParameterValue, "partition value \(value) does not fit Iceberg type \(type.primitiveName ?? "nested")")
    }

    private static func outOfRange(_ value: Value, _ type: IcebergType) -> SluiceError {
        SluiceError(.numericValueOutOfRange, "partition value \(value) is out of range for Iceberg type \(type.primitiveName ?? "nested")")
    }
}
