import SluiceCore

/// The values of one leaf column, not null ones only, in Parquet's physical representation.
enum ParquetLeafValues {
    case boolean([Bool])
    case int32([Int32])
    case int64([Int64])
    case float([Float])
    case double([Double])
    case bytes(VarBytes)
    /// Unscaled decimals written as FIXED_LEN_BYTE_ARRAY.
    case wideDecimal([Int128])

    var count: Int {
        switch self {
        case .boolean(let values): values.count
        case .int32(let values): values.count
        case .int64(let values): values.count
        case .float(let values): values.count
        case .double(let values): values.count
        case .bytes(let values): values.count
        case .wideDecimal(let values): values.count
        }
    }

    /// The physical values of `column`'s rows (all of them; the caller has gathered the rows
    /// not null), converted for `leaf`: int16 widened, decimals rescaled to the column's scale.
    init(_ column: Column, for leaf: ParquetLeaf) throws(SluiceError) {
        switch (column.storage, leaf.physicalType) {
        case (.bool(let values), .boolean): self = .boolean(values)
        case (.int16(let values), .int32): self = .int32(values.map { Int32($0) })
        case (.int32(let values), .int32): self = .int32(values)
        case (.int64(let values), .int64): self = .int64(values)
        case (.float32(let values), .float): self = .float(values)
        case (.float64(let values), .double): self = .double(values)
        case (.bytes(let values), .byteArray): self = .bytes(values)
        case (.decimal(let values), _):
            guard case .decimal(let precision?, let scale) = leaf.type else { throw Self.mismatch(column, leaf) }
            let unscaled = try Self.unscaled(values, precision: precision, scale: scale ?? 0, column: leaf.path)
            switch leaf.physicalType {
            case .int32: self = .int32(unscaled.map { Int32(truncatingIfNeeded: $0) })
            case .int64: self = .int64(unscaled.map { Int64(truncatingIfNeeded: $0) })
            default: self = .wideDecimal(unscaled)
            }
        default:
            throw Self.mismatch(column, leaf)
        }
    }

    private static func mismatch(_ column: Column, _ leaf: ParquetLeaf) -> SluiceError {
        SluiceError(.datatypeMismatch, "column \"\(leaf.path.joined(separator: "."))\" of type \(leaf.type.sqlName) was given values of type \(column.type.sqlName)")
    }

    /// Each decimal's mantissa at `scale`, checked to have at most `precision` digits; a value
    /// that needs rounding is rounded half away from zero, as a cast to numeric(p, s) does.
    private static func unscaled(_ values: [Decimal], precision: Int, scale: Int, column: [String]) throws(SluiceError) -> [Int128] {
        let limit = Decimal.powerOfTen(precision)
        var result = [Int128](repeating: 0, count: values.count)
        for index in values.indices {
            let value = values[index]
            if Int(value.scale) == scale, value.mantissa.magnitude < limit.magnitude {
                result[index] = value.mantissa
                continue
            }
            guard value.isFinite else {
                throw SluiceError(.numericValueOutOfRange, "numeric field overflow",
                                  detail: "Parquet column \"\(column.joined(separator: "."))\" cannot hold NaN or infinity.")
            }
            let coerced = try value.coerced(precision: precision, scale: scale)
            let rescaled = try coerced.rescaled(to: scale)
            guard rescaled.mantissa.magnitude < limit.magnitude else {
                throw SluiceError(.numericValueOutOfRange, "numeric field overflow")
            }
            result[index] = rescaled.mantissa
        }
        return result
    }
}

/// One batch of a leaf column: its levels and its values not null.
struct ParquetLeafBatch {
    var values: ParquetLeafValues
    /// Nil when every entry is at the leaf's maximum definition level.
    var definitionLevels: [UInt8]?
    /// Nil when every entry starts a row (level 0).
    var repetitionLevels: [UInt8]?
    var entryCount: Int
}
