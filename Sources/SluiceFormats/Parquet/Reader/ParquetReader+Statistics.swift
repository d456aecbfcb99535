import SluiceCore

extension ParquetReader {
    /// A column chunk's info, its min/max decoded as the leaf's values. `min_value`/`max_value`
    /// are used as written; the deprecated `min`/`max` only where their signed order agrees
    /// with the type's (numbers, dates, timestamps, booleans; not strings, binaries or
    /// unsigned integers).
    static func chunkInfo(_ leaf: ParquetLeaf, _ chunk: ParquetColumnChunk, trustsMinMaxValue: Bool) -> ParquetColumnChunkInfo {
        let metaData = chunk.metaData
        var info = ParquetColumnChunkInfo(
            path: leaf.path, fieldID: leaf.fieldID, compressedSize: metaData?.totalCompressedSize ?? 0,
            valueCount: metaData?.valueCount ?? 0, nullCount: metaData?.statistics?.nullCount, min: nil, max: nil)
        guard let statistics = metaData?.statistics else { return info }
        var low = statistics.minValue, high = statistics.maxValue
        if low == nil || high == nil {
            let signedOrderAgrees: Bool
            switch leaf.conversion {
            case .bytes, .uint32ToInt64, .uint64ToDecimal, .int96ToMicros: signedOrderAgrees = false
            case .decimal: signedOrderAgrees = leaf.physicalType == .int32 || leaf.physicalType == .int64
            default: signedOrderAgrees = true
            }
            guard signedOrderAgrees else { return info }
            low = statistics.legacyMin
            high = statistics.legacyMax
        }
        guard let low, let high else { return info }
        info.min = value(low, leaf)
        info.max = value(high, leaf)
        if info.min == nil || info.max == nil {
            info.min = nil
            info.max = nil
        }
        return info
    }

    /// One PLAIN value (without a length prefix for byte arrays) as the leaf's value.
    private static func value(_ bytes: [UInt8], _ leaf: ParquetLeaf) -> Value? {
        var arrays = ParquetPhysicalArrays(physicalType: leaf.physicalType, typeLength: leaf.typeLength)
        switch leaf.physicalType {
        case .byteArray:
            arrays.bytes.append(bytes)
        case .fixedLenByteArray:
            guard bytes.count == leaf.typeLength else { return nil }
            arrays.bytes.append(bytes)
        default:
            let ok: Bool = bytes.withUnsafeBytes { raw in (try? arrays.appendPlain(raw, count: 1)) != nil }
            guard ok else { return nil }
        }
        guard arrays.count == 1, let column = try? leaf.conversion.column(arrays, type: leaf.type) else { return nil }
        return column.value(at: 0)
    }
}
