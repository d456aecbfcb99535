import SluiceCore
import SluiceFormats

/// Gathers a manifest's partition field summaries (`field_summary`, spec "Manifest Lists"):
/// per partition field, whether any file's value is null or NaN, and the lower and upper
/// bounds of the other values in the single-value serialization.
///
/// Bounds are kept for the primitive types Appendix D serializes; for other field types the
/// summary has only `contains_null`.
struct IcebergPartitionSummary {
    private var fields: [FieldState]

    private struct FieldState {
        let type: DataType?
        let isFloatingPoint: Bool
        var containsNull = false
        var containsNaN = false
        var lower: Value?
        var upper: Value?
    }

    init(partitionType: [IcebergManifestPartitionField]) {
        fields = partitionType.map { field in
            let type = IcebergPartitionSummary.dataType(of: field.type.nonNullBranch)
            return FieldState(type: type, isFloatingPoint: type == .float32 || type == .float64)
        }
    }

    mutating func add(_ partition: [AvroValue]) {
        for (index, avroValue) in partition.enumerated() where index < fields.count {
            guard !avroValue.isNull else {
                fields[index].containsNull = true
                continue
            }
            guard let type = fields[index].type, let value = IcebergPartitionSummary.value(avroValue, as: type) else { continue }
            if case .float32(let number) = value, number.isNaN { fields[index].containsNaN = true; continue }
            if case .float64(let number) = value, number.isNaN { fields[index].containsNaN = true; continue }
            if fields[index].lower.map({ IcebergPartitionSummary.precedes(value, $0) }) ?? true { fields[index].lower = value }
            if fields[index].upper.map({ IcebergPartitionSummary.precedes($0, value) }) ?? true { fields[index].upper = value }
        }
    }

    /// The summaries, one per partition field.
    var summaries: [IcebergFieldSummary] {
        fields.map { field in
            IcebergFieldSummary(
                containsNull: field.containsNull,
                // Java and pyiceberg write false for fields that cannot hold NaN.
                containsNaN: field.containsNaN,
                lowerBound: field.type.flatMap { type in field.lower.flatMap { IcebergSingleValue.encode($0, as: type) } },
                upperBound: field.type.flatMap { type in field.upper.flatMap { IcebergSingleValue.encode($0, as: type) } })
        }
    }

    /// The Sluice type of an Iceberg partition field's Avro schema (spec, Appendix A), for
    /// the types whose bounds are serialized.
    static func dataType(of schema: AvroSchema) -> DataType? {
        switch (schema.kind, schema.logicalType) {
        case (.boolean, _): return .boolean
        case (.int, .date?): return .date
        case (.int, nil): return .int32
        case (.long, .timeMicros?): return .time
        case (.long, .timestampMicros?):
            return schema.property("adjust-to-utc") == .bool(true) ? .timestamptz : .timestamp
        case (.long, .localTimestampMicros?): return .timestamp
        case (.long, nil): return .int64
        case (.float, nil): return .float32
        case (.double, nil): return .float64
        case (.string, nil): return .varchar
        case (.bytes, .decimal(let precision, let scale)?), (.fixed, .decimal(let precision, let scale)?):
            return .decimal(precision: precision, scale: scale)
        case (.bytes, nil), (.fixed, nil), (.fixed, .uuid?): return .bytea
        default: return nil
        }
    }

    /// `value` as a Sluice value of `type` (from ``dataType(of:)``).
    static func value(_ value: AvroValue, as type: DataType) -> Value? {
        switch (type, value) {
        case (.boolean, .boolean(let flag)): return .bool(flag)
        case (.date, .int(let days)): return .date(days)
        case (.int32, .int(let integer)): return .int32(integer)
        case (.int64, .long(let integer)): return .int64(integer)
        case (.time, .long(let micros)): return .time(micros)
        case (.timestamp, .long(let micros)): return .timestamp(micros)
        case (.timestamptz, .long(let micros)): return .timestamptz(micros)
        case (.float32, .float(let number)): return .float32(number)
        case (.float64, .double(let number)): return .float64(number)
        case (.varchar, .string(let text)): return .string(text)
        case (.bytea, .bytes(let bytes)), (.bytea, .fixed(let bytes)): return .bytea(bytes)
        case (.decimal, .bytes(let bytes)), (.decimal, .fixed(let bytes)): return IcebergSingleValue.decode(bytes, as: type)
        default: return nil
        }
    }

    /// Whether `lhs` sorts before `rhs` (two values of one type): numbers by value (-0.0
    /// before +0.0, as the spec requires of bounds), strings and bytes by unsigned bytes.
    static func precedes(_ lhs: Value, _ rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let left), .bool(let right)): return !left && right
        case (.int32(let left), .int32(let right)), (.date(let left), .date(let right)): return left < right
        case (.int64(let left), .int64(let right)), (.time(let left), .time(let right)),
             (.timestamp(let left), .timestamp(let right)), (.timestamptz(let left), .timestamptz(let right)):
            return left < right
        case (.float32(let left), .float32(let right)): return left < right || (left == right && left.sign == .minus && right.sign == .plus)
        case (.float64(let left), .float64(let right)): return left < right || (left == right && left.sign == .minus && right.sign == .plus)
        case (.string(let left), .string(let right)): return left.utf8.lexicographicallyPrecedes(right.utf8)
        case (.bytea(let left), .bytea(let right)): return left.lexicographicallyPrecedes(right)
        case (.decimal(let left), .decimal(let right)): return left < right
        default: return false
        }
    }
}
