extension ColumnBuilder {
    /// Appends row `row` of `column`, which has this builder's type: read from the column's
    /// typed buffer, with no ``Value`` in between for the scalar layouts.
    package mutating func append(_ column: Column, row: Int) {
        if column.isNull(row) {
            appendNull()
            return
        }
        switch (layout, column.storage) {
        case (.bool, .bool(let values)): append(bool: values[row])
        case (.int16, .int16(let values)): append(int16: values[row])
        case (.int32, .int32(let values)): append(int32: values[row])
        case (.int64, .int64(let values)): append(int64: values[row])
        case (.float32, .float32(let values)): append(float: values[row])
        case (.float64, .float64(let values)): append(double: values[row])
        case (.decimal, .decimal(let values)): append(decimal: values[row])
        case (.interval, .interval(let values)): append(interval: values[row])
        case (.bytes, .bytes(let values)):
            values.data.withUnsafeBytes { data in
                let range = values.byteRange(at: row)
                append(bytes: UnsafeRawBufferPointer(rebasing: data[range]))
            }
        default:
            append(column.value(at: row))
        }
    }
}
