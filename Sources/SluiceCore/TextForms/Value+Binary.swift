/// Postgres binary forms (`typsend`/`typreceive`), all integers big-endian.
///
/// Layouts: `date` int32 days since 2000-01-01; `time` int64 µs; `timestamp[tz]` int64 µs
/// since 2000-01-01 (infinities as the int64 extremes); `interval` int64 µs, int32 days,
/// int32 months; `numeric` int16 ndigits, weight, sign, dscale, then base-10000 digits;
/// `jsonb` a version byte 1 then text; arrays and records as `array_send`/`record_send`.
extension Value {
    /// Appends the binary form of this value, taking the type from the value itself (an
    /// array's element type from its first non-null element); nothing for `NULL`.
    package func appendBinary(to out: inout [UInt8]) {
        appendBinary(to: &out, as: inferredType)
    }

    /// The type this value's case implies (`.string` as `varchar`, `.decimal` as `numeric`).
    package var inferredType: DataType {
        switch self {
        case .null: .unknown
        case .bool: .boolean
        case .int16: .int16
        case .int32: .int32
        case .int64: .int64
        case .float32: .float32
        case .float64: .float64
        case .decimal: .numeric
        case .string: .varchar
        case .date: .date
        case .time: .time
        case .timestamp: .timestamp
        case .timestamptz: .timestamptz
        case .interval: .interval
        case .jsonb: .jsonb
        case .bytea: .bytea
        case .structure(let values): .structure(values.enumerated().map { StructField(name: "f\($0.offset + 1)", type: $0.element.inferredType) })
        case .list(let values): .list(values.first { !$0.isNull }?.inferredType ?? .varchar)
        }
    }

    /// Appends the binary form of this value as a value of `type`; nothing for `NULL`.
    package func appendBinary(to out: inout [UInt8], as type: DataType) {
        switch self {
        case .null: break
        case .bool(let value): out.append(value ? 1 : 0)
        case .int16(let value): out.appendBigEndian(value)
        case .int32(let value): out.appendBigEndian(value)
        case .int64(let value): out.appendBigEndian(value)
        case .float32(let value): out.appendBigEndian(value.bitPattern)
        case .float64(let value): out.appendBigEndian(value.bitPattern)
        case .decimal(let value): value.appendBinary(to: &out)
        case .string(let value): out.append(contentsOf: value.utf8)
        case .date(let days):
            out.appendBigEndian(days == Int32.max || days == Int32.min ? days : days - TemporalUnits.postgresEpochDays)
        case .time(let value): out.appendBigEndian(value)
        case .timestamp(let value), .timestamptz(let value):
            out.appendBigEndian(value == Int64.max || value == Int64.min ? value : value - TemporalUnits.postgresEpochMicroseconds)
        case .interval(let value):
            out.appendBigEndian(value.microseconds)
            out.appendBigEndian(value.days)
            out.appendBigEndian(value.months)
        case .jsonb(let value):
            out.append(1)
            out.append(contentsOf: value.utf8)
        case .bytea(let value): out.append(contentsOf: value)
        case .structure(let values):
            let fields: [StructField] = if case .structure(let fields) = type, fields.count == values.count { fields } else {
                values.map { StructField(name: "", type: $0.inferredType) }
            }
            out.appendBigEndian(Int32(values.count))
            for (value, field) in zip(values, fields) {
                out.appendBigEndian(field.type.oid)
                Value.appendLengthPrefixed(value, as: field.type, to: &out)
            }
        case .list(let values):
            let elementType: DataType = if case .list(let element) = type { element } else { self.inferredType.listElement }
            appendArray(values, elementType: elementType, to: &out)
        }
    }

    /// `array_send`: ndim, has-null flag, element OID, (length, lower bound 1) per dimension,
    /// then each element length-prefixed (-1 for NULL). Nested lists form further dimensions.
    private func appendArray(_ values: [Value], elementType: DataType, to out: inout [UInt8]) {
        // Nested lists are further dimensions (Postgres arrays are rectangular), whether or
        // not the declared element type says so.
        var dimensions: [Int32] = [Int32(values.count)]
        var scalarType = elementType
        var level = values
        while let first = level.first, case .list(let items) = first {
            dimensions.append(Int32(items.count))
            if case .list(let inner) = scalarType { scalarType = inner }
            level = items
        }
        if values.isEmpty { dimensions = [] }
        var flat: [Value] = []
        func flatten(_ items: [Value], depth: Int) {
            for item in items {
                if depth + 1 < dimensions.count, case .list(let nested) = item {
                    flatten(nested, depth: depth + 1)
                } else {
                    flat.append(item)
                }
            }
        }
        flatten(values, depth: 0)
        out.appendBigEndian(Int32(dimensions.count))
        out.appendBigEndian(Int32(flat.contains { $0.isNull } ? 1 : 0))
        out.appendBigEndian(scalarType.oid)
        for dimension in dimensions {
            out.appendBigEndian(dimension)
            out.appendBigEndian(Int32(1))
        }
        for item in flat { Value.appendLengthPrefixed(item, as: scalarType, to: &out) }
    }

    private static func appendLengthPrefixed(_ value: Value, as type: DataType, to out: inout [UInt8]) {
        if value.isNull {
            out.appendBigEndian(Int32(-1))
            return
        }
        let lengthIndex = out.count
        out.appendBigEndian(Int32(0))
        value.appendBinary(to: &out, as: type)
        let length = Int32(out.count - lengthIndex - 4).bigEndian
        withUnsafeBytes(of: length) { bytes in
            for offset in 0 ..< 4 { out[lengthIndex + offset] = bytes[offset] }
        }
    }

    /// Parses the Postgres binary form (`typreceive`) of a value of `type`.
    package init(parsingBinary bytes: [UInt8], as type: DataType) throws(SluiceError) {
        var reader = BinaryReader(bytes: bytes[...], type: type)
        self = try reader.readValue(as: type, length: bytes.count)
        guard reader.bytes.isEmpty else { throw reader.formatError }
    }
}

extension DataType {
    /// The element type of a list type, or the type itself.
    var listElement: DataType {
        if case .list(let element) = self { return element }
        return self
    }
}

extension [UInt8] {
    /// Appends `value` in network byte order.
    package mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
