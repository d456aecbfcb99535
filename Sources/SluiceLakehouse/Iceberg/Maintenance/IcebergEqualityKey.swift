import SluiceCore

/// The bytes that identify a row's values in some columns, for matching rows against equality
/// deletes: two rows get the same bytes exactly when their values are equal as Iceberg's
/// equality deletes compare them.
///
/// The encoding widens what Iceberg's type promotion widens, so a delete file written before
/// `int` became `long` (or `float` became `double`) still matches: every integer is 8 bytes,
/// every floating-point value is a `Double`'s bits. NULL matches NULL, as Java's `StructLikeSet`
/// compares (spec: a null delete value matches rows whose value is null). Floating-point values
/// compare by bits with one canonical NaN, as Java's `Float.equals` does. Decimals compare by
/// value (their normalized mantissa and scale).
enum IcebergEqualityKey {
    /// Whether equality deletes on a column of `type` can be matched.
    static func supports(_ type: DataType) -> Bool {
        switch type {
        case .boolean, .int16, .int32, .int64, .float32, .float64, .decimal, .varchar, .jsonb, .bytea, .date, .time, .timestamp,
             .timestamptz:
            return true
        case .interval, .structure, .list, .unknown:
            return false
        }
    }

    /// Appends the key bytes of row `rowIndex` of `columns` to `key`.
    ///
    /// The columns must be of types ``supports(_:)`` accepts; others append a marker that
    /// matches nothing they could be compared with.
    static func append(row rowIndex: Int, of columns: [Column], to key: inout [UInt8]) {
        for column in columns {
            if column.isNull(rowIndex) {
                key.append(0)
                continue
            }
            key.append(1)
            switch column.storage {
            case .bool(let values): key.append(values[rowIndex] ? 1 : 0)
            case .int16(let values): appendInteger(Int64(values[rowIndex]), to: &key)
            case .int32(let values): appendInteger(Int64(values[rowIndex]), to: &key)
            case .int64(let values): appendInteger(values[rowIndex], to: &key)
            case .float32(let values): appendDouble(Double(values[rowIndex]), to: &key)
            case .float64(let values): appendDouble(values[rowIndex], to: &key)
            case .decimal(let values):
                let value = values[rowIndex].normalized
                appendInteger(Int64(truncatingIfNeeded: value.mantissa >> 64), to: &key)
                appendInteger(Int64(truncatingIfNeeded: value.mantissa), to: &key)
                appendInteger(Int64(value.scale), to: &key)
            case .bytes(let values):
                let range = values.byteRange(at: rowIndex)
                appendInteger(Int64(range.count), to: &key)
                key.append(contentsOf: values.data[range])
            case .interval, .structure, .list:
                key.append(0xFF)
            }
        }
    }

    private static func appendInteger(_ value: Int64, to key: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { key.append(contentsOf: $0) }
    }

    private static func appendDouble(_ value: Double, to key: inout [UInt8]) {
        appendInteger(Int64(bitPattern: value.isNaN ? Double.nan.bitPattern : value.bitPattern), to: &key)
    }
}
