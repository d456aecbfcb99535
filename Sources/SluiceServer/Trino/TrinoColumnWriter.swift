import SluiceCore

/// One column of a chunk unpacked once for writing its rows as Trino's JSON: the common types'
/// buffers are matched here once per chunk, not once per value (``TrinoTypes/writeValue(_:at:to:)``
/// handles the rest).
struct TrinoColumnWriter {
    private enum Values {
        case int64([Int64])
        case int32([Int32])
        case int16([Int16])
        case bool([Bool])
        case text(VarBytes)
        case timestamp([Int64], zoned: Bool)
        case other(Column)
    }

    private let values: Values
    private let validity: Bitmap?

    init(_ column: Column) {
        validity = column.validity
        switch (column.storage, column.type) {
        case (.int64(let buffer), .int64): values = .int64(buffer)
        case (.int32(let buffer), .int32): values = .int32(buffer)
        case (.int16(let buffer), _): values = .int16(buffer)
        case (.bool(let buffer), _): values = .bool(buffer)
        case (.bytes(let buffer), .varchar): values = .text(buffer)
        case (.int64(let buffer), .timestamp): values = .timestamp(buffer, zoned: false)
        case (.int64(let buffer), .timestamptz): values = .timestamp(buffer, zoned: true)
        default: values = .other(column)
        }
    }

    /// Writes row `rowIndex`'s value.
    func write(_ rowIndex: Int, to json: inout TrinoJSONWriter) {
        if let validity, !validity[rowIndex] { return json.raw("null") }
        switch values {
        case .int64(let buffer): json.integer(buffer[rowIndex])
        case .int32(let buffer): json.integer(Int64(buffer[rowIndex]))
        case .int16(let buffer): json.integer(Int64(buffer[rowIndex]))
        case .bool(let buffer): json.bool(buffer[rowIndex])
        case .text(let buffer):
            let range = buffer.byteRange(at: rowIndex)
            buffer.data.withUnsafeBytes { JSONText.appendQuoted(UnsafeRawBufferPointer(rebasing: $0[range]), to: &json.bytes) }
        case .timestamp(let buffer, let zoned):
            json.byte("\"")
            TrinoTypes.appendTimestamp(buffer[rowIndex], to: &json.bytes)
            if zoned { json.raw(" UTC") }
            json.byte("\"")
        case .other(let column):
            TrinoTypes.writeValue(column, at: rowIndex, to: &json)
        }
    }
}
