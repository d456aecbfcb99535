#if canImport(Glibc)
import Glibc
#endif
import SluiceCore
import SluiceExpr
import SluicePlan

/// One row's sort keys, against which whole chunks are compared: a top-N's last kept row, which
/// a new row must sort strictly before to be a candidate at all.
///
/// The comparison goes a key column at a time over the rows still tied on the keys before it,
/// with a loop per column type (words for integers, `memcmp` for text), as the sort's own
/// comparisons are: no value is boxed per row.
struct SortBoundary {
    /// The boundary row: row 0 of a chunk with the input's columns.
    let row: Chunk
    let keys: [SortKey]

    /// The rows of `chunk` (with the boundary's columns) that sort strictly before the boundary,
    /// in row order. Rows tied with it are left out: in a stable sort they come after it.
    /// - Complexity: O(rows × keys), each key compared only for rows tied on the keys before it.
    func rowsBefore(in chunk: Chunk) -> [Int] {
        var before = [Bool](repeating: false, count: chunk.count)
        // The rows tied with the boundary on the keys so far.
        var tied = Array(0 ..< chunk.count)
        for key in keys where !tied.isEmpty {
            let column = chunk.columns[key.column]
            let bound = row.columns[key.column]
            var stillTied: [Int] = []
            // -1 before, 0 tied, 1 after, for a row whose value and the boundary's are not null,
            // in the key's direction.
            func decide(_ row: Int, _ order: Int) {
                if order == 0 {
                    stillTied.append(row)
                } else if (order < 0) != key.descending {
                    before[row] = true
                }
            }
            let boundNull = bound.isNull(0)
            if boundNull || column.hasNulls {
                // Rows with a null: placed by the key's null order; the others go on below.
                var nonNull: [Int] = []
                for rowIndex in tied {
                    let isNull = column.isNull(rowIndex)
                    if isNull && boundNull {
                        stillTied.append(rowIndex)
                    } else if isNull {
                        before[rowIndex] = key.nullsFirst
                    } else if boundNull {
                        before[rowIndex] = !key.nullsFirst
                    } else {
                        nonNull.append(rowIndex)
                    }
                }
                tied = boundNull ? [] : nonNull
            }
            switch (column.storage, bound.storage) {
            case (.int64(let values), .int64(let bounds)):
                let limit = bounds[0]
                for rowIndex in tied { decide(rowIndex, ValueOrdering.order(values[rowIndex], limit)) }
            case (.int32(let values), .int32(let bounds)):
                let limit = bounds[0]
                for rowIndex in tied { decide(rowIndex, ValueOrdering.order(values[rowIndex], limit)) }
            case (.int16(let values), .int16(let bounds)):
                let limit = bounds[0]
                for rowIndex in tied { decide(rowIndex, ValueOrdering.order(values[rowIndex], limit)) }
            case (.float64(let values), .float64(let bounds)):
                let limit = bounds[0]
                for rowIndex in tied { decide(rowIndex, ValueOrdering.floatOrder(values[rowIndex], limit)) }
            case (.bytes(let values), .bytes(let bounds)):
                bounds.withBytes(at: 0) { limit in
                    values.data.withUnsafeBufferPointer { data in
                        for rowIndex in tied {
                            let range = values.byteRange(at: rowIndex)
                            let bytes = UnsafeBufferPointer(rebasing: data[range])
                            decide(rowIndex, ValueOrdering.bytesOrder(bytes, limit))
                        }
                    }
                }
            default:
                for rowIndex in tied { decide(rowIndex, ValueOrdering.compare(column, rowIndex, bound, 0)) }
            }
            tied = stillTied
        }
        return before.indices.filter { before[$0] }
    }
}
