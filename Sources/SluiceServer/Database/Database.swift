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

/// The shared state of one Sluice process, in three parts with one job each, and what joins
/// them: the start from a data directory. DDL, which changes all three, is the statement
/// handlers' (`Handlers/`, one file per statement), which a start replays.
///
/// - The catalog (``Catalog``) and its file (``CatalogFile``, `catalog.json`, rewritten after
///   every DDL statement).
/// - The tables' state (``TableState``): every table's rows, the write-ahead log under `wal/`,
///   and the writes that change them.
/// - The stream side (``StreamCoordinator``): the runtime maintaining the views, its barriers,
///   the state checkpoints of the tables, views and operators under `state/`, the connectors and
///   the memory budget.
///
/// At start the views come back from their last state checkpoint, or are rebuilt from their
/// inputs when there is none that covers them all (``load(from:)``).
///
/// A materialized view's store holds the rows of the last committed epoch: the stream runtime
/// replaces the stores of all views an epoch changed in one step, and queries take their view
/// snapshots in one step too (``reader()``), so a query sees every view at the same epoch.
package final class Database: TableProvider, Sendable {
    package let catalog = Catalog()
    package let dataDirectory: String?
    /// Barriers per checkpoint.
    package let checkpointFrequency: Int
    /// Where queries and state pages spill: under the data directory, or the system's
    /// temporary directory.
    package let spillDirectory: String
    /// The memory all queries together may hold: half the memory limit (the rest is the state
    /// pages', the results' in flight and the allocator's).
    package let queryMemory: ServerQueryMemory
    private let catalogFile: CatalogFile?
    package let tables: TableState
    /// Sampled distinct-value estimates of table columns, for the optimizer.
    let statistics = ColumnStatistics()
    package let streams: StreamCoordinator
    /// The system's time zones (tzdata), for `SET TimeZone` and `AT TIME ZONE`.
    package let timeZones = TimeZoneDatabase()
    /// `--host-alias`: the addresses connectors and Flink's catalogs reach instead of others.
    package let hostAliases: HostAliases
    /// What recovery did at start, for the log line `sluice serve` prints.
    package internal(set) var recovery: TableJournal.Recovery? {
        get { recoveryBox.withLock { $0 } }
        set { recoveryBox.withLock { $0 = newValue } }
    }
    private let recoveryBox = Mutex<TableJournal.Recovery?>(nil)

    /// Builds the connector a source or table names; `validate` asks it to check its options and
    /// reach its outside system (at CREATE, not at a restart).
    package typealias ConnectorFactory = @Sendable (SourceDescription, _ validate: Bool) throws(SluiceError) -> any SourceConnector
    let makeConnector: ConnectorFactory
    /// The same, without the data directory's state folder or the masking: for a session's
    /// `file_scan(…)` sources, which live outside the catalog.
    let makeDetachedSource: ConnectorFactory
    /// Builds the connector a sink names; `validate` as for sources.
    package typealias SinkFactory = @Sendable (SinkDescription, _ validate: Bool) throws(SluiceError) -> any StreamSink
    let makeSink: SinkFactory

    /// With a data directory, the views' state is checkpointed every `checkpointFrequency`
    /// barriers (RisingWave's `checkpoint_frequency`).
    package init(
        dataDirectory: String?, barrierIntervalMilliseconds: Int = 1000, checkpointFrequency: Int = 1, memoryLimit: Int? = nil,
        connectors makeConnector: @escaping ConnectorFactory = { description, _ throws(SluiceError) in
            throw SluiceError(.featureNotSupported, "connector \"\(description.options["connector"] ?? "")\" is not available")
        },
        sinks makeSink: @escaping SinkFactory = { description, _ throws(SluiceError) in
            throw SluiceError(.featureNotSupported, "sink connector \"\(description.options["connector"] ?? "")\" is not available")
        },
        hostAliases: HostAliases = HostAliases()
    ) throws(SluiceError) {
        self.hostAliases = hostAliases
        // A connector's error at CREATE or at a restart may quote its options: masked, as
        // in its statuses, before a client or the log sees it.
        makeDetachedSource = makeConnector
        self.makeConnector = { description, validate throws(SluiceError) in
            var description = description
            // A connector that keeps files of its own (a file source's list of files) keeps
            // them under the data directory, by the relation's id.
            description.stateDirectory = dataDirectory.map { "\($0)/connectors/\(description.id)" }
            do throws(SluiceError) {
                return try makeConnector(description, validate)
            } catch {
                throw error.maskingSecrets(SecretOptions.secretValues(of: description.options, description.formatOptions))
            }
        }
        self.makeSink = { description, validate throws(SluiceError) in
            var description = description
            description.stateDirectory = dataDirectory.map { "\($0)/connectors/\(description.id)" }
            do throws(SluiceError) {
                return try makeSink(description, validate)
            } catch {
                throw error.maskingSecrets(SecretOptions.secretValues(of: description.options))
            }
        }
        self.dataDirectory = dataDirectory
        self.checkpointFrequency = max(1, checkpointFrequency)
        catalogFile = dataDirectory.map { CatalogFile(dataDirectory: $0) }
        let stores = StoreRegistry()
        let spillDirectory = dataDirectory.map { "\($0)/spill" } ?? (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
        self.spillDirectory = spillDirectory
        queryMemory = ServerQueryMemory(limit: (memoryLimit ?? StateMemory.defaultLimit) / 2)
        let memory = memoryLimit.map { limit in StateMemory(limit: limit, spillDirectory: spillDirectory, boundsProcess: true) }
        let runtime = StreamRuntime(barrierIntervalMilliseconds: barrierIntervalMilliseconds, memory: memory) { rows, _ in
            stores.publish(rows)
        }
        let streams = StreamCoordinator(runtime: runtime)
        self.streams = streams
        let catalog = self.catalog
        tables = TableState(stores: stores, runtime: runtime, connectors: streams.connectors)
        let tables = self.tables
        catalog.setSystemReader(RuntimeSystemReader(catalog: catalog, streams: streams, tables: tables, queryMemory: queryMemory))
        if let dataDirectory {
            try streams.enableStateCheckpoints(
                directory: "\(dataDirectory)/state", frequency: checkpointFrequency, log: { tables.journal?.cut() },
                catalogVersion: { catalog.nextID },
                tables: { generation in tables.checkpointPieces(generation: generation) },
                written: { written in
                    tables.journal?.checkpointWritten(written)
                    runtime.checkpointWritten(epoch: written.manifest.epoch, leftOut: written.brokenChains)
                    // Connectors may let their outside system forget what the checkpoint holds.
                    for (id, connector) in streams.connectors.all {
                        if let positions = written.manifest.positions[id] { connector.durable(positions: positions) }
                    }
                },
                record: { entry in tables.journal?.record(entry) })
            try load(from: dataDirectory)
            if tables.journal == nil { tables.journal = try TableJournal(dataDirectory: dataDirectory) }
            runtime.resumeCheckpoints()
        }
        runtime.start()
    }

    /// A database whose sources and sinks are `connectors`' (Sluice's own: `BuiltInConnectors`).
    package convenience init(
        dataDirectory: String?, barrierIntervalMilliseconds: Int = 1000, checkpointFrequency: Int = 1, memoryLimit: Int? = nil,
        connectors: any ConnectorKit, hostAliases: HostAliases = HostAliases()
    ) throws(SluiceError) {
        let connectors = HostAliasingConnectors(inner: connectors, aliases: hostAliases)
        try self.init(
            dataDirectory: dataDirectory, barrierIntervalMilliseconds: barrierIntervalMilliseconds, checkpointFrequency: checkpointFrequency,
            memoryLimit: memoryLimit,
            connectors: { description, validate throws(SluiceError) in try connectors.makeSource(description, validate: validate) },
            sinks: { description, validate throws(SluiceError) in try connectors.makeSink(description, validate: validate) },
            hostAliases: hostAliases)
    }

    package func store(for tableID: Int) -> TableStore? {
        tables.store(for: tableID)
    }

    /// Writes the catalog's file (without a data directory: nothing).
    package func saveCatalog() throws(SluiceError) {
        try catalogFile?.save(catalog.relations, nextID: catalog.nextID, schemas: catalog.schemas, roles: catalog.roles, access: catalog.storedAccess,
            secrets: catalog.secrets, functions: catalog.functions)
    }

    /// A table provider for one query: tables as they are now, every view at one epoch, and a
    /// source as everything its outside system holds when the query first reads it.
    package func reader(fileScans: FileScans? = nil) -> SourceScanningReader {
        SourceScanningReader(
            base: tables.stores.reader(), connectors: streams.connectors.all, catalog: catalog, memory: streams.runtime.memory,
            external: fileScans?.relations ?? [:])
    }

    /// The optimizer for a session's queries: the stored row counts for its estimates, and
    /// constants folded in `context`.
    package func optimizer(foldingIn context: EvaluationContext) -> Optimizer {
        let stores = tables.stores
        let statistics = self.statistics
        let catalog = self.catalog
        var optimizer = Optimizer(
            rowCount: { stores.rowCount(id: $0) },
            distinctValues: { table, column in stores.store(for: table).flatMap { statistics.distinctValues(table: table, column: column, in: $0) } },
            foldingContext: context)
        optimizer.indexedTable = { id in catalog.relation(id: id).flatMap { $0.indexList.isEmpty ? nil : $0 } }
        return optimizer
    }

    /// Returns once every write made before the call is visible in every view.
    package func flush() async {
        await streams.runtime.flush()
    }

    /// Stops the connectors and the stream runtime's threads.
    package func stop() {
        streams.stop()
    }

    /// Takes a checkpoint of every table and view now and returns once it is on disk (the
    /// `CHECKPOINT` statement); throws what made it fail.
    package func checkpoint() async throws(SluiceError) {
        try await streams.checkpointNow()
    }

    /// A clean stop: the connectors stop, a last checkpoint is written (so the next start
    /// replays no log), then the runtime stops.
    package func shutdown() async throws(SluiceError) {
        streams.stopConnectors()
        defer { stop() }
        try await checkpoint()
    }
}
