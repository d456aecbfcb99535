/// The key columns of one row encoded as bytes, for hashing and equality.
package struct KeyBytes: Hashable, Sendable {
    package var bytes: [UInt8]

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    package init(_ chunk: Chunk, row: Int, columns: [Int]) {
        var bytes: [UInt8] = []
        for columnIndex in columns {
            KeyEncoding.append(chunk.columns[columnIndex], row: row, to: &bytes)
        }
        self.bytes = bytes
    }

    /// Hashes the bytes as one block (the synthesized hash feeds the hasher a byte at a time).
    package func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// Encodes column values as bytes that are equal exactly when the values are equal (not
/// order-preserving; the memcomparable encoding for state tables comes with them).
package enum KeyEncoding {
    package static func append(_ column: Column, row: Int, to bytes: inout [UInt8]) {
        if column.isNull(row) {
            bytes.append(0)
            return
        }
        bytes.append(1)
        func fixed<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        switch column.storage {
        case .bool(let values): bytes.append(values[row] ? 1 : 0)
        case .int16(let values): fixed(values[row])
        case .int32(let values): fixed(values[row])
        case .int64(let values): fixed(values[row])
        case .float32(let values): fixed((values[row] == 0 ? 0 : values[row]).bitPattern)
        case .float64(let values): fixed((values[row] == 0 ? 0 : values[row]).bitPattern)
        case .decimal(let values):
            let normalized = values[row].normalized
            fixed(normalized.mantissa)
            fixed(normalized.mantissa == 0 && normalized.isFinite ? 0 : normalized.scale)
        case .interval(let values):
            fixed(values[row].months)
            fixed(values[row].days)
            fixed(values[row].microseconds)
        case .bytes(let values):
            fixed(UInt32(values.length(at: row)))
            bytes.append(contentsOf: values.data[values.byteRange(at: row)])
        case .structure(let children, _):
            for child in children { append(child, row: row, to: &bytes) }
        case .list:
            let text = column.value(at: row).textForm
            fixed(UInt32(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }
    }
}
