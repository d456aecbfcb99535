import Synchronization
import SluiceCore

/// A secondary index of a table (`CREATE INDEX`): the table's rows in a paged state table sorted
/// by the index's key columns, for point and range lookups (RisingWave's index, which is a
/// materialized view of the table ordered by its key).
///
/// Each row is stored under its key columns' order-preserving encoding (ascending or
/// descending, nulls last or first, as declared) followed by the whole row's identity, so equal
/// keys keep every row and equal rows are counted. The table's writes apply their changes here
/// in the same step as to the table (``apply(_:)``), so a lookup sees what a scan would. The
/// index is derived state: a restart builds it again from the recovered table (``rebuild(from:)``).
///
/// A materialized view's index takes each published epoch's changes (``apply(_:)-([StreamChunk])``)
/// in the step that publishes the view's rows, and a query reads it as of the view's epoch
/// (``frozen()``).
package final class TableIndex: Sendable {
    package let types: [DataType]
    package let keys: [SortKey]
    private let table: Mutex<PagedTable>
    /// A frozen index's pages: the index as it was when frozen, whatever comes after.
    private let frozenPages: [StatePage]?

    package init(types: [DataType], keys: [SortKey], memory: StateMemory? = nil) {
        self.types = types
        self.keys = keys
        table = Mutex(PagedTable(types: types, memory: memory))
        frozenPages = nil
    }

    private init(types: [DataType], keys: [SortKey], frozenPages: [StatePage]) {
        self.types = types
        self.keys = keys
        table = Mutex(PagedTable(types: types))
        self.frozenPages = frozenPages
    }

    /// The index as it is now, unchanged by later writes (its pages shared, not copied).
    package func frozen() -> TableIndex {
        TableIndex(types: types, keys: keys, frozenPages: table.withLock { $0.snapshot })
    }

    /// Applies a view's changes of one epoch (insertions and deletions of whole rows) in one step.
    package func apply(_ changes: [StreamChunk]) {
        stage(changes.map { ($0.data, $0.ops.map { $0.isInsertion ? 1 : -1 }) })
    }

    /// Stages rows with their signs (+1 added, -1 taken away) and commits them as one step.
    private func stage(_ changes: [(rows: Chunk, signs: [Int8])]) {
        let changes = changes.filter { !$0.rows.isEmpty }
        guard !changes.isEmpty else { return }
        table.withLock { table in
            for (rows, signs) in changes {
                table.stage(rows, signs: signs) { bytes, row in self.appendKey(of: rows, row: row, to: &bytes) }
            }
            _ = table.commitEpoch()
        }
    }

    /// Applies a write's changes (rows inserted and deleted, in order) to the index.
    package func apply(_ changes: [(op: ChangeOp, rows: Chunk)]) {
        stage(changes.map { ($0.rows, [Int8](repeating: $0.op.isInsertion ? 1 : -1, count: $0.rows.count)) })
    }

    /// Replaces the index's rows by `store`'s.
    package func rebuild(from store: TableStore) {
        rebuild(from: store.snapshot().chunks)
    }

    /// Replaces the index's rows by `chunks`' rows.
    package func rebuild(from chunks: some Sequence<Chunk>) {
        table.withLock { table in
            table = PagedTable(types: types, memory: table.memory)
            for rows in chunks {
                table.stage(rows, signs: [Int8](repeating: 1, count: rows.count)) { bytes, row in self.appendKey(of: rows, row: row, to: &bytes) }
            }
            _ = table.commitEpoch()
        }
    }

    /// The rows stored.
    package var rowCount: Int { frozenPages.map { $0.reduce(0) { $0 + $1.rowCount } } ?? table.withLock { $0.rowCount } }

    private func appendKey(of rows: Chunk, row: Int, to bytes: inout [UInt8]) {
        for key in keys {
            MemcomparableEncoding.append(rows.columns[key.column], row: row, descending: key.descending, nullsFirst: key.nullsFirst, to: &bytes)
        }
        for column in rows.columns { KeyEncoding.append(column, row: row, to: &bytes) }
    }

    /// A bound of a lookup on the key column after `prefix`'s.
    package typealias Bound = KeyBound

    /// The rows whose first key columns equal `prefix` (non-null values of the key columns'
    /// types) and whose next key column lies between `lower` and `upper` (in the column's
    /// value order, whichever way the index sorts it; a missing bound is open, and NULLs may be
    /// among the rows an open bound gives), in index order, a page's worth at a time as they are
    /// read: a range is never gathered whole.
    /// - Complexity: O(log n) to find the first row, then the rows returned.
    package func rows(prefix: [Value], lower: Bound?, upper: Bound?) -> IndexRange {
        precondition(prefix.count <= keys.count && (prefix.count < keys.count || (lower == nil && upper == nil)))
        var start: [UInt8] = []
        for (value, key) in zip(prefix, keys) {
            MemcomparableEncoding.append(value, as: types[key.column], descending: key.descending, nullsFirst: key.nullsFirst, to: &start)
        }
        var end = PagedTable.upperBound(ofPrefix: start)
        if prefix.count < keys.count {
            let key = keys[prefix.count]
            // In a descending column, the value order's lower bound is the key order's upper.
            let (first, last) = key.descending ? (upper, lower) : (lower, upper)
            let prefixBytes = start
            func encoded(_ bound: Bound) -> [UInt8] {
                var bytes = prefixBytes
                MemcomparableEncoding.append(bound.value, as: types[key.column], descending: key.descending, nullsFirst: key.nullsFirst, to: &bytes)
                return bytes
            }
            if let first {
                let bytes = encoded(first)
                // Keys continue past the column's encoding with the rest of the row.
                start = first.inclusive ? bytes : (PagedTable.upperBound(ofPrefix: bytes) ?? bytes)
            }
            if let last {
                let bytes = encoded(last)
                end = last.inclusive ? PagedTable.upperBound(ofPrefix: bytes) : bytes
            }
        }
        return IndexRange(pages: frozenPages ?? table.withLock { $0.snapshot }, from: start, before: end)
    }
}

/// The rows of an index's pages whose keys are at or after a start and before an end (nil: to
/// the end), in key order, one chunk per page read. The pages are the index's snapshot when the
/// lookup began, so writes after it are not seen.
package struct IndexRange: Sequence, IteratorProtocol {
    private let pages: [StatePage]
    private let start: [UInt8]
    private let end: [UInt8]?
    private var page: Int

    init(pages: [StatePage], from start: [UInt8], before end: [UInt8]?) {
        self.pages = pages
        self.start = start
        self.end = end
        // The first page that ends at or after `start`.
        var low = 0, high = pages.count
        while low < high {
            let middle = (low + high) / 2
            if pages[middle].lastKey.compare(0, with: start) < 0 { low = middle + 1 } else { high = middle }
        }
        page = low
    }

    package mutating func next() -> Chunk? {
        while page < pages.count {
            let current = pages[page]
            if let end, current.firstKey.compare(0, with: end) >= 0 {
                page = pages.count
                return nil
            }
            page += 1
            let contents = current.contents
            let first = contents.keys.count(before: start, orEqual: false)
            let stop = end.map { contents.keys.count(before: $0, orEqual: false) } ?? contents.keys.count
            guard first < stop else { continue }
            if first == 0, stop == contents.keys.count, contents.counts == nil { return contents.rows }
            var picks: [Int] = []
            picks.reserveCapacity(stop - first)
            for index in first ..< stop {
                let count = contents.counts.map { Int($0[index]) } ?? 1
                for _ in 0 ..< Swift.max(count, 0) { picks.append(index) }
            }
            return contents.rows.gather(picks)
        }
        return nil
    }
}
