import SluiceCore

extension ParquetLeafConversion {
    /// The Sluice column (no nulls) holding `values` converted to `type`.
    func column(_ values: ParquetPhysicalArrays, type: DataType) throws(SluiceError) -> Column {
        let storage: ColumnStorage
        switch self {
        case .boolean: storage = .bool(values.booleans)
        case .int32: storage = .int32(values.int32s)
        case .int32ToInt16: storage = .int16(values.int32s.map { Int16(truncatingIfNeeded: $0) })
        case .uint32ToInt64: storage = .int64(values.int32s.map { Int64(UInt32(bitPattern: $0)) })
        case .int32MillisToMicros: storage = .int64(values.int32s.map { Int64($0) * 1000 })
        case .int64(let multiplier, let divisor):
            if multiplier == 1 && divisor == 1 {
                storage = .int64(values.int64s)
            } else if divisor > 1 {
                // Floor division, so instants before 1970 keep their microsecond.
                storage = .int64(values.int64s.map { value in
                    let quotient = value / divisor
                    return value % divisor < 0 ? quotient - 1 : quotient
                })
            } else {
                storage = .int64(values.int64s.map { $0 &* multiplier })
            }
        case .uint64ToDecimal:
            storage = .decimal(values.int64s.map { Decimal(mantissa: Int128(UInt64(bitPattern: $0)), scale: 0) })
        case .int96ToMicros: storage = .int64(values.int64s)
        case .float: storage = .float32(values.floats)
        case .double: storage = .float64(values.doubles)
        case .bytes: storage = .bytes(values.bytes)
        case .decimal(let scale):
            let scale = Int16(scale)
            switch values.physicalType {
            case .int32: storage = .decimal(values.int32s.map { Decimal(mantissa: Int128($0), scale: scale) })
            case .int64: storage = .decimal(values.int64s.map { Decimal(mantissa: Int128($0), scale: scale) })
            case .byteArray, .fixedLenByteArray:
                var decimals: [Decimal] = []
                decimals.reserveCapacity(values.bytes.count)
                for index in 0 ..< values.bytes.count {
                    decimals.append(Decimal(mantissa: try Self.bigEndianInteger(values.bytes, index), scale: scale))
                }
                storage = .decimal(decimals)
            default:
                throw SluiceError(.featureNotSupported, "parquet decimals stored as \(values.physicalType) are not supported")
            }
        }
        return Column(type: type, storage: storage)
    }

    /// A big-endian two's complement integer of at most 16 bytes.
    static func bigEndianInteger(_ bytes: VarBytes, _ index: Int) throws(SluiceError) -> Int128 {
        let range = bytes.byteRange(at: index)
        guard range.count <= 16 else { throw SluiceError(.dataCorrupted, "invalid parquet page: a decimal of \(range.count) bytes") }
        guard let first = range.first else { return 0 }
        var value: Int128 = bytes.data[first] >= 0x80 ? -1 : 0
        for position in range { value = value << 8 | Int128(bytes.data[position]) }
        return value
    }
}
