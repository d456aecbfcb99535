import Synchronization
import SluiceCore

/// The rows of one table, held as immutable columnar chunks, safe to share between sessions.
///
/// Readers take a ``Snapshot`` (an array of chunks, copied by reference) and scan it without a
/// lock. Writers replace chunks under the lock. With a primary key, inserting a row whose key
/// exists replaces the old row (RisingWave's upsert semantics for tables).
package final class TableStore: Sendable {
    /// The column types of every row.
    package let types: [DataType]
    /// Indexes of the primary-key columns (empty: no key, duplicates allowed).
    package let primaryKey: [Int]

    private struct State {
        var chunks: [Chunk] = []
        /// A view's rows: its pages as last published (``replaceAll(with:)``).
        var pages: [StatePage] = []
        /// Encoded primary key → (chunk, row). Kept only when there is a primary key.
        var keyIndex: [KeyBytes: RowLocation] = [:]
        var rowCount = 0
        /// Chunks emptied by removals and left in place (see ``removeRows(_:from:primaryKey:)``).
        var emptyChunks = 0
        /// Rows still on disk: a checkpoint's file and the changes logged after it, read in at
        /// the table's first use (``load(_:)``).
        var unread: Unread?
    }

    /// A table recovered but not yet read in: its checkpoint file, checked, and the changes to
    /// apply on top of it, in order.
    private struct Unread {
        var file: TableFile
        var changes: [(op: ChangeOp, rows: Chunk)] = []
        /// The rows there will be, while every change is an insertion into a table without a
        /// primary key (nil once that is not so: counting then needs the rows).
        var rowCount: Int?
    }

    private let state = Mutex(State())

    package init(types: [DataType], primaryKey: [Int]) {
        self.types = types
        self.primaryKey = primaryKey
    }

    /// A consistent view of the table's rows at one moment.
    package struct Snapshot: Sendable {
        fileprivate var stored: [Chunk]
        /// A view's pages, read (and evicted ones loaded back) when ``chunks`` is asked for.
        fileprivate var pages: [StatePage]
        package var rowCount: Int

        /// Every row, as chunks.
        package var chunks: [Chunk] { pages.isEmpty ? stored : stored + pages.map(\.publishedForReading) }
    }

    package func snapshot() -> Snapshot {
        state.withLock { state in
            load(&state)
            return Snapshot(
                stored: state.emptyChunks == 0 ? state.chunks : state.chunks.filter { !$0.isEmpty }, pages: state.pages,
                rowCount: state.rowCount)
        }
    }

    package var rowCount: Int {
        state.withLock { state in
            if let count = state.unread?.rowCount { return count }
            load(&state)
            return state.rowCount
        }
    }

    // MARK: Recovery

    /// Makes `file` (checked by ``TableFile/open(_:types:)``) the table's rows, left on disk
    /// until the table is first used. The table must be empty.
    package func restore(from file: TableFile) {
        state.withLock { state in
            state = State()
            state.unread = Unread(file: file, rowCount: file.rowCount)
        }
    }

    /// Applies a change read back from the write-ahead log: an insertion (upserting by the
    /// primary key) or a deletion (by the primary key, or of one equal row without one). A
    /// table still on disk keeps the change to apply when it is read in.
    package func replay(_ op: ChangeOp, _ rows: Chunk) throws(SluiceError) {
        let deferred = state.withLock { state -> Bool in
            guard var unread = state.unread else { return false }
            state.unread = nil
            unread.changes.append((op, rows))
            unread.rowCount = op.isInsertion && primaryKey.isEmpty ? unread.rowCount.map { $0 + rows.count } : nil
            state.unread = unread
            return true
        }
        if deferred { return }
        if op.isInsertion {
            try insert(rows)
        } else if primaryKey.isEmpty {
            removeRows(equalTo: rows)
        } else {
            _ = delete(keysOf: rows)
        }
    }

    /// What a checkpoint of the table writes: its rows, or the file they were recovered from
    /// when nothing has changed them since.
    package func checkpointContents() -> CheckpointContents {
        state.withLock { state in
            if let unread = state.unread, unread.changes.isEmpty { return .file(unread.file) }
            load(&state)
            return .chunks(state.emptyChunks == 0 ? state.chunks : state.chunks.filter { !$0.isEmpty })
        }
    }

    package enum CheckpointContents {
        case chunks([Chunk])
        case file(TableFile)
    }

    /// Reads in rows left on disk at recovery, and applies the changes logged after them.
    private func load(_ state: inout State) {
        guard let unread = state.unread else { return }
        state.unread = nil
        let chunks: [Chunk]
        do {
            chunks = try unread.file.chunks()
        } catch {
            // The file passed every check when recovery opened it; only a change on disk since
            // (checkpoint files are never rewritten) can fail here.
            fatalError("table file \(unread.file.path) changed on disk after recovery read it: \(error.message)")
        }
        for chunk in chunks { Self.append(chunk, to: &state, mergeTail: false) }
        Self.rebuildIndex(&state, primaryKey: primaryKey)
        for change in unread.changes {
            if change.op.isInsertion {
                if primaryKey.isEmpty {
                    Self.append(change.rows, to: &state)
                } else {
                    let keys = (0 ..< change.rows.count).map { KeyBytes(change.rows, row: $0, columns: primaryKey) }
                    _ = Self.upsert(change.rows, keys: keys, into: &state, primaryKey: primaryKey, types: types)
                }
            } else if primaryKey.isEmpty {
                _ = Self.removeRows(equalTo: change.rows, from: &state, primaryKey: primaryKey)
            } else {
                _ = Self.delete(keysOf: change.rows, from: &state, primaryKey: primaryKey, types: types)
            }
        }
    }

    /// Appends the rows of `chunk` (whose columns have this table's types). With a primary key,
    /// existing rows with the same key are replaced; within `chunk`, the last row for a key wins.
    /// Rows with a null key column are rejected with 23502. Returns the rows stored and the
    /// rows they replaced (RisingWave's upsert), which is what the table's change stream shows.
    @discardableResult
    package func insert(_ chunk: Chunk) throws(SluiceError) -> InsertResult {
        if chunk.isEmpty { return InsertResult(inserted: chunk, replaced: nil) }
        if primaryKey.isEmpty {
            state.withLock { state in
                if var unread = state.unread {
                    // Appending needs none of the rows on disk.
                    state.unread = nil
                    unread.changes.append((.insert, chunk))
                    unread.rowCount = unread.rowCount.map { $0 + chunk.count }
                    state.unread = unread
                } else {
                    Self.append(chunk, to: &state)
                }
            }
            return InsertResult(inserted: chunk, replaced: nil)
        }
        for keyColumn in primaryKey where chunk.columns[keyColumn].hasNulls {
            throw SluiceError(.notNullViolation, "null value in column of primary key violates not-null constraint")
        }
        let keys = (0 ..< chunk.count).map { KeyBytes(chunk, row: $0, columns: primaryKey) }
        return state.withLock { state in
            load(&state)
            return Self.upsert(chunk, keys: keys, into: &state, primaryKey: primaryKey, types: types)
        }
    }

    /// Stores `chunk`'s rows (whose primary keys are `keys`), replacing the stored rows with the
    /// same keys; within `chunk`, the last row for a key wins.
    private static func upsert(
        _ chunk: Chunk, keys: [KeyBytes], into state: inout State, primaryKey: [Int], types: [DataType]
    ) -> InsertResult {
        var lastRow: [KeyBytes: Int] = [:]
        for (rowIndex, key) in keys.enumerated() { lastRow[key] = rowIndex }
        let keptRows = (0 ..< chunk.count).filter { lastRow[keys[$0]] == $0 }
        let kept = keptRows.count == chunk.count ? chunk : chunk.gather(keptRows)
        var doomed: [Int: [Int]] = [:]
        var replaced: [Chunk] = []
        for rowIndex in keptRows {
            if let location = state.keyIndex[keys[rowIndex]] {
                doomed[location.chunk, default: []].append(location.row)
            }
        }
        for (chunkIndex, rows) in doomed { replaced.append(state.chunks[chunkIndex].gather(rows)) }
        if !doomed.isEmpty { removeRows(doomed, from: &state, primaryKey: primaryKey) }
        let chunkIndex = state.chunks.count
        append(kept, to: &state, mergeTail: false)
        for (position, rowIndex) in keptRows.enumerated() {
            state.keyIndex[keys[rowIndex]] = RowLocation(chunk: chunkIndex, row: position)
        }
        return InsertResult(inserted: kept, replaced: replaced.isEmpty ? nil : Chunk.concatenate(replaced, types: types))
    }

    /// Deletes the rows whose primary key is that of a row of `keys` (a chunk of this table's
    /// columns; only the key columns are read) and returns them, or nil when none matched.
    package func delete(keysOf keys: Chunk) -> Chunk? {
        guard !primaryKey.isEmpty, !keys.isEmpty else { return nil }
        return state.withLock { state -> Chunk? in
            load(&state)
            return Self.delete(keysOf: keys, from: &state, primaryKey: primaryKey, types: types)
        }
    }

    private static func delete(keysOf keys: Chunk, from state: inout State, primaryKey: [Int], types: [DataType]) -> Chunk? {
        var doomed: [Int: [Int]] = [:]
        var seen = Set<KeyBytes>()
        for row in 0 ..< keys.count {
            let key = KeyBytes(keys, row: row, columns: primaryKey)
            guard seen.insert(key).inserted else { continue }
            if let location = state.keyIndex[key] { doomed[location.chunk, default: []].append(location.row) }
        }
        guard !doomed.isEmpty else { return nil }
        let removed = doomed.sorted { $0.key < $1.key }.map { state.chunks[$0.key].gather($0.value) }
        removeRows(doomed, from: &state, primaryKey: primaryKey)
        return Chunk.concatenate(removed, types: types)
    }

    /// Removes one stored row equal to each row of `rows` (all columns compared), where there is
    /// one: how a replayed delete finds its row in a table without a primary key. Returns the
    /// number of rows removed.
    @discardableResult
    package func removeRows(equalTo rows: Chunk) -> Int {
        guard !rows.isEmpty else { return 0 }
        return state.withLock { state -> Int in
            load(&state)
            return Self.removeRows(equalTo: rows, from: &state, primaryKey: primaryKey)
        }
    }

    private static func removeRows(equalTo rows: Chunk, from state: inout State, primaryKey: [Int]) -> Int {
        let columns = Array(rows.columns.indices)
        var wanted: [KeyBytes: Int] = [:]
        for rowIndex in 0 ..< rows.count { wanted[KeyBytes(rows, row: rowIndex, columns: columns), default: 0] += 1 }
        var doomed: [Int: [Int]] = [:]
        var removed = 0
        for (chunkIndex, chunk) in state.chunks.enumerated() where !wanted.isEmpty {
            for rowIndex in 0 ..< chunk.count {
                let key = KeyBytes(chunk, row: rowIndex, columns: columns)
                guard let remaining = wanted[key] else { continue }
                wanted[key] = remaining == 1 ? nil : remaining - 1
                doomed[chunkIndex, default: []].append(rowIndex)
                removed += 1
            }
        }
        if !doomed.isEmpty { removeRows(doomed, from: &state, primaryKey: primaryKey) }
        return removed
    }

    /// What ``insert(_:)`` stored and what it replaced.
    package struct InsertResult {
        package var inserted: Chunk
        package var replaced: Chunk?
    }

    /// Makes `pages` the table's rows (a materialized view publishing an epoch). Keeps no key
    /// index: views are written only this way.
    package func replaceAll(with pages: [StatePage]) {
        state.withLock { state in
            state.chunks = []
            state.pages = pages
            state.rowCount = pages.reduce(0) { $0 + $1.rowCount }
            state.keyIndex = [:]
            state.emptyChunks = 0
            state.unread = nil
        }
    }

    /// Replaces the table's rows by those for which `transform` returns a chunk: `transform` is
    /// called once per stored chunk under the write lock and returns the chunk to keep (rows
    /// removed or changed) plus rows to add back through ``insert(_:)`` afterwards (updates that
    /// may move a primary key). Returns the number of rows `transform` reports as affected, and
    /// what the inserts stored and replaced.
    package func rewrite(
        _ transform: (Chunk) throws(SluiceError) -> (kept: Chunk, affected: Int, reinserted: Chunk?)
    ) throws(SluiceError) -> RewriteResult {
        var result = RewriteResult()
        var reinserted: [Chunk] = []
        try state.withLock { (state: inout State) throws(SluiceError) in
            load(&state)
            var newChunks: [Chunk] = []
            for chunk in state.chunks {
                let outcome = try transform(chunk)
                result.affected += outcome.affected
                if !outcome.kept.isEmpty { newChunks.append(outcome.kept) }
                if let extra = outcome.reinserted, !extra.isEmpty { reinserted.append(extra) }
            }
            state.chunks = newChunks
            state.rowCount = newChunks.reduce(0) { $0 + $1.count }
            state.emptyChunks = 0
            Self.rebuildIndex(&state, primaryKey: primaryKey)
        }
        for chunk in reinserted {
            let outcome = try insert(chunk)
            result.inserted.append(outcome.inserted)
            if let replaced = outcome.replaced { result.replaced.append(replaced) }
        }
        return result
    }

    /// What ``rewrite(_:)`` did.
    package struct RewriteResult {
        package var affected = 0
        /// Rows added back by insert.
        package var inserted: [Chunk] = []
        /// Rows those inserts replaced.
        package var replaced: [Chunk] = []
    }

    /// A read-only copy of the rows as they are now (no key index). The chunks are shared, not
    /// copied: a view's pages, taken for one query in O(1).
    package func frozenCopy() -> TableStore {
        let copy = TableStore(types: types, primaryKey: [])
        let snapshot = snapshot()
        copy.state.withLock { state in
            state.chunks = snapshot.stored
            state.pages = snapshot.pages
            state.rowCount = snapshot.rowCount
        }
        return copy
    }

    /// Removes every row.
    package func truncate() {
        state.withLock { $0 = State() }
    }

    private static func append(_ chunk: Chunk, to state: inout State, mergeTail: Bool = true) {
        if mergeTail, let last = state.chunks.last, last.count + chunk.count <= Chunk.preferredSize {
            state.chunks[state.chunks.count - 1] = Chunk.concatenate([last, chunk], types: last.types)
        } else {
            state.chunks.append(chunk)
        }
        state.rowCount += chunk.count
    }

    /// Removes rows `doomed[chunk]` from each chunk. Only the chunks that lost rows are laid out
    /// again and have their rows' index entries moved; an emptied chunk stays in place (so other
    /// chunks' positions hold) until empty chunks are a quarter of all, when they go and the
    /// index is rebuilt once.
    /// - Complexity: O(rows of the chunks touched), amortized.
    private static func removeRows(_ doomed: [Int: [Int]], from state: inout State, primaryKey: [Int]) {
        for (chunkIndex, rows) in doomed {
            let chunk = state.chunks[chunkIndex]
            let removed = Set(rows)
            let keep = (0 ..< chunk.count).filter { !removed.contains($0) }
            let kept = chunk.gather(keep)
            state.chunks[chunkIndex] = kept
            state.rowCount -= removed.count
            if kept.isEmpty { state.emptyChunks += 1 }
            guard !primaryKey.isEmpty else { continue }
            for row in removed { state.keyIndex.removeValue(forKey: KeyBytes(chunk, row: row, columns: primaryKey)) }
            for position in 0 ..< kept.count {
                state.keyIndex[KeyBytes(kept, row: position, columns: primaryKey)] = RowLocation(chunk: chunkIndex, row: position)
            }
        }
        if state.emptyChunks > 16 && state.emptyChunks * 4 > state.chunks.count {
            state.chunks.removeAll { $0.isEmpty }
            state.emptyChunks = 0
            rebuildIndex(&state, primaryKey: primaryKey)
        }
    }

    private static func rebuildIndex(_ state: inout State, primaryKey: [Int]) {
        guard !primaryKey.isEmpty else { return }
        state.keyIndex.removeAll(keepingCapacity: true)
        for (chunkIndex, chunk) in state.chunks.enumerated() {
            for rowIndex in 0 ..< chunk.count {
                state.keyIndex[KeyBytes(chunk, row: rowIndex, columns: primaryKey)] = RowLocation(chunk: chunkIndex, row: rowIndex)
            }
        }
    }
}

/// Where a row lives in a ``TableStore``.
struct RowLocation: Sendable {
    var chunk: Int
    var row: Int
}

/// The key columns of one row encoded as bytes, for hashing and equality.
package struct KeyBytes: Hashable, Sendable {
    package var bytes: [UInt8]

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
            fixed(normalized.mantissa == 0 ? 0 : normalized.scale)
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
