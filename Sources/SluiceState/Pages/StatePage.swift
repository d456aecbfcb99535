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
    }

    package var keyCount: Int { keys.count }

    /// How many times the row of key `index` is present.
    @inlinable
    package func count(at index: Int) -> Int32 { counts?[index] ?? 1 }
}
