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

/// The shared state of one Sluice process: the catalog, the stored rows of every table, and
/// the data directory that keeps both across restarts.
///
/// On disk (`--data-dir`): `catalog.json` holds the relation definitions and is rewritten after
/// every DDL statement; `tables/<id>.chunks` holds a table's rows, written when the server
/// stops cleanly. Materialized views are rebuilt from their definitions at start. Crash
/// consistency comes with checkpoints.
///
/// A materialized view's store holds the rows of the last committed epoch: the stream runtime
/// replaces the stores of all views an epoch changed in one step, and queries take their view
/// snapshots in one step too (``reader()``), so a query sees every view at the same epoch.
package final class Database: TableProvider, Sendable {
    package let catalog = Catalog()
    package let dataDirectory: String?
    private let stores: StoreRegistry
    package let runtime: StreamRuntime
    /// The write-ahead log and table checkpoints; nil without a data directory.
    package private(set) var journal: TableJournal? {
        get { journalBox.withLock { $0 } }
        set { journalBox.withLock { $0 = newValue } }
    }
    private let journalBox = Mutex<TableJournal?>(nil)
    /// What recovery did at start, for the log line `sluice serve` prints.
    package private(set) var recovery: TableJournal.Recovery? {
        get { recoveryBox.withLock { $0 } }
        set { recoveryBox.withLock { $0 = newValue } }
    }
    private let recoveryBox = Mutex<TableJournal.Recovery?>(nil)
    /// Serializes checkpoints, off the writers' threads.
    private let checkpointQueue = DispatchQueue(label: "sluice-table-checkpoints")

    /// The running connectors, by the id of the source or table they feed.
    private let connectors = ConnectorSet()
    /// Builds the connector a source or table names; `validate` asks it to check its options and
    /// reach its outside system (at CREATE, not at a restart).
    package typealias ConnectorFactory = @Sendable (SourceDescription, _ validate: Bool) throws(SluiceError) -> any SourceConnector
    private let makeConnector: ConnectorFactory

    package init(
        dataDirectory: String?, barrierIntervalMilliseconds: Int = 1000,
        connectors makeConnector: @escaping ConnectorFactory = { description, _ throws(SluiceError) in
            throw SluiceError(.featureNotSupported, "connector \"\(description.options["connector"] ?? "")\" is not available")
        }
    ) throws(SluiceError) {
        self.makeConnector = makeConnector
        self.dataDirectory = dataDirectory
        let stores = StoreRegistry()
        self.stores = stores
        self.runtime = StreamRuntime(barrierIntervalMilliseconds: barrierIntervalMilliseconds) { rows, _ in
            stores.publish(rows)
        }
        let runtime = self.runtime
        catalog.setStreamingStatusSource {
            runtime.views.map { fragment in
                StreamingJobStatus(
                    viewID: fragment.id, upstreams: fragment.upstreams, rowCount: fragment.statistics.rowCount.load(ordering: .relaxed),
                    rowsIn: fragment.statistics.rowsIn.load(ordering: .relaxed), errors: fragment.statistics.errors.load(ordering: .relaxed),
                    lastError: fragment.statistics.lastError, plan: fragment.planText,
                    stateBytes: fragment.statistics.stateBytes.load(ordering: .relaxed))
            }
        }
        catalog.setCheckpointSource { [weak self] in self?.journal?.history ?? [] }
        let connectors = self.connectors
        catalog.setSourceStatusSource {
            connectors.all.sorted { $0.key < $1.key }.map { id, connector in
                let statistics = connector.statistics
                return SourceStatus(
                    relationID: id, rowsRead: statistics.rowsRead.load(ordering: .relaxed),
                    rowsRejected: statistics.rowsRejected.load(ordering: .relaxed), status: statistics.status, errors: statistics.errors)
            }
        }
        if let dataDirectory {
            try load(from: dataDirectory)
            if journal == nil { journal = try TableJournal(dataDirectory: dataDirectory) }
        }
        runtime.start()
    }

    package func store(for tableID: Int) -> TableStore? {
        stores.store(for: tableID)
    }

    /// A table provider for one query: tables as they are now, every view at one epoch, and a
    /// source as everything its outside system holds when the query first reads it.
    package func reader() -> SourceScanningReader {
        SourceScanningReader(base: stores.reader(), connectors: connectors.all, catalog: catalog)
    }

    /// Inserts `chunks` (in the table's column order and types) into table `table` and sends
    /// the changes (upserted rows as deletes of the rows they replace) to the views reading it.
    /// Returns the number of rows given.
    ///
    /// The changes are logged as one record before any view sees them; with `synchronousCommit`
    /// the call returns only once the log is fsynced (PostgreSQL's `synchronous_commit`).
    /// `afterward` runs under the same source lock once the rows are in: a connector moves its
    /// position there and returns it, to be logged with the rows. A write the log refuses (a
    /// full disk) fails, and so does every write after it until a restart: the log, not memory,
    /// is what the next start recovers.
    @discardableResult
    package func insert(
        _ chunks: [Chunk], into table: RelationDefinition, synchronousCommit: Bool = true,
        afterward: () -> [Int32: Int64]? = { nil }
    ) throws(SluiceError) -> Int {
        guard let store = store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        var count = 0
        try write(table, synchronousCommit: synchronousCommit) { () throws(SluiceError) -> ([(op: ChangeOp, rows: Chunk)], [Int32: Int64]?) in
            var changes: [(op: ChangeOp, rows: Chunk)] = []
            for chunk in chunks {
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

    /// Deletes the rows of `table` that `matching` selects or, with `update`, replaces each chunk
    /// of them by what `update` makes of it, and sends the changes (old rows deleted, new rows
    /// inserted, rows an updated primary key replaced deleted) to the views reading the table.
    /// Returns the number of rows matched.
    package func modify(
        _ table: RelationDefinition, synchronousCommit: Bool = true, matching: (Chunk) throws(SluiceError) -> Bitmap,
        update: ((Chunk) throws(SluiceError) -> Chunk)? = nil
    ) throws(SluiceError) -> Int {
        guard let store = store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        var affected = 0
        try write(table, synchronousCommit: synchronousCommit) { () throws(SluiceError) -> ([(op: ChangeOp, rows: Chunk)], [Int32: Int64]?) in
            var removed: [Chunk] = []
            let result = try store.rewrite { (chunk: Chunk) throws(SluiceError) -> (kept: Chunk, affected: Int, reinserted: Chunk?) in
                let mask = try matching(chunk)
                let matched = mask.setCount
                if matched == 0 { return (chunk, 0, nil) }
                let old = chunk.filter(mask)
                let replacement = try update?(old)
                removed.append(old)
                return (chunk.filter(~mask), matched, replacement)
            }
            affected = result.affected
            let deletes = (removed + result.replaced).map { (op: ChangeOp.delete, rows: $0) }
            return (deletes + result.inserted.map { (op: ChangeOp.insert, rows: $0) }, nil)
        }
        return affected
    }

    /// Runs `apply` (which changes `table`'s store and returns the changes it made, in order,
    /// and a connector's positions) under the source lock, logs the changes as one record, sends
    /// them to the views reading the table, and then waits for the log as `synchronousCommit`
    /// says.
    private func write(
        _ table: RelationDefinition, synchronousCommit: Bool,
        _ apply: () throws(SluiceError) -> ([(op: ChangeOp, rows: Chunk)], [Int32: Int64]?)
    ) throws(SluiceError) {
        let journal = self.journal
        let position = try runtime.withSources { (writer) throws(SluiceError) -> UInt64? in
            let (changes, positions) = try apply()
            let kept = changes.filter { !$0.rows.isEmpty }
            var position: UInt64?
            if let journal, !kept.isEmpty || positions != nil {
                position = try journal.append(.write(table: table.id, changes: kept, positions: positions))
            }
            if writer.isRead(table.id) {
                for change in kept { writer.emit(Self.changes(change.rows, change.op), table: table.id) }
            }
            return position
        }
        try commit(position, synchronously: synchronousCommit)
    }

    /// Makes the log durable up to `position` when `synchronously`, and starts a checkpoint in
    /// the background once the log has grown enough.
    private func commit(_ position: UInt64?, synchronously: Bool) throws(SluiceError) {
        guard let journal, let position else { return }
        if synchronously { try journal.makeDurable(upTo: position) }
        if journal.claimCheckpointIfDue() {
            checkpointQueue.async { [weak self] in
                do throws(SluiceError) {
                    try self?.writeTableCheckpoint()
                } catch {
                    FileHandle.standardError.write(Data("sluice: table checkpoint failed: \(error.message)\n".utf8))
                }
            }
        }
    }

    /// Writes every table's rows as a checkpoint and drops the log before it. Writes wait only
    /// while the log rotates and the tables' snapshots are taken.
    package func checkpointTables() throws(SluiceError) {
        let result: Result<Void, SluiceError> = checkpointQueue.sync {
            do throws(SluiceError) {
                try writeTableCheckpoint()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Checkpoints run one at a time, on ``checkpointQueue``.
    private func writeTableCheckpoint() throws(SluiceError) {
        guard let journal else { return }
        let tableIDs = Set(catalog.relations.filter { $0.kind == .table }.map(\.id))
        let connectors = self.connectors.all
        let (segment, tables, positions) = try runtime.withSources {
            _ throws(SluiceError) -> (UInt64, [(id: Int, chunks: [Chunk])], [Int: [Int32: Int64]]) in
            let segment = try journal.log.rotate()
            let tables = stores.all().filter { tableIDs.contains($0.key) }.map { (id: $0.key, chunks: $0.value.snapshot().chunks) }
            var positions: [Int: [Int32: Int64]] = [:]
            for id in tableIDs { positions[id] = connectors[id]?.positions }
            return (segment, tables, positions)
        }
        try journal.writeCheckpoint(segment: segment, tables: tables.sorted { $0.id < $1.id }, positions: positions)
    }

    /// `chunk`'s rows, all with change op `op`.
    package static func changes(_ chunk: Chunk, _ op: ChangeOp) -> StreamChunk {
        StreamChunk(ops: [ChangeOp](repeating: op, count: chunk.count), data: chunk)
    }

    /// Returns once every write made before the call is visible in every view.
    package func flush() async {
        await runtime.flush()
    }

    /// Time and rows per operator of view `id` (inputs first), as of its last finished epoch.
    package func operatorProfile(view id: Int) -> [(name: String, nanoseconds: UInt64, rowsIn: Int, stateBytes: Int)] {
        runtime.views.first { $0.id == id }?.statistics.profile.map { ($0.name, $0.nanoseconds, $0.rowsIn, $0.stateBytes) } ?? []
    }

    /// Stops the connectors and the stream runtime's threads.
    package func stop() {
        for connector in connectors.all.values { connector.stop() }
        runtime.stop()
    }

    /// Registers source or connector-fed table `relation` and starts its connector, which first
    /// checks its options and reaches its outside system: a mistake is an error here, not later.
    /// Returns the connector's notices for the user.
    @discardableResult
    package func createSource(_ relation: RelationDefinition) throws(SluiceError) -> [String] {
        let connector = try makeConnector(Self.sourceDescription(relation), true)
        var relation = relation
        // Where it starts, resolved now, is kept: after a restart the source starts there again.
        relation.connector?.startPositions = connector.positions
        do {
            if relation.kind == .table {
                _ = try create(relation)
            } else {
                try catalog.add(relation)
                try saveCatalog()
            }
        } catch {
            connector.stop()
            throw error
        }
        start(connector, for: relation)
        return connector.notices
    }

    private func start(_ connector: any SourceConnector, for relation: RelationDefinition) {
        connectors.set(connector, for: relation.id)
        let runtime = self.runtime
        let id = relation.id
        let output: SourceOutput
        if relation.kind == .table {
            // The rows and then the position they reach are logged together: after a crash the
            // table holds exactly the rows before the logged position, and reading resumes there.
            let reached = { @Sendable [weak connector] () -> [Int32: Int64]? in connector?.positions }
            output = SourceOutput(
                isRead: { true },
                deliver: { [weak self] (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                    guard let self else { return }
                    try self.insert([chunk], into: relation, synchronousCommit: false) {
                        advance()
                        return reached()
                    }
                },
                deleteKeys: { [weak self] (keys: Chunk, advance: () -> Void) throws(SluiceError) in
                    guard let self else { return }
                    try self.delete(keysOf: keys, from: relation, synchronousCommit: false) {
                        advance()
                        return reached()
                    }
                })
        } else {
            output = SourceOutput(isRead: { runtime.isRead(id) }) { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                runtime.withSources { writer in
                    writer.emit(Self.changes(chunk, .insert), table: id)
                    advance()
                }
            }
        }
        connector.start(output: output)
    }

    static func sourceDescription(_ relation: RelationDefinition) -> SourceDescription {
        let spec = relation.connector ?? ConnectorSpec(options: [:], format: "", encode: "")
        var description = SourceDescription(
            id: relation.id, name: relation.name, columns: relation.columns.map { ($0.name, $0.type) }, primaryKey: relation.primaryKey,
            options: spec.options, format: spec.format, encode: spec.encode, formatOptions: spec.formatOptions, isTable: relation.kind == .table)
        description.startPositions = spec.startPositions
        return description
    }

    /// Registers a new relation and, for a table, its empty store.
    package func create(_ relation: RelationDefinition) throws(SluiceError) -> TableStore {
        try catalog.add(relation)
        let store = TableStore(types: relation.columns.map(\.type), primaryKey: relation.primaryKey)
        stores.add(store, id: relation.id)
        try saveCatalog()
        return store
    }

    /// Registers materialized view `relation` and starts maintaining it by `plan`, from the
    /// current rows of what it reads. Returns the epoch after which it shows those rows.
    package func createMaterializedView(_ relation: RelationDefinition, plan: StreamPlan) throws(SluiceError) -> UInt64 {
        try catalog.add(relation)
        let store = TableStore(types: relation.columns.map(\.type), primaryKey: [])
        stores.add(store, id: relation.id, isView: true)
        do {
            let epoch = try runtime.createView(
                id: relation.id, name: relation.name, plan: plan, context: EvaluationContext()
            ) { (id: Int) throws(SluiceError) -> [Chunk] in
                if catalog.relation(id: id)?.kind == .source, let connector = connectors.all[id] {
                    return try connector.snapshot()
                }
                guard let source = stores.store(for: id) else { throw SluiceError(.undefinedTable, "relation \(id) does not exist") }
                return source.snapshot().chunks
            }
            try saveCatalog()
            return epoch
        } catch {
            catalog.remove(id: relation.id)
            stores.remove(id: relation.id)
            throw error
        }
    }

    package func drop(_ relation: RelationDefinition) throws(SluiceError) {
        if relation.kind == .materializedView { runtime.dropView(id: relation.id) }
        if let connector = connectors.remove(relation.id) { connector.stop() }
        catalog.remove(id: relation.id)
        stores.remove(id: relation.id)
        try saveCatalog()
        if relation.kind == .table, let journal {
            // Its id may name a new table after a restart: replay must not apply its rows there.
            try journal.makeDurable(upTo: try journal.append(.dropped(table: relation.id)))
        }
    }

    // MARK: Persistence

    private struct StoredCatalog: Codable {
        var relations: [RelationDefinition]
    }

    package func saveCatalog() throws(SluiceError) {
        guard let dataDirectory else { return }
        do {
            let data = try JSONEncoder().encode(StoredCatalog(relations: catalog.relations))
            try writeAtomically(data, to: "\(dataDirectory)/catalog.json")
        } catch {
            throw SluiceError(.ioError, "could not write the catalog: \(error)")
        }
    }

    /// Writes every table's rows as a checkpoint (at a clean stop, so the next start replays
    /// no log).
    package func saveTables() throws(SluiceError) {
        try checkpointTables()
    }

    private func load(from directory: String) throws(SluiceError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let catalogPath = "\(directory)/catalog.json"
            guard FileManager.default.fileExists(atPath: catalogPath) else { return }
            let stored = try JSONDecoder().decode(StoredCatalog.self, from: Data(contentsOf: URL(fileURLWithPath: catalogPath)))
            for relation in stored.relations where relation.kind == .source {
                try catalog.add(relation)
            }
            var tables: [Int: TableStore] = [:]
            for relation in stored.relations where relation.kind == .table {
                try catalog.add(relation)
                let store = TableStore(types: relation.columns.map(\.type), primaryKey: relation.primaryKey)
                tables[relation.id] = store
                stores.add(store, id: relation.id)
            }
            recovery = try TableJournal.recover(dataDirectory: directory, into: tables)
            journal = try TableJournal(dataDirectory: directory)
            // Connectors start from their definitions (not checked again: an outside system that
            // is down now is retried, with the reason in `sluice_sources.status`).
            for relation in stored.relations where relation.connector != nil {
                do {
                    var description = Self.sourceDescription(relation)
                    if let positions = recovery?.positions[relation.id] { description.startPositions = positions }
                    start(try makeConnector(description, false), for: relation)
                } catch {
                    FileHandle.standardError.write(Data("sluice: the connector of \(relation.name) did not start: \(error.message)\n".utf8))
                }
            }
            // Views read tables, sources and earlier views: rebuild them in creation order.
            for relation in stored.relations.filter({ $0.kind == .materializedView }).sorted(by: { $0.id < $1.id }) {
                try restoreMaterializedView(relation)
            }
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.ioError, "could not read the data directory \(directory): \(error)")
        }
    }

    /// Binds a stored view definition again and starts maintaining it under its old id.
    private func restoreMaterializedView(_ stored: RelationDefinition) throws(SluiceError) {
        let statements = try SQLParser.parse(stored.definition)
        guard statements.count == 1 else { throw SluiceError(.ioError, "the stored definition of \(stored.name) is not one statement") }
        var binder = Binder(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
        guard case .createMaterializedView(var relation, let plan) = try binder.bind(statements[0]) else {
            throw SluiceError(.ioError, "the stored definition of \(stored.name) is not a materialized view")
        }
        relation.id = stored.id
        _ = try createMaterializedView(relation, plan: plan)
    }

    private func writeAtomically(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp"
        try data.write(to: URL(fileURLWithPath: temporary))
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
    }
}

/// The stores of every relation, and the lock under which views are published and read.
private final class StoreRegistry: Sendable {
    private struct Entry {
        var store: TableStore
        /// A materialized view's store changes only by ``publish(_:)``.
        var isView: Bool
    }

    private let stores = Mutex<[Int: Entry]>([:])

    func store(for id: Int) -> TableStore? {
        stores.withLock { $0[id]?.store }
    }

    func all() -> [Int: TableStore] {
        stores.withLock { $0.mapValues(\.store) }
    }

    func add(_ store: TableStore, id: Int, isView: Bool = false) {
        stores.withLock { $0[id] = Entry(store: store, isView: isView) }
    }

    func remove(id: Int) {
        stores.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Replaces the rows of every view in `rows` in one step.
    func publish(_ rows: [Int: [Chunk]]) {
        stores.withLock { stores in
            for (id, chunks) in rows { stores[id]?.store.replaceAll(with: chunks) }
        }
    }

    /// Tables as they are, and a copy of every view's rows taken in one step.
    func reader() -> any TableProvider {
        stores.withLock { stores in
            var tables: [Int: TableStore] = [:]
            for (id, entry) in stores { tables[id] = entry.isView ? entry.store.frozenCopy() : entry.store }
            return ConsistentReader(tables: tables)
        }
    }
}

/// The tables one query reads: views fixed at one epoch, tables live.
private struct ConsistentReader: TableProvider {
    var tables: [Int: TableStore]

    func store(for tableID: Int) -> TableStore? {
        tables[tableID]
    }
}

/// The reader of one query, plus sources: a source's rows are everything its outside system
/// holds, read when the query first asks for them. A query runs on one thread.
package final class SourceScanningReader: TableProvider, @unchecked Sendable {
    private let base: any TableProvider
    private let connectors: [Int: any SourceConnector]
    private let catalog: Catalog
    private var scanned: [Int: TableStore] = [:]
    /// Why a source could not be read; the query must fail with it.
    package private(set) var failure: SluiceError?

    init(base: any TableProvider, connectors: [Int: any SourceConnector], catalog: Catalog) {
        self.base = base
        self.connectors = connectors
        self.catalog = catalog
    }

    package func store(for tableID: Int) -> TableStore? {
        if let store = base.store(for: tableID) { return store }
        if let store = scanned[tableID] { return store }
        guard let connector = connectors[tableID], let relation = catalog.relation(id: tableID) else { return nil }
        let store = TableStore(types: relation.columns.map(\.type), primaryKey: [])
        do {
            for chunk in try connector.scan() { try store.insert(chunk) }
        } catch {
            failure = failure ?? error
        }
        scanned[tableID] = store
        return store
    }
}

/// The running connectors, by relation id.
private final class ConnectorSet: Sendable {
    private let connectors = Mutex<[Int: any SourceConnector]>([:])

    var all: [Int: any SourceConnector] { connectors.withLock { $0 } }

    func set(_ connector: any SourceConnector, for id: Int) {
        connectors.withLock { $0[id] = connector }
    }

    func remove(_ id: Int) -> (any SourceConnector)? {
        connectors.withLock { $0.removeValue(forKey: id) }
    }
}
