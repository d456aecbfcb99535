import SluiceCore

/// One sorted page of a ``PagedTable``: keys in order, each with its row and how many times
/// the row is present. Immutable once built and shared by reference between the table and
/// every snapshot that holds it, so readers never copy it and never block the writer.
///
/// Invariant: keys strictly ascending; `rows.count == keys.count`; every count is at least 1.
package final class StatePage: Sendable {
    package let keys: KeyBuffer
    /// One row per key, as typed columns.
    package let rows: Chunk
    /// How many times each key's row is present; nil when every row is present once.
    package let counts: [Int32]?
    /// The rows as readers see them: each repeated as often as it is present.
    package let published: Chunk

    /// Bytes the page's buffers hold (keys, rows, counts), for state size accounting.
    package let byteCount: Int

    package init(keys: KeyBuffer, rows: Chunk, counts: [Int32]?) {
        precondition(keys.count == rows.count && (counts?.count ?? keys.count) == keys.count, "page columns differ in length")
        self.keys = keys
        self.rows = rows
        if let counts, counts.contains(where: { $0 != 1 }) {
            self.counts = counts
            var expanded: [Int] = []
            expanded.reserveCapacity(counts.reduce(0) { $0 + Int($1) })
            for (rowIndex, count) in counts.enumerated() {
                for _ in 0 ..< Int(count) { expanded.append(rowIndex) }
            }
            self.published = rows.gather(expanded)
        } else {
            self.counts = nil
            self.published = rows
        }
        byteCount = keys.bytes.count + keys.count * 4 + rows.columns.reduce(0) { $0 + Self.bytes(of: $1) } + (self.counts?.count ?? 0) * 4
    }

    /// The bytes a column's buffers hold: values, offsets and validity.
    static func bytes(of column: Column) -> Int {
        let validity = column.validity == nil ? 0 : (column.count + 7) / 8
        switch column.storage {
        case .bool(let values): return values.count + validity
        case .int16(let values): return values.count * 2 + validity
        case .int32(let values): return values.count * 4 + validity
        case .int64(let values): return values.count * 8 + validity
        case .float32(let values): return values.count * 4 + validity
        case .float64(let values): return values.count * 8 + validity
        case .decimal(let values): return values.count * MemoryLayout<Decimal>.stride + validity
        case .interval(let values): return values.count * MemoryLayout<Interval>.stride + validity
        case .bytes(let values): return values.data.count + values.offsets.count * 4 + validity
        case .structure(let children, _): return children.reduce(validity) { $0 + bytes(of: $1) }
        case .list(let offsets, let elements): return offsets.count * 4 + bytes(of: elements) + validity
        }
    }

    package var keyCount: Int { keys.count }

    /// How many times the row of key `index` is present.
    @inlinable
    package func count(at index: Int) -> Int32 { counts?[index] ?? 1 }
}
