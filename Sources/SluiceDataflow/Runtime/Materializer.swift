import SluiceCore
import SluicePlan
import SluiceState

/// The rows of a materialized view, kept up to date from its change stream in a
/// ``PagedTable`` keyed by the view's row identity.
///
/// Each change is staged under its row's key as it arrives; at the end of an epoch the table
/// rewrites only the pages the epoch's keys fall in, and readers get the pages as chunks,
/// shared, not copied. So an epoch costs what it changed, whatever the view's size.
/// - Complexity: O(1) plus the key's encoding per changed row; per epoch O(m log m) for m
///   changed rows plus the rows of the pages they touch.
package struct Materializer {
    /// How a view's rows are told apart, which is the key they are stored under.
    package enum RowIdentity: Equatable, Sendable {
        /// The input only inserts: each row gets a hidden, increasing row id (RisingWave's
        /// `_row_id`), so new rows land at the end of the table.
        case rowID
        /// These output columns tell the current rows apart (an aggregate's group key).
        case key([Int])
        /// Rows are told apart by all their values; equal rows are counted.
        case wholeRow

        /// The identity a view maintained by `plan` has.
        package init(_ plan: StreamPlan) {
            if plan.isAppendOnly {
                self = .rowID
            } else if let key = plan.streamKey {
                self = .key(key)
            } else {
                self = .wholeRow
            }
        }
    }

    package let types: [DataType]
    package let identity: RowIdentity
    private var table: PagedTable
    private var keyColumns: [Int]
    /// The next hidden row id (``RowIdentity/rowID``).
    private var nextRowID: UInt64 = 0
    /// Deletes the view cannot match: a bug upstream, counted rather than crashed on.
    private var unmatchedDeletes = 0
    /// Restored from a checkpoint and not yet published.
    private var restored = false
    /// Changes committed by ``commitUnpublished()`` and not yet published.
    private var unpublished = false
    /// The epoch's changes, kept for the view's indexes when the epoch began with
    /// ``keepsChanges`` set; nil otherwise.
    private var changes: [StreamChunk]?
    /// Whether the next epochs keep their changes (the view has indexes); takes effect when
    /// the current epoch is published, so an epoch's changes are kept whole or not at all.
    package var keepsChanges = false

    package init(types: [DataType], identity: RowIdentity = .wholeRow, memory: StateMemory? = nil) {
        self.types = types
        self.identity = identity
        self.table = PagedTable(types: types, memory: memory)
        switch identity {
        case .rowID: keyColumns = []
        case .key(let columns): keyColumns = columns
        case .wholeRow: keyColumns = Array(types.indices)
        }
    }

    /// The view's rows as of the last published epoch.
    package var rowCount: Int { table.rowCount }

    /// Bytes the view's pages hold.
    package var stateBytes: Int { table.byteCount }

    /// Deletes of rows the view does not hold.
    package var inconsistencies: Int { table.inconsistencies + unmatchedDeletes }

    package mutating func apply(_ chunk: StreamChunk) {
        guard chunk.count > 0 else { return }
        switch identity {
        case .rowID:
            // An append-only input never deletes; a delete here has no row id to find.
            var inserts = chunk
            if chunk.ops.contains(where: { !$0.isInsertion }) {
                let kept = chunk.ops.indices.filter { chunk.ops[$0].isInsertion }
                unmatchedDeletes += chunk.count - kept.count
                inserts = StreamChunk(ops: kept.map { chunk.ops[$0] }, data: chunk.data.gather(kept))
            }
            changes?.append(inserts)
            var rowID = nextRowID
            // One fragment owns every vnode for now; its row ids carry vnode 0.
            table.stage(inserts) { bytes, _ in
                bytes.append(0)
                bytes.append(0)
                withUnsafeBytes(of: rowID.bigEndian) { bytes.append(contentsOf: $0) }
                rowID += 1
            }
            nextRowID = rowID
        case .key, .wholeRow:
            changes?.append(chunk)
            var rows = chunk.data
            var signs = chunk.ops.map { Int8($0.isInsertion ? 1 : -1) }
            if case .key = identity, chunk.ops.contains(.updateDelete) {
                // An update pair shares the stream key: its new row simply takes the old one's place.
                var kept: [Int] = []
                kept.reserveCapacity(chunk.count)
                var rowIndex = 0
                while rowIndex < chunk.count {
                    if chunk.ops[rowIndex] == .updateDelete, rowIndex + 1 < chunk.count, chunk.ops[rowIndex + 1] == .updateInsert {
                        signs[rowIndex + 1] = 0
                        rowIndex += 1
                    }
                    kept.append(rowIndex)
                    rowIndex += 1
                }
                rows = rows.gather(kept)
                signs = kept.map { signs[$0] }
            }
            let columns = keyColumns.map { rows.columns[$0] }
            table.stage(rows, signs: signs) { bytes, rowIndex in
                VirtualNode.appendKey(to: &bytes) { bytes in
                    for column in columns { KeyEncoding.append(column, row: rowIndex, to: &bytes) }
                }
            }
        }
    }

    /// Commits the epoch's changes and returns the view's pages (shared, read lazily) with the
    /// epoch's changes when they were kept, or nil when the epoch changed nothing (and nothing
    /// was restored since the last publish).
    package mutating func publish() -> PublishedView? {
        let epochChanges = changes
        changes = keepsChanges ? [] : nil
        guard table.commitEpoch() || restored || unpublished else { return nil }
        defer { (restored, unpublished) = (false, false) }
        return PublishedView(pages: table.snapshot, changes: restored ? nil : epochChanges)
    }

    /// Commits the changes so far into the view's pages without publishing them (a backfill's
    /// own epoch, which bounds what it holds); the next ``publish()`` shows them.
    package mutating func commitUnpublished() {
        if table.commitEpoch() { unpublished = true }
    }

    /// The id of the view's rows among its fragment's state tables.
    package static let stateTableID = Int(UInt32.max)

    /// Whether commits keep their changes for checkpoints.
    package var tracksChanges: Bool {
        get { table.tracksChanges }
        set { table.tracksChanges = newValue }
    }

    /// The view's rows for a checkpoint: what changed since the last one, or all of them.
    package mutating func checkpoint(everything: Bool) -> FragmentCheckpoint.PagedImage {
        table.checkpoint(table: Self.stateTableID, everything: everything)
    }

    /// Takes the rows a checkpoint holds (its pages left in the run file until read, when it
    /// wrote them whole); the next ``publish()`` shows them.
    package mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try table.restore(from: tables, table: Self.stateTableID)
        if identity == .rowID, let page = table.pages.last, page.keyCount > 0 {
            // Row ids continue after the last one stored (the key's bytes after its vnode).
            let key = page.keys.key(page.keyCount - 1)
            if key.count == 10 { nextRowID = key[2...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } + 1 }
        }
        restored = true
    }
}

/// A view's rows after an epoch, for readers, and what the epoch changed in them when the view
/// kept it (for its indexes; nil: rebuild them from the pages).
package struct PublishedView: Sendable {
    package var pages: [StatePage]
    package var changes: [StreamChunk]?

    package init(pages: [StatePage], changes: [StreamChunk]? = nil) {
        self.pages = pages
        self.changes = changes
    }
}
