import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// State keys for operators that keep every row of a partition in order (top-N, over-window):
/// the vnode and encoding of the partition columns (a prefix shared by the partition's rows,
/// read as one range), then the order keys in their directions and NULL placement, then every
/// column, so equal rows share a key (counted) and rows tied on the order still sort alike.
struct OrderedPartitionKeys {
    let partitionColumns: [Int]
    let order: [SortKey]
    let types: [DataType]

    /// The key prefix of row `row`'s partition.
    func prefix(_ data: Chunk, row: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        VirtualNode.appendKey(to: &bytes) { bytes in
            for column in partitionColumns { MemcomparableEncoding.append(data.columns[column], row: row, to: &bytes) }
        }
        return bytes
    }

    /// The state key of row `row`, after its partition's `prefix`.
    func key(_ data: Chunk, row: Int, prefix: [UInt8]) -> [UInt8] {
        var key = prefix
        for sortKey in order {
            MemcomparableEncoding.append(
                data.columns[sortKey.column].value(at: row), as: types[sortKey.column], descending: sortKey.descending,
                nullsFirst: sortKey.nullsFirst, to: &key)
        }
        for column in data.columns.indices {
            MemcomparableEncoding.append(data.columns[column], row: row, to: &key)
            MemcomparableEncoding.appendExactForm(data.columns[column], row: row, to: &key)
        }
        return key
    }

    /// Stages `chunk`'s changes in `table` under their keys, and adds the partitions they touch
    /// to `touched` (each once, in first-touched order).
    func stage(_ chunk: StreamChunk, in table: inout PagedTable, touched: inout [[UInt8]], touchedSet: inout Set<[UInt8]>) {
        let data = chunk.data
        var keys: [[UInt8]] = []
        keys.reserveCapacity(data.count)
        for row in 0 ..< data.count {
            let partition = prefix(data, row: row)
            if touchedSet.insert(partition).inserted { touched.append(partition) }
            keys.append(key(data, row: row, prefix: partition))
        }
        table.stage(chunk) { bytes, row in bytes += keys[row] }
    }
}
