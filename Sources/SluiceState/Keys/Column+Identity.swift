import SluiceCore

extension Column {
    /// Whether row `row` of this column and row `otherRow` of `other` (of the same type) hold
    /// the same value down to how it displays: `1.5` and `1.50`, or `0` and `-0`, are equal
    /// values but not identical.
    package func isIdentical(_ row: Int, to other: Column, _ otherRow: Int) -> Bool {
        let null = isNull(row)
        if null != other.isNull(otherRow) { return false }
        if null { return true }
        switch (storage, other.storage) {
        case (.bool(let a), .bool(let b)): return a[row] == b[otherRow]
        case (.int16(let a), .int16(let b)): return a[row] == b[otherRow]
        case (.int32(let a), .int32(let b)): return a[row] == b[otherRow]
        case (.int64(let a), .int64(let b)): return a[row] == b[otherRow]
        // The bits: -0 is not 0 (a NaN of other bits only costs an update that changes nothing).
        case (.float32(let a), .float32(let b)): return a[row].bitPattern == b[otherRow].bitPattern
        case (.float64(let a), .float64(let b)): return a[row].bitPattern == b[otherRow].bitPattern
        case (.bytes(let a), .bytes(let b)):
            let (left, right) = (a.byteRange(at: row), b.byteRange(at: otherRow))
            return left.count == right.count && a.data[left].elementsEqual(b.data[right])
        default:
            let (a, b) = (value(at: row), other.value(at: otherRow))
            guard a == b else { return false }
            var (left, right): ([UInt8], [UInt8]) = ([], [])
            MemcomparableEncoding.appendExactForm(a, to: &left)
            MemcomparableEncoding.appendExactForm(b, to: &right)
            return left == right
        }
    }
}
