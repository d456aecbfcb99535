import Foundation
import Synchronization
import SluiceBatch
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluicePlan
import SluicePlanner
import SluiceSQL
import SluiceState

/// The tables' part of the state store: every relation's stored rows (``StoreRegistry``), the
/// write-ahead log (``TableJournal``), and the writes that change them: DML and connector
/// deliveries, logged and sent to the views reading the table. The tables' rows are
/// checkpointed with the views' state (``checkpointPieces(generation:)``).
package final class TableState: Sendable {
    let stores: StoreRegistry
    let runtime: StreamRuntime
    /// The watermark filters, by relation: an APPEND ONLY table's drops the rows behind its
    /// watermark as they are inserted.
    let connectors: ConnectorSet
    /// The write-ahead log; nil without a data directory.
    package internal(set) var journal: TableJournal? {
        get { journalBox.withLock { $0 } }
        set { journalBox.withLock { $0 = newValue } }
    }
    private let journalBox = Mutex<TableJournal?>(nil)
    /// Where sessions' waits for the log's fsync run, one at a time (each covers the others).
    private let durabilityQueue = DispatchQueue(label: "sluice-log-sync")
    /// Each table's writer lock: every write to a table holds it for its step, and a statement
    /// applied in parts for all of them, so no other write comes between its parts.
    private let writerLocks = Mutex<[Int: NSRecursiveLock]>([:])

    init(stores: StoreRegistry, runtime: StreamRuntime, connectors: ConnectorSet) {
        self.stores = stores
        self.runtime = runtime
        self.connectors = connectors
    }

    package func store(for tableID: Int) -> TableStore? {
        stores.store(for: tableID)
    }

    /// Inserts `chunks` (in the table's column order and types) into table `table` and sends
    /// the changes (upserted rows as deletes of the rows they replace) to the views reading it.
    /// Returns the number of rows given.
    ///
    /// The changes are logged as one record before any view sees them; with `synchronousCommit`
    /// the call returns only once the log is fsynced (PostgreSQL's `synchronous_commit`).
    /// `afterward` runs in the same step once the rows are in: a connector moves its
    /// position there and returns it, to be logged with the rows. A write the log refuses (a
    /// full disk) fails and is taken back from the table: the log, not memory, is what the
    /// next start recovers. The next write tries the log again (a failed fsync instead makes
    /// every later write fail until a restart).
    ///
    /// With `statement`, the changes are logged as a part of that statement
    /// (``inParts(of:_:)``), which takes effect only once all its parts are in.
    @discardableResult
    package func insert(
        _ chunks: [Chunk], into table: RelationDefinition, synchronousCommit: Bool = true, statement: UInt64? = nil,
        afterward: () -> [Int32: Int64]? = { nil }
    ) throws(SluiceError) -> Int {
        guard let store = store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        var count = 0
        let filter = table.watermark == nil ? nil : connectors.watermarkFilter(for: table.id)
        let deduplicator = table.dedup == nil ? nil : connectors.deduplicator(for: table.id)
        var watermarks: [Watermark] = []
        // What the seen keys remember of this write, taken back if the log refuses it (so a
        // retry is judged as new, not as repeats of a write that never happened).
        var remembered = SourceDeduplicator.Undo()
        try write(
            table, synchronousCommit: synchronousCommit, statement: statement, watermarks: { watermarks },
            takeBack: { deduplicator?.takeBack(remembered) }
        ) { () throws(SluiceError) -> ([(op: ChangeOp, rows: Chunk)], [Int32: Int64]?) in
            var changes: [(op: ChangeOp, rows: Chunk)] = []
            for chunk in chunks {
                var chunk = chunk
                if let filter {
                    // Rows behind the table's watermark are dropped, never stored; the
                    // watermark follows the rows it rose with.
                    let (kept, late, advanced) = filter.apply(chunk)
                    // A connector's late rows count in its `sluice_sources` row, as a source's do.
                    if late > 0, let connector = connectors.connector(for: table.id) {
                        connector.statistics.rowsLate.add(late, ordering: .relaxed)
                    }
                    chunk = kept
                    if let advanced { watermarks.append(advanced) }
                    if chunk.isEmpty { continue }
                }
                if let deduplicator {
                    // Repeats of events kept before (`dedup.key`) are dropped, never stored.
                    chunk = deduplicator.apply(chunk, watermark: filter?.watermark, recordingIn: &remembered)
                    if chunk.isEmpty { continue }
                }
                let result = try store.insert(chunk)
                count += chunk.count
                if let replaced = result.replaced { changes.append((.delete, replaced)) }
                changes.append((.insert, result.inserted))
            }
            return (changes, afterward())
        }
        return count
    }

    /// Deletes the rows of `table` whose primary keys are those of `keys`' rows and sends the
    /// deletes to the views reading it; logged as ``insert(_:into:synchronousCommit:afterward:)``.
    package func delete(
        keysOf keys: Chunk, from table: RelationDefinition, synchronousCommit: Bool = true, afterward: () -> [Int32: Int64]? = { nil }
    ) throws(SluiceError) {
        guard let store = store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        try write(table, synchronousCommit: synchronousCommit) { () throws(SluiceError) -> ([(op: ChangeOp, rows: Chunk)], [Int32: Int64]?) in
            let removed = store.delete(keysOf: keys)
            return (removed.map { [(.delete, $0)] } ?? [], afterward())
        }
    }

    /// Runs `apply` (which changes `table`'s store and returns the changes it made, in order,
    /// and a connector's positions) as one step of the table's stream (``StreamRuntime/withSource(_:_:)``),
    /// logs the changes as one record, sends
    /// them to the views reading the table, and then waits for the log as `synchronousCommit`
    /// says. If the log refuses the record, the changes are taken back from the store and
    /// `takeBack` undoes what else `apply` changed (the seen keys of `dedup.key`).
    func write(
        _ table: RelationDefinition, synchronousCommit: Bool, statement: UInt64? = nil, watermarks: () -> [Watermark] = { [] },
        takeBack: () -> Void = {}, _ apply: () throws(SluiceError) -> ([(op: ChangeOp, rows: Chunk)], [Int32: Int64]?)
    ) throws(SluiceError) {
        let journal = self.journal
        let lock = writerLock(of: table.id)
        lock.lock()
        defer { lock.unlock() }
        let position = try runtime.withSource(table.id) { (writer) throws(SluiceError) -> UInt64? in
            let (changes, positions) = try apply()
            let kept = changes.filter { !$0.rows.isEmpty }
            var position: UInt64?
            if let journal, !kept.isEmpty || positions != nil {
                do throws(SluiceError) {
                    if let statement {
                        position = try journal.append(.part(table: table.id, statement: statement, changes: kept))
                    } else {
                        position = try journal.append(.write(table: table.id, changes: kept, positions: positions))
                    }
                } catch {
                    // The log refused the write (a full disk): the statement fails and leaves
                    // the table as it was, as the log does.
                    if let store = store(for: table.id) { Self.undo(kept, in: store) }
                    takeBack()
                    throw error
                }
            }
            // The table's indexes change in the same step, so a lookup sees what a scan does.
            for index in stores.indexes(of: table.id) { index.apply(kept) }
            if writer.isRead {
                for change in kept { writer.emit(Self.changes(change.rows, change.op)) }
                for watermark in watermarks() { writer.emit(watermark) }
            }
            return position
        }
        try commit(position, synchronously: synchronousCommit)
    }

    /// Table `id`'s writer lock, made at first use.
    func writerLock(of id: Int) -> NSRecursiveLock {
        writerLocks.withLock { locks in
            if let lock = locks[id] { return lock }
            let lock = NSRecursiveLock()
            locks[id] = lock
            return lock
        }
    }

    /// Takes back `changes` (a write's, in the order it made them) from `store`, last first: an
    /// inserted row is removed (by its key, or one equal row in a table without one), a deleted
    /// or replaced row put back.
    private static func undo(_ changes: [(op: ChangeOp, rows: Chunk)], in store: TableStore) {
        for change in changes.reversed() {
            if change.op.isInsertion {
                if store.primaryKey.isEmpty { store.removeRows(equalTo: change.rows) } else { _ = store.delete(keysOf: change.rows) }
            } else {
                _ = try? store.insert(change.rows)
            }
        }
    }

    /// Makes the log durable up to `position` when `synchronously`.
    private func commit(_ position: UInt64?, synchronously: Bool) throws(SluiceError) {
        guard let journal, let position, synchronously else { return }
        try journal.makeDurable(upTo: position)
    }

    /// Returns once everything logged so far is fsynced, waiting on a thread of the log's own
    /// (not a session's): the fsyncs of waiting sessions are shared, one covering all the writes
    /// that came in meanwhile (group commit).
    package func makeWritesDurable() async throws(SluiceError) {
        guard let journal else { return }
        let position = journal.log.appendedBytes
        let result: Result<Void, SluiceError> = await withCheckedContinuation { continuation in
            durabilityQueue.async {
                do throws(SluiceError) {
                    try journal.makeDurable(upTo: position)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }

    /// Every table's piece of a state checkpoint, at its cut (no write in progress), with base
    /// generation `generation`.
    /// The seen keys of every deduplicated source and table go with them, in the same cut as
    /// the sources' positions.
    func checkpointPieces(generation: Int) -> [FragmentCheckpoint] {
        stores.tables().sorted { $0.key < $1.key }.map { $0.value.checkpointPiece(id: $0.key, generation: generation) }
            + connectors.allDeduplicators.sorted { $0.key < $1.key }.map { $0.value.checkpointPiece(generation: generation) }
    }

    /// `chunk`'s rows, all with change op `op`.
    package static func changes(_ chunk: Chunk, _ op: ChangeOp) -> StreamChunk {
        StreamChunk(ops: [ChangeOp](repeating: op, count: chunk.count), data: chunk)
    }
}
