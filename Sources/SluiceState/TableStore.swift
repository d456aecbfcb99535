import Synchronization
import SluiceCore

/// The rows of one table, or of a view for readers, safe to share between sessions.
///
/// A table's rows are a paged state table (``PagedTable``): sorted columnar pages keyed by the
/// primary key (its vnode, then its memcomparable encoding) or, without one, by a hidden
/// increasing row id (RisingWave's `_row_id`), so rows keep their insertion order. Each write
/// stages its changes and commits them before it returns, rewriting only the pages it touched;
/// readers take the pages (``Snapshot``), shared by reference, and scan them without a lock.
/// With a primary key, inserting a row whose key exists replaces the old row (RisingWave's
/// upsert semantics for tables).
///
/// A view's store holds the pages its materializer last published (``replaceAll(with:)``).
package final class TableStore: Sendable {
    /// The column types of every row.
    package let types: [DataType]
    /// Indexes of the primary-key columns (empty: no key, duplicates allowed).
    package let primaryKey: [Int]
    /// What an insert of a key already held does (with a primary key).
    package let onConflict: ConflictBehavior
    /// With `ON CONFLICT DO UPDATE … WITH VERSION COLUMN(c)`: `c`'s index. An insert replaces
    /// the stored row of its key only if its version is not older (``TableStore+Versions``).
    package let versionColumn: Int?
    /// The budget the table's pages count against (`--memory-limit`): past it, a commit
    /// evicts the table's coldest pages to its spill file.
    package let memory: StateMemory?

    struct State {
        var table: PagedTable
        /// The next hidden row id of a table without a primary key.
        var nextRowID: UInt64 = 0
        /// Writes staged in `table` and not yet committed: the latest row staged under each key
        /// (a chunk of `stagedChunks` and a row there), or a deletion (chunk -1). Writes commit
        /// when the rows are read (``commit(_:)``) or enough of them wait, so a one-row write
        /// costs a lookup and a staged row, not a page rewrite.
        var staged = StagedKeyIndex()
        var stagedChunks: [Chunk] = []
        var stagedRows = 0
        /// How many of the staged rows have keys past every committed key of their vnode (new
        /// keys appended at the end of their vnode's range, as a table loaded in key order gets
        /// them): while all are, a commit rewrites at most the last page of each vnode.
        var stagedAppends = 0
        /// The bytes of the staged rows (``Chunk/byteCount``), for bounding them by the memory
        /// budget; shown as the table's share of ``MemoryOwner/tableWrites``.
        var stagedBytes = 0 {
            didSet { stagedShare.set(stagedBytes) }
        }
        let stagedShare = MemoryShare(.tableWrites)
        /// The greatest committed key of each vnode (an empty key for a vnode without one), so
        /// that a key past it is known absent without a search of the pages: what makes
        /// ascending keys (serial ids, times) cheap to upsert. Nil when not made since the last
        /// change of the pages; made for large upserts only (``vnodeBounds(of:)``).
        var vnodeBounds: KeyBuffer?
        /// A view's rows: its pages as last published (``replaceAll(with:)``).
        var viewPages: [StatePage]?
        /// Rows still on disk: a checkpoint's file and the changes logged after it, read in at
        /// the table's first use (``load(_:)``).
        fileprivate var unread: Unread?
        /// The table's checkpoints since its last base (``checkpointPiece(id:generation:)``).
        var chain = CheckpointChain()

        /// An empty table, keeping whether commits keep their changes for checkpoints.
        mutating func clear(types: [DataType], memory: StateMemory?) {
            let tracks = table.tracksChanges
            self = State(table: PagedTable(types: types, memory: memory))
            table.tracksChanges = tracks
        }
    }

    /// The table's id among the state tables of its checkpoint piece.
    package static let stateTableID = 0

    /// Rows staged past this many commit at once, or later in a large table (``commitIfMany(_:memory:byRowID:)``).
    /// A commit rewrites every page its keys fall in, and a table's keys begin with their
    /// vnode, so even ascending keys spread over up to 256 pages: the more rows a commit takes,
    /// the fewer times each page is rewritten (at 4,096 a bulk load rewrote each row about 64
    /// times; at 32,768, 8).
    static let stagedRowLimit = 32_768

    /// The share of the memory budget's page bytes that staged rows may take before they commit
    /// whatever the table's size: one sixteenth.
    static let stagedByteShare = 16

    /// Rows staged past this many commit in a table without a primary key whatever its size:
    /// its keys are row ids, which fall in the last page of each vnode's range, so a commit
    /// rewrites at most 256 pages, and a bounded one keeps the commit a checkpoint makes under
    /// the table's lock (while writers wait) short, where a share of a table of millions of rows
    /// held writes back for half a second.
    static let stagedRowIDLimit = 262_144

    /// Rows staged past this many commit in a table with a primary key when each of them
    /// appends a new key past its vnode's committed keys (a table loaded in key order): each
    /// commit rewrites at most the last page of each vnode, about as many rows again as it adds.
    static let stagedAppendLimit = 131_072

    /// Bytes a staged key costs beside its row (its bytes, hash, value and slots), roughly.
    static let stagedKeyOverhead = 48

    /// A table recovered but not yet read in: its checkpoint file, checked, and the changes to
    /// apply on top of it, in order.
    fileprivate struct Unread {
        var file: TableFile
        var changes: [(op: ChangeOp, rows: Chunk)] = []
        /// The rows there will be, while every change is an insertion into a table without a
        /// primary key (nil once that is not so: counting then needs the rows).
        var rowCount: Int?
    }

    let state: Mutex<State>

    package init(
        types: [DataType], primaryKey: [Int], onConflict: ConflictBehavior = .overwrite, versionColumn: Int? = nil, memory: StateMemory? = nil
    ) {
        self.types = types
        self.primaryKey = primaryKey
        self.onConflict = onConflict
        self.versionColumn = primaryKey.isEmpty ? nil : versionColumn
        self.memory = memory
        state = Mutex(State(table: PagedTable(types: types, memory: memory)))
    }

    /// A consistent view of the table's rows at one moment.
    package struct Snapshot: Sendable {
        fileprivate var pages: [StatePage]
        package var rowCount: Int

        /// Every row, as chunks (a page's rows read back if it was evicted).
        package var chunks: [Chunk] { pages.map(\.publishedForReading).filter { !$0.isEmpty } }

        /// The number of pages.
        package var pageCount: Int { pages.count }

        /// The number of stored columns (nil without pages).
        package var columnCount: Int? { pages.first?.types.count }

        /// Page `index`'s rows as readers see them, read back if it was evicted (and then kept
        /// only while the state is under its memory limit): reading a snapshot a page at a
        /// time holds one page of an evicted table in memory, not all of them.
        package func rows(ofPage index: Int) -> Chunk { pages[index].publishedForReading }

        /// Page `index`'s rows with one more column, the hidden row id of each (a table without
        /// a primary key: RisingWave's `_row_id`), from its key.
        package func rowsWithRowIDs(ofPage index: Int) -> Chunk {
            // (A table's page holds each key's row once: its rows are its keys' rows.)
            let contents = pages[index].contentsForReading
            var rows = contents.rows
            rows.columns.append(TableStore.rowIDs(of: contents.keys))
            return rows
        }
    }

    /// The type of a hidden row id.
    package static let rowIDType = DataType.int64

    /// The hidden row ids of a table without a primary key whose state keys are `keys` (each the
    /// vnode, two bytes, then the id, eight bytes big-endian): RisingWave's `_row_id`.
    package static func rowIDs(of keys: KeyBuffer) -> Column {
        var ids = [Int64](repeating: 0, count: keys.count)
        keys.bytes.withUnsafeBufferPointer { bytes in
            for index in 0 ..< keys.count {
                let start = keys.start(index) + 2
                let end = Int(keys.ends[index])
                var id: UInt64 = 0
                if start < end { for position in start ..< end { id = id << 8 | UInt64(bytes[position]) } }
                ids[index] = Int64(bitPattern: id)
            }
        }
        return Column(type: rowIDType, storage: .int64(ids))
    }

    package func snapshot() -> Snapshot {
        state.withLock { state in
            load(&state)
            Self.commit(&state)
            let pages = state.viewPages ?? state.table.snapshot
            return Snapshot(pages: pages, rowCount: pages.reduce(0) { $0 + $1.rowCount })
        }
    }

    package var rowCount: Int {
        state.withLock { state in
            if let count = state.unread?.rowCount { return count }
            load(&state)
            Self.commit(&state)
            return state.viewPages.map { $0.reduce(0) { $0 + $1.rowCount } } ?? state.table.rowCount
        }
    }

    // MARK: Writes

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
                } else if chunk.count >= PagedTable.pageCapacity / 2 {
                    // A chunk of a page's size or so becomes a page as it is (after the writes
                    // waiting before it): its row ids follow every key.
                    Self.commit(&state)
                    let keys = Self.rowIDKeys(count: chunk.count, state: &state)
                    if !state.table.append([(keys, chunk)]) {
                        state.table.stage(chunk, signs: [Int8](repeating: 1, count: chunk.count)) { bytes, row in keys.appendKey(row, to: &bytes) }
                        state.table.commitEpoch()
                    }
                    state.vnodeBounds = nil
                } else {
                    Self.append(chunk, to: &state)
                    Self.commitIfMany(&state, memory: memory, byRowID: primaryKey.isEmpty)
                }
            }
            return InsertResult(inserted: chunk, replaced: nil)
        }
        for keyColumn in primaryKey where chunk.columns[keyColumn].hasNulls {
            throw SluiceError(.notNullViolation, "null value in column of primary key violates not-null constraint")
        }
        if let versionColumn {
            let keys = keys(of: chunk)
            return state.withLock { state in
                load(&state)
                let result = Self.resolveVersions(chunk, keys: keys, onConflict: onConflict, versionColumn: versionColumn, into: &state)
                Self.commitIfMany(&state, memory: memory, byRowID: false)
                return result
            }
        }
        if onConflict != .overwrite {
            // Each key's rows folded into the one that writing them in turn leaves.
            let rowKeys = keys(of: chunk)
            let folded = Self.folding(chunk, groups: Self.rowsByKey(rowKeys, hashes: Self.hashes(of: rowKeys)), onConflict: onConflict)
            let keys = folded.count == chunk.count ? rowKeys : keys(of: folded)
            return state.withLock { state in
                load(&state)
                let result = Self.resolve(folded, keys: keys, onConflict: onConflict, into: &state)
                Self.commitIfMany(&state, memory: memory, byRowID: primaryKey.isEmpty)
                return result
            }
        }
        let keys = keys(of: chunk)
        return state.withLock { state in
            load(&state)
            let result = Self.upsert(chunk, keys: keys, into: &state)
            Self.commitIfMany(&state, memory: memory, byRowID: primaryKey.isEmpty)
            return result
        }
    }

    /// The state-table key of each row of `rows` (this table's columns; only the key columns
    /// are read): the vnode of the encoded primary key, then that encoding.
    func keys(of rows: Chunk) -> KeyBuffer {
        if primaryKey.count == 1, let keys = Self.integerKeys(of: rows.columns[primaryKey[0]]) { return keys }
        var keys = KeyBuffer()
        keys.reserve(additionalKeys: rows.count)
        let columns = primaryKey.map { rows.columns[$0] }
        for row in 0 ..< rows.count {
            keys.appendKey { bytes in Self.appendKey(columns, row: row, to: &bytes) }
        }
        return keys
    }

    /// The keys of a primary key of one 64- or 32-bit integer column without NULLs (serial ids,
    /// times), the same bytes as ``appendKey(_:row:to:)`` writes, each made on the stack and
    /// appended at once rather than a byte at a time through the general encoding; nil for any
    /// other column.
    static func integerKeys(of column: Column) -> KeyBuffer? {
        guard column.validity == nil else { return nil }
        switch (column.storage, column.type) {
        case (.int64(let values), .int64), (.int64(let values), .time), (.int64(let values), .timestamp), (.int64(let values), .timestamptz):
            var keys = KeyBuffer(reservingKeys: values.count, bytes: values.count * 11)
            // The vnode, then 0x01 (not NULL) and the value big-endian with its sign bit flipped.
            withUnsafeTemporaryAllocation(byteCount: 11, alignment: 8) { key in
                key[2] = 1
                for value in values {
                    key.storeBytes(of: (UInt64(bitPattern: value) ^ 0x8000_0000_0000_0000).bigEndian, toByteOffset: 3, as: UInt64.self)
                    appendIntegerKey(key, to: &keys)
                }
            }
            return keys
        case (.int32(let values), .int32), (.int32(let values), .date):
            var keys = KeyBuffer(reservingKeys: values.count, bytes: values.count * 7)
            withUnsafeTemporaryAllocation(byteCount: 7, alignment: 8) { key in
                key[2] = 1
                for value in values {
                    key.storeBytes(of: (UInt32(bitPattern: value) ^ 0x8000_0000).bigEndian, toByteOffset: 3, as: UInt32.self)
                    appendIntegerKey(key, to: &keys)
                }
            }
            return keys
        default:
            return nil
        }
    }

    /// Fills in the vnode of `key` (two vnode bytes, then the encoding) and appends it.
    @inline(__always)
    private static func appendIntegerKey(_ key: UnsafeMutableRawBufferPointer, to keys: inout KeyBuffer) {
        let vnode = VirtualNode.of(UnsafeRawBufferPointer(rebasing: key[2...]).bindMemory(to: UInt8.self))
        key[0] = UInt8(vnode >> 8)
        key[1] = UInt8(vnode & 0xFF)
        keys.append(UnsafeRawBufferPointer(key))
    }

    private static func appendKey(_ columns: [Column], row: Int, to bytes: inout [UInt8]) {
        VirtualNode.appendKey(to: &bytes) { bytes in
            for column in columns { MemcomparableEncoding.append(column, row: row, to: &bytes) }
        }
    }

    /// Stages `chunk`'s rows under new row ids (a table without a primary key).
    private static func append(_ chunk: Chunk, to state: inout State) {
        var rowID = state.nextRowID
        state.table.stage(chunk, signs: [Int8](repeating: 1, count: chunk.count)) { bytes, _ in
            appendRowID(rowID, to: &bytes)
            rowID += 1
        }
        state.nextRowID = rowID
        state.stagedRows += chunk.count
        state.stagedBytes += chunk.byteCount
    }

    /// The keys of the next `count` row ids, taken.
    private static func rowIDKeys(count: Int, state: inout State) -> KeyBuffer {
        var keys = KeyBuffer(reservingKeys: count, bytes: count * 10)
        for _ in 0 ..< count {
            keys.appendKey { bytes in appendRowID(state.nextRowID, to: &bytes) }
            state.nextRowID += 1
        }
        return keys
    }

    /// A hidden row id's key: vnode 0 (one fragment owns every vnode for now), then the id
    /// big-endian, so keys ascend with it.
    private static func appendRowID(_ rowID: UInt64, to bytes: inout [UInt8]) {
        bytes.append(0)
        bytes.append(0)
        withUnsafeBytes(of: rowID.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Commits the staged writes: their pages rewritten, readers shown them.
    private static func commit(_ state: inout State) {
        guard state.stagedRows > 0 else { return }
        state.table.commitEpoch()
        state.vnodeBounds = nil
        state.staged.removeAll()
        state.stagedChunks.removeAll(keepingCapacity: true)
        state.stagedRows = 0
        state.stagedAppends = 0
        state.stagedBytes = 0
    }

    /// Commits once the staged rows are many: at least ``stagedRowLimit`` and as many as the
    /// table holds, or past a sixteenth of the memory budget's page bytes. Since a commit costs
    /// a copy of every page its keys touch (nearly the whole table, for keys spread over the
    /// vnodes), waiting until the staged rows are a share of the table keeps a bulk load's
    /// copies at a few per row, where a fixed limit made them grow with the table. Rows that
    /// only append to each vnode's range (row ids; a table loaded in key order, as a CDC
    /// snapshot is) commit at ``stagedRowIDLimit`` too, so that the last commit of a large load,
    /// which its readers wait for, stays bounded.
    static func commitIfMany(_ state: inout State, memory: StateMemory?, byRowID: Bool) {
        guard state.stagedRows >= stagedRowLimit else { return }
        let isShareOfTable = state.stagedRows >= state.table.rowCount
        let isOverBudget = memory.map { state.stagedBytes >= $0.pageBudget / stagedByteShare } ?? false
        // Row ids, and keys appended past the table's in each vnode, fall in the last page of
        // their vnode's range: a commit rewrites at most 256 pages, whatever the table's size.
        let isManyAppends = byRowID && state.stagedRows >= stagedRowIDLimit || state.stagedAppends == state.stagedRows && state.stagedRows >= stagedAppendLimit
        if isShareOfTable || isOverBudget || isManyAppends { commit(&state) }
    }

    /// Each key's ``StagedKeyIndex/hash(_:)``, in order.
    static func hashes(of keys: KeyBuffer) -> [UInt64] {
        keys.bytes.withUnsafeBytes { bytes in
            (0 ..< keys.count).map { StagedKeyIndex.hash(UnsafeRawBufferPointer(rebasing: bytes[keys.start($0) ..< Int(keys.ends[$0])])) }
        }
    }

    /// The row under key `index` of `keys` (whose hash is `hash`) as of the writes so far:
    /// staged, or committed.
    static func find(_ index: Int, of keys: KeyBuffer, hash: UInt64, in state: inout State) -> (rows: Chunk, index: Int)? {
        let staged = keys.bytes.withUnsafeBytes { bytes in
            state.staged.value(for: UnsafeRawBufferPointer(rebasing: bytes[keys.start(index) ..< Int(keys.ends[index])]), hash: hash)
        }
        if let staged { return staged.chunk < 0 ? nil : (state.stagedChunks[Int(staged.chunk)], Int(staged.row)) }
        guard !state.table.pages.isEmpty else { return nil }
        if let bounds = state.vnodeBounds, Int(keys.ends[index]) - keys.start(index) >= 2 {
            let vnode = keys.bytes.withUnsafeBufferPointer { Int($0[keys.start(index)]) << 8 | Int($0[keys.start(index) + 1]) }
            if vnode < bounds.count && keys.compare(index, with: vnode, of: bounds) > 0 { return nil }
        }
        return state.table.find(keys.key(index)).map { ($0.contents.rows, $0.index) }
    }

    /// Whether key `index` of `keys` is past every committed key of its vnode (known from
    /// ``State/vnodeBounds``; false when they were not made).
    private static func isPastTable(_ index: Int, of keys: KeyBuffer, in state: State) -> Bool {
        guard !state.table.pages.isEmpty else { return true }
        guard let bounds = state.vnodeBounds, Int(keys.ends[index]) - keys.start(index) >= 2 else { return false }
        let vnode = keys.bytes.withUnsafeBufferPointer { Int($0[keys.start(index)]) << 8 | Int($0[keys.start(index) + 1]) }
        return vnode < bounds.count && keys.compare(index, with: vnode, of: bounds) > 0
    }

    /// Upserts of this many rows or more make ``State/vnodeBounds`` when it is missing (a
    /// few hundred page lookups, not worth it for a handful of rows).
    static let vnodeBoundsRows = 256

    /// The greatest key of each vnode in `table`, an empty key for a vnode without one.
    private static func vnodeBounds(of table: PagedTable) -> KeyBuffer {
        var bounds = KeyBuffer(reservingKeys: VirtualNode.count, bytes: VirtualNode.count * 16)
        for vnode in 0 ..< VirtualNode.count {
            // The last key before the next vnode's first possible key.
            let next: [UInt8] = [UInt8((vnode + 1) >> 8), UInt8((vnode + 1) & 0xFF)]
            var pageIndex = table.page(for: next)
            var last: [UInt8]?
            while last == nil {
                let page = table.pages[pageIndex]
                if page.lastKey.compare(0, with: next) < 0 {
                    last = page.lastKey.key(0)
                } else if page.firstKey.compare(0, with: next) < 0 {
                    let contents = page.isResident ? page.contents : page.readContents()
                    last = contents.keys.key(PagedTable.lowerBound(of: next, in: contents.keys) - 1)
                } else if pageIndex > 0 {
                    pageIndex -= 1
                } else {
                    break
                }
            }
            if let last, last.count >= 2, Int(last[0]) << 8 | Int(last[1]) == vnode {
                bounds.append(last)
            } else {
                bounds.append(EmptyCollection())
            }
        }
        return bounds
    }

    /// Stages `rows` under `keys` (`keyOf` maps a row to its key's index there, whose hash is
    /// `hashes` at that index) with `sign`s (+1 new, 0 replacing, -1 removed), remembering each
    /// key's latest row.
    static func stage(
        _ rows: Chunk, signs: [Int8], keys: KeyBuffer, keyOf: (Int) -> Int, hashes: [UInt64], in state: inout State
    ) {
        let chunkIndex = Int32(state.stagedChunks.count)
        state.stagedChunks.append(rows)
        keys.bytes.withUnsafeBytes { bytes in
            for row in 0 ..< rows.count {
                let index = keyOf(row)
                let key = UnsafeRawBufferPointer(rebasing: bytes[keys.start(index) ..< Int(keys.ends[index])])
                state.staged.set(signs[row] < 0 ? (-1, -1) : (chunkIndex, Int32(row)), for: key, hash: hashes[index])
            }
        }
        state.table.stage(rows, signs: signs) { bytes, row in keys.appendKey(keyOf(row), to: &bytes) }
        state.stagedRows += rows.count
        state.stagedBytes += rows.byteCount + rows.count * stagedKeyOverhead
    }

    /// Stages `chunk`'s rows (whose keys are `keys`) in place of the stored rows with the same
    /// keys; within `chunk`, the last row for a key wins. Returns what is stored and replaced.
    /// Each key is hashed once, for telling the chunk's keys apart, looking it up and staging it.
    private static func upsert(_ chunk: Chunk, keys: KeyBuffer, into state: inout State) -> InsertResult {
        if state.vnodeBounds == nil, keys.count >= vnodeBoundsRows, !state.table.pages.isEmpty {
            state.vnodeBounds = vnodeBounds(of: state.table)
        }
        let hashes = hashes(of: keys)
        let keptRows = lastRowOfEachKey(keys, hashes: hashes)
        let kept = keptRows.count == chunk.count ? chunk : chunk.gather(keptRows)
        var signs = [Int8](repeating: 1, count: keptRows.count)
        var replaced = RowPicks()
        var appends = 0
        for (position, row) in keptRows.enumerated() {
            if let found = find(row, of: keys, hash: hashes[row], in: &state) {
                replaced.add(found.rows, found.index)
                signs[position] = 0
            } else if isPastTable(row, of: keys, in: state) {
                appends += 1
            }
        }
        stage(kept, signs: signs, keys: keys, keyOf: { keptRows[$0] }, hashes: hashes, in: &state)
        state.stagedAppends += appends
        return InsertResult(inserted: kept, replaced: replaced.isEmpty ? nil : replaced.gathered(types: chunk.types))
    }

    /// The rows that hold the last occurrence of their key in `keys`, in order: every row when
    /// no key repeats (a chunk of distinct keys, the usual bulk load), found without a key copied.
    private static func lastRowOfEachKey(_ keys: KeyBuffer, hashes: [UInt64]) -> [Int] {
        let groups = rowsByKey(keys, hashes: hashes)
        guard groups.hasRepeats else { return groups.order }
        return (0 ..< groups.count).map { groups[$0].last! }.sorted()
    }

    /// Stages `rows` (one per key, whose keys are `keys`) against the stored rows with the same
    /// keys as `onConflict` says: a row whose key is not held goes in; one whose key is held is
    /// dropped (`ignore`) or merged with the stored row (`updateIfNotNull`). Returns what is
    /// stored and replaced.
    private static func resolve(_ rows: Chunk, keys: KeyBuffer, onConflict: ConflictBehavior, into state: inout State) -> InsertResult {
        var fresh: [Int] = []
        var held: [Int] = []
        var replaced = RowPicks()
        let hashes = hashes(of: keys)
        for row in 0 ..< rows.count {
            if let found = find(row, of: keys, hash: hashes[row], in: &state) {
                if onConflict == .updateIfNotNull {
                    held.append(row)
                    replaced.add(found.rows, found.index)
                }
            } else {
                fresh.append(row)
            }
        }
        var stored: [Chunk] = []
        if !fresh.isEmpty {
            let added = fresh.count == rows.count ? rows : rows.gather(fresh)
            stage(added, signs: [Int8](repeating: 1, count: fresh.count), keys: keys, keyOf: { fresh[$0] }, hashes: hashes, in: &state)
            stored.append(added)
        }
        let old = replaced.isEmpty ? nil : replaced.gathered(types: rows.types)
        if let old {
            let merged = onConflict.merging(held.indices.map { (source: held[$0], into: $0) }, of: rows, into: old)
            stage(merged, signs: [Int8](repeating: 0, count: held.count), keys: keys, keyOf: { held[$0] }, hashes: hashes, in: &state)
            stored.append(merged)
        }
        return InsertResult(inserted: Chunk.concatenate(stored, types: rows.types), replaced: old)
    }

    /// The stored row of each row of `keys`' primary key (a chunk of this table's columns; only
    /// the key columns are read), as of the writes so far: the rows found, and per row of
    /// `keys` its row among them (nil when the key is not stored). A CDC source fills the
    /// values upstream left out (unchanged TOAST) from them.
    package func lookup(keysOf keys: Chunk) -> (rows: Chunk, positions: [Int?]) {
        guard !primaryKey.isEmpty, !keys.isEmpty else {
            return (Chunk(columns: types.map { ColumnBuilder(type: $0, capacity: 0).finish() }, count: 0), Array(repeating: nil, count: keys.count))
        }
        let encoded = self.keys(of: keys)
        return state.withLock { state in
            load(&state)
            var found = RowPicks()
            var positions: [Int?] = []
            let hashes = Self.hashes(of: encoded)
            for row in 0 ..< keys.count {
                if let place = Self.find(row, of: encoded, hash: hashes[row], in: &state) {
                    positions.append(found.count)
                    found.add(place.rows, place.index)
                } else {
                    positions.append(nil)
                }
            }
            return (found.gathered(types: types), positions)
        }
    }

    /// Deletes the rows whose primary key is that of a row of `keys` (a chunk of this table's
    /// columns; only the key columns are read) and returns them, or nil when none matched.
    package func delete(keysOf keys: Chunk) -> Chunk? {
        guard !primaryKey.isEmpty, !keys.isEmpty else { return nil }
        let encoded = self.keys(of: keys)
        return state.withLock { state -> Chunk? in
            load(&state)
            let removed = Self.delete(encoded, from: &state, types: types)
            Self.commitIfMany(&state, memory: memory, byRowID: primaryKey.isEmpty)
            return removed
        }
    }

    private static func delete(_ keys: KeyBuffer, from state: inout State, types: [DataType]) -> Chunk? {
        var seen = Set<KeyBytes>()
        var found = RowPicks()
        var foundKeys: [Int] = []
        let hashes = hashes(of: keys)
        for row in 0 ..< keys.count {
            let key = keys.key(row)
            guard seen.insert(KeyBytes(bytes: key)).inserted, let place = find(row, of: keys, hash: hashes[row], in: &state) else { continue }
            found.add(place.rows, place.index)
            foundKeys.append(row)
        }
        guard !found.isEmpty else { return nil }
        let removed = found.gathered(types: types)
        stage(removed, signs: [Int8](repeating: -1, count: removed.count), keys: keys, keyOf: { foundKeys[$0] }, hashes: hashes, in: &state)
        return removed
    }

    /// Removes the rows stored under the state keys `keys` (as ``scanPages(_:)`` gives them) and
    /// returns them, or nil when none was there: how a statement that first read the rows it
    /// changes (an `UPDATE` or `DELETE` applied in parts) removes them, in a table with a primary
    /// key or without one.
    package func remove(keys: KeyBuffer) -> Chunk? {
        guard !keys.isEmpty else { return nil }
        return state.withLock { state -> Chunk? in
            load(&state)
            let removed = Self.delete(keys, from: &state, types: types)
            Self.commitIfMany(&state, memory: memory, byRowID: primaryKey.isEmpty)
            return removed
        }
    }

    /// Calls `body` with each stored page's rows and their state keys, in key order, as the
    /// table is at the call: the pages are a snapshot, and an evicted page is read back for this
    /// call alone (not cached), so a statement can go through a table larger than its memory.
    package func scanPages(_ body: (_ rows: Chunk, _ keys: KeyBuffer) throws(SluiceError) -> Void) throws(SluiceError) {
        let pages = state.withLock { state -> [StatePage] in
            load(&state)
            Self.commit(&state)
            return state.table.snapshot
        }
        for page in pages {
            let contents = page.readContents()
            try body(contents.rows, contents.keys)
        }
    }

    /// Removes one stored row equal to each row of `rows` (all columns compared), where there is
    /// one: how a replayed delete finds its row in a table without a primary key. Returns the
    /// number of rows removed.
    @discardableResult
    package func removeRows(equalTo rows: Chunk) -> Int {
        guard !rows.isEmpty else { return 0 }
        return state.withLock { state -> Int in
            load(&state)
            Self.commit(&state)
            let removed = Self.removeRows(equalTo: rows, from: &state)
            Self.commitIfMany(&state, memory: memory, byRowID: primaryKey.isEmpty)
            return removed
        }
    }

    /// (The writes before must be committed: the scan reads the pages.)
    private static func removeRows(equalTo rows: Chunk, from state: inout State) -> Int {
        let columns = Array(rows.columns.indices)
        var wanted: [KeyBytes: Int] = [:]
        for rowIndex in 0 ..< rows.count { wanted[KeyBytes(rows, row: rowIndex, columns: columns), default: 0] += 1 }
        var doomed = RowPicks()
        for page in state.table.pages where !wanted.isEmpty {
            let contents = page.contents
            for rowIndex in 0 ..< contents.rows.count {
                let key = KeyBytes(contents.rows, row: rowIndex, columns: columns)
                guard let remaining = wanted[key] else { continue }
                wanted[key] = remaining == 1 ? nil : remaining - 1
                doomed.add(contents.rows, rowIndex, key: (contents.keys, rowIndex))
            }
        }
        stageRemovals(doomed, in: &state)
        return doomed.count
    }

    /// Stages the removal of the committed rows `doomed` picks (with their keys).
    private static func stageRemovals(_ doomed: RowPicks, in state: inout State) {
        guard !doomed.isEmpty else { return }
        let rows = doomed.gathered(types: state.table.types)
        stage(rows, signs: [Int8](repeating: -1, count: rows.count), keys: doomed.keys, keyOf: { $0 }, hashes: hashes(of: doomed.keys), in: &state)
    }

    /// What ``insert(_:)`` stored and what it replaced.
    package struct InsertResult {
        package var inserted: Chunk
        package var replaced: Chunk?
    }

    /// Removes, and may replace, the rows `select` picks: `select` is called with the stored rows
    /// a chunk at a time under the write lock and returns which of them to remove (nil: none),
    /// plus rows to add back through ``insert(_:)`` afterwards (updates, which may move a
    /// primary key). Returns the rows removed and what the inserts stored and replaced.
    package func rewrite(
        _ select: (Chunk) throws(SluiceError) -> (removed: Bitmap?, reinserted: Chunk?)
    ) throws(SluiceError) -> RewriteResult {
        var result = RewriteResult()
        var reinserted: [Chunk] = []
        try state.withLock { (state: inout State) throws(SluiceError) in
            load(&state)
            Self.commit(&state)
            var doomed = RowPicks()
            for page in state.table.pages {
                let contents = page.contents
                let outcome = try select(contents.rows)
                if let mask = outcome.removed, mask.setCount > 0 {
                    result.removed.append(contents.rows.filter(mask))
                    for index in 0 ..< contents.rows.count where mask[index] { doomed.add(contents.rows, index, key: (contents.keys, index)) }
                }
                if let extra = outcome.reinserted, !extra.isEmpty { reinserted.append(extra) }
            }
            Self.stageRemovals(doomed, in: &state)
            Self.commit(&state)
        }
        for chunk in reinserted {
            let outcome = try insert(chunk)
            result.inserted.append(outcome.inserted)
            if let replaced = outcome.replaced { result.replaced.append(replaced) }
        }
        return result
    }

    /// Removes the stored rows `picks` chooses (their positions among a page's rows, ascending)
    /// and returns how many went: how state a watermark put out of reach is dropped (a source's
    /// seen keys). Unlike ``rewrite(_:)`` it keeps nothing of the rows it removes but their keys,
    /// and reads an evicted page back for the scan alone, so it stays within the memory limit.
    /// - Complexity: a scan of every page under the table's lock, and a commit of those that lose rows.
    @discardableResult
    package func removeRows(where picks: (Chunk) -> [Int]) -> Int {
        state.withLock { state in
            load(&state)
            Self.commit(&state)
            let removed = state.table.removeRows(where: picks)
            if !removed.isEmpty { state.vnodeBounds = nil }
            return removed.count
        }
    }

    /// What ``rewrite(_:)`` did.
    package struct RewriteResult {
        /// Rows removed, a chunk per page.
        package var removed: [Chunk] = []
        /// Rows added back by insert.
        package var inserted: [Chunk] = []
        /// Rows those inserts replaced.
        package var replaced: [Chunk] = []
    }

    // MARK: Views

    /// Makes `pages` the store's rows (a materialized view publishing an epoch): views are
    /// written only this way.
    package func replaceAll(with pages: [StatePage]) {
        state.withLock { state in
            state.viewPages = pages
            state.unread = nil
        }
    }

    /// A read-only copy of the rows as they are now. The pages are shared, not copied: a view's
    /// rows, taken for one query in O(1).
    package func frozenCopy() -> TableStore {
        let copy = TableStore(types: types, primaryKey: [])
        let snapshot = snapshot()
        copy.state.withLock { $0.viewPages = snapshot.pages }
        return copy
    }

    /// Removes every row.
    package func truncate() {
        state.withLock { $0.clear(types: types, memory: memory) }
    }

    // MARK: Checkpoints

    /// Makes every commit keep its changes for the next ``checkpointPiece(id:generation:)``.
    package func enableCheckpoints() {
        state.withLock { $0.table.tracksChanges = true }
    }

    /// The table's piece of a state checkpoint, as relation `id`, with the writes so far (called
    /// with no write in progress, at the checkpoint's cut): its pages when it has no chain to
    /// extend or base generation `generation` asks for one (a base), else the changes since the
    /// last piece, left unmerged for the checkpoint's writer. A table read in from a table
    /// checkpoint file is read now.
    package func checkpointPiece(id: Int, generation: Int) -> FragmentCheckpoint {
        state.withLock { state in
            load(&state)
            Self.commit(&state)
            let isBase = state.chain.needsBase(stateBytes: state.table.byteCount, generation: generation)
            let image = state.table.checkpoint(table: Self.stateTableID, everything: isBase, merging: false)
            state.chain.wrote(isBase: isBase, bytes: image.byteCount, generation: generation)
            var piece = FragmentCheckpoint(view: id, isBase: isBase, sections: [], pagedTables: [image])
            piece.isTable = true
            return piece
        }
    }

    /// Makes a state checkpoint's chain of this table (`restored`) its rows; its pages stay in
    /// the run files until they are read. The table must be empty.
    package func restore(from restored: RestoredTables, generation: Int) throws(SluiceError) {
        try state.withLock { (state: inout State) throws(SluiceError) in
            state.clear(types: types, memory: memory)
            try state.table.restore(from: restored, table: Self.stateTableID)
            state.vnodeBounds = nil
            state.chain = CheckpointChain(restoredBytes: restored.byteCount, generation: generation)
            if primaryKey.isEmpty, let page = state.table.pages.last, page.keyCount > 0 {
                // Row ids continue after the last one stored (the key's bytes after its vnode).
                let key = page.keys.key(page.keyCount - 1)
                guard key.count == 10 else { throw SluiceError(.dataCorrupted, "a stored row of a table without a primary key has a malformed row id") }
                state.nextRowID = key[2...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } + 1
            }
        }
    }

    // MARK: Recovery

    /// Makes `file` (checked by ``TableFile/open(_:types:)``) the table's rows, left on disk
    /// until the table is first used. The table must be empty.
    package func restore(from file: TableFile) {
        state.withLock { state in
            state.clear(types: types, memory: memory)
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

    /// Reads in rows left on disk at recovery, and applies the changes logged after them, each
    /// committed as it was when it was made.
    func load(_ state: inout State) {
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
        // A checkpoint holds each key once, in key order: its chunks become pages as they are
        // (a file out of order is staged and sorted instead).
        var runs: [(keys: KeyBuffer, rows: Chunk)] = []
        runs.reserveCapacity(chunks.count)
        for chunk in chunks where !chunk.isEmpty {
            if primaryKey.isEmpty {
                runs.append((Self.rowIDKeys(count: chunk.count, state: &state), chunk))
            } else {
                runs.append((keys(of: chunk), chunk))
            }
        }
        state.vnodeBounds = nil
        if !state.table.append(runs) {
            for run in runs {
                state.table.stage(run.rows, signs: [Int8](repeating: 1, count: run.rows.count)) { bytes, row in run.keys.appendKey(row, to: &bytes) }
            }
            state.table.commitEpoch()
        }
        // Each change as it was made (appends and upserts staged, commits as they come).
        for change in unread.changes {
            if change.op.isInsertion {
                if primaryKey.isEmpty {
                    Self.append(change.rows, to: &state)
                } else {
                    _ = Self.upsert(change.rows, keys: keys(of: change.rows), into: &state)
                }
            } else if primaryKey.isEmpty {
                Self.commit(&state)
                _ = Self.removeRows(equalTo: change.rows, from: &state)
            } else {
                _ = Self.delete(keys(of: change.rows), from: &state, types: types)
            }
            Self.commitIfMany(&state, memory: memory, byRowID: primaryKey.isEmpty)
        }
        Self.commit(&state)
    }
}

/// Rows picked from chunks (pages' rows, or staged ones), gathered into one chunk in the order
/// picked: consecutive picks from one chunk share it as a source. With `key`s, each pick's
/// state-table key is kept too.
struct RowPicks {
    var sources: [Chunk] = []
    var picks: [(source: Int32, row: Int32)] = []
    var keys = KeyBuffer()
    /// The key buffer of the last source (telling a new page from the same one).
    private var lastKeys: KeyBuffer?

    var isEmpty: Bool { picks.isEmpty }
    var count: Int { picks.count }

    mutating func add(_ rows: Chunk, _ index: Int, key: (keys: KeyBuffer, index: Int)? = nil) {
        if let key {
            if lastKeys.map({ !$0.isSameBuffer(as: key.keys) }) ?? true {
                sources.append(rows)
                lastKeys = key.keys
            }
            keys.append(key.index, of: key.keys)
        } else {
            sources.append(rows)
        }
        picks.append((Int32(sources.count - 1), Int32(index)))
    }

    func gathered(types: [DataType]) -> Chunk {
        Chunk.gather(from: sources, picks: picks, types: types)
    }
}
