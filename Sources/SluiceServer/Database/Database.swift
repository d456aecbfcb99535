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
/// every DDL statement; `wal/` and `tables/` keep the tables (``TableJournal``); `state/` keeps
/// the views' and operators' state, checkpointed at barriers (``StateCheckpoints``). At start
/// the views come back from their last state checkpoint, or are rebuilt from their inputs
/// when there is none that covers them all.
///
/// A materialized view's store holds the rows of the last committed epoch: the stream runtime
/// replaces the stores of all views an epoch changed in one step, and queries take their view
/// snapshots in one step too (``reader()``), so a query sees every view at the same epoch.
package final class Database: TableProvider, Sendable {
    package let catalog = Catalog()
    package let dataDirectory: String?
    let stores: StoreRegistry
    package let runtime: StreamRuntime
    /// The write-ahead log and table checkpoints; nil without a data directory.
    package internal(set) var journal: TableJournal? {
        get { journalBox.withLock { $0 } }
        set { journalBox.withLock { $0 = newValue } }
    }
    let journalBox = Mutex<TableJournal?>(nil)
    /// What recovery did at start, for the log line `sluice serve` prints.
    package internal(set) var recovery: TableJournal.Recovery? {
        get { recoveryBox.withLock { $0 } }
        set { recoveryBox.withLock { $0 = newValue } }
    }
    let recoveryBox = Mutex<TableJournal.Recovery?>(nil)
    /// Serializes checkpoints, off the writers' threads.
    /// Where sessions' waits for the log's fsync run, one at a time (each covers the others).
    let durabilityQueue = DispatchQueue(label: "sluice-log-sync")
    let checkpointQueue = DispatchQueue(label: "sluice-table-checkpoints")
    /// Writes the views' state checkpoints; nil without a data directory.
    let stateCheckpointWriterBox = Mutex<StateCheckpointWriter?>(nil)

    /// The running connectors, by the id of the source or table they feed.
    let connectors = ConnectorSet()
    /// Builds the connector a source or table names; `validate` asks it to check its options and
    /// reach its outside system (at CREATE, not at a restart).
    package typealias ConnectorFactory = @Sendable (SourceDescription, _ validate: Bool) throws(SluiceError) -> any SourceConnector
    let makeConnector: ConnectorFactory

    /// With a data directory, the views' state is checkpointed every `checkpointFrequency`
    /// barriers (RisingWave's `checkpoint_frequency`).
    package init(
        dataDirectory: String?, barrierIntervalMilliseconds: Int = 1000, checkpointFrequency: Int = 1, memoryLimit: Int? = nil,
        connectors makeConnector: @escaping ConnectorFactory = { description, _ throws(SluiceError) in
            throw SluiceError(.featureNotSupported, "connector \"\(description.options["connector"] ?? "")\" is not available")
        }
    ) throws(SluiceError) {
        self.makeConnector = makeConnector
        self.dataDirectory = dataDirectory
        let stores = StoreRegistry()
        self.stores = stores
        // Evicted pages go under the data directory (or the system's temporary directory).
        let memory = memoryLimit.map { limit in
            StateMemory(limit: limit, spillDirectory: dataDirectory.map { "\($0)/spill" } ?? (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"))
        }
        self.runtime = StreamRuntime(barrierIntervalMilliseconds: barrierIntervalMilliseconds, memory: memory) { rows, _ in
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
        catalog.setMemorySource { [weak self] in self?.memoryStatus ?? MemoryStatus() }
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
            try enableStateCheckpoints(dataDirectory: dataDirectory, frequency: checkpointFrequency)
            try load(from: dataDirectory)
            if journal == nil { journal = try TableJournal(dataDirectory: dataDirectory) }
            runtime.resumeCheckpoints()
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
        // A state checkpoint being written finishes (its files are whole or absent either way).
        waitForStateCheckpoints()
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

    func start(_ connector: any SourceConnector, for relation: RelationDefinition) {
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
                runtime.withSource(id) { writer in
                    writer.emit(Self.changes(chunk, .insert))
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
    package func createMaterializedView(
        _ relation: RelationDefinition, plan: StreamPlan, restoring: RestoredTables? = nil
    ) throws(SluiceError) -> UInt64 {
        try catalog.add(relation)
        let store = TableStore(types: relation.columns.map(\.type), primaryKey: [])
        stores.add(store, id: relation.id, isView: true)
        do {
            let epoch = try runtime.createView(
                id: relation.id, name: relation.name, plan: plan, context: EvaluationContext(), restoring: restoring
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
}
