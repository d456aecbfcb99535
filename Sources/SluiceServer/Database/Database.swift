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
/// them: DDL, which changes all three, and the start from a data directory.
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
        }
    ) throws(SluiceError) {
        // A connector's error at CREATE or at a restart may quote its options: masked, as
        // in its statuses, before a client or the log sees it.
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

    package func store(for tableID: Int) -> TableStore? {
        tables.store(for: tableID)
    }

    /// Writes the catalog's file (without a data directory: nothing).
    package func saveCatalog() throws(SluiceError) {
        try catalogFile?.save(catalog.relations, nextID: catalog.nextID, schemas: catalog.schemas, roles: catalog.roles, access: catalog.storedAccess,
            secrets: catalog.secrets)
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

    /// Registers source or connector-fed table `relation` and starts its connector, which first
    /// checks its options and reaches its outside system: a mistake is an error here, not later.
    /// Returns the connector's notices for the user.
    @discardableResult
    package func createSource(_ relation: RelationDefinition) throws(SluiceError) -> [String] {
        let connector = try makeConnector(Self.sourceDescription(relation), true)
        var relation = relation
        if relation.columns.isEmpty && !Self.isSharedCDCSource(relation) {
            guard let inferred = connector.inferredColumns, !inferred.isEmpty else {
                connector.stop()
                throw SluiceError(
                    .invalidTableDefinition, "\(relation.kind == .table ? "table" : "source") \"\(relation.name)\" needs its columns listed",
                    hint: "The \(relation.connector?.connector ?? "") connector cannot tell them; Iceberg tables, Parquet files and ENCODE AVRO with a schema registry say their columns.")
            }
            relation.columns = inferred.map { CatalogColumn(name: $0.name, type: $0.type) }
            // `CREATE TABLE t (PRIMARY KEY (id)) WITH (…)`: the key the statement names, else
            // the one the connector says.
            if let key = relation.connector?.primaryKeyNames ?? connector.inferredPrimaryKey {
                relation.primaryKey = []
                for name in key {
                    guard let index = relation.columns.firstIndex(where: { $0.name == name }) else {
                        connector.stop()
                        throw SluiceError(
                            .undefinedColumn, "column \"\(name)\" named in PRIMARY KEY is not one of the columns the \(relation.connector?.connector ?? "") connector gives",
                            hint: "Its columns: \(relation.columns.map(\.name).joined(separator: ", ")).")
                    }
                    relation.primaryKey.append(index)
                    relation.columns[index].isNullable = false
                }
            }
            relation.connector?.primaryKeyNames = nil
        }
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

    /// A CDC source (`connector = 'postgres-cdc'`) is shared by the tables made FROM it and has
    /// no columns of its own.
    static func isSharedCDCSource(_ relation: RelationDefinition) -> Bool {
        relation.kind == .source && (relation.connector?.connector.hasSuffix("-cdc") ?? false)
    }

    /// Starts `connector`, which feeds `relation`; a source with a watermark starts it from
    /// `watermark` (a checkpoint's) when given.
    func start(_ connector: any SourceConnector, for relation: RelationDefinition, watermark: Int64? = nil) {
        // A source's generated columns complete each chunk it delivers, snapshots and scans too.
        let generating: any SourceConnector = generatedColumns(for: relation, statistics: connector.statistics)
            .map { GeneratingConnector(connector, generated: $0) } ?? connector
        // A source's repeats are dropped from what it delivers, its snapshots and scans too.
        let deduplicator = relation.kind == .source ? registerDeduplicator(for: relation) : nil
        let connector: any SourceConnector = deduplicator.map { [self] in
            DeduplicatingConnector(generating, like: $0) { [weak self] in self?.watermarkFilter(for: relation, from: nil) }
        } ?? generating
        streams.connectors.set(connector, for: relation.id)
        // A table's rows are its store's (set when it was made); a source's are its connector's.
        if relation.kind != .table { streams.runtime.setRows(.source(connector), for: relation.id) }
        let runtime = streams.runtime
        let tables = self.tables
        let id = relation.id
        let output: SourceOutput
        if relation.kind == .table {
            // The rows and then the position they reach are logged together: after a crash the
            // table holds exactly the rows before the logged position, and reading resumes there.
            let reached = { @Sendable [weak connector] () -> [Int32: Int64]? in connector?.positions }
            output = SourceOutput(
                isRead: { true },
                deliver: { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                    try tables.insert([chunk], into: relation, synchronousCommit: false) {
                        advance()
                        return reached()
                    }
                },
                deleteKeys: { (keys: Chunk, advance: () -> Void) throws(SluiceError) in
                    try tables.delete(keysOf: keys, from: relation, synchronousCommit: false) {
                        advance()
                        return reached()
                    }
                },
                truncate: { [spillDirectory] () throws(SluiceError) in
                    _ = try tables.modify(relation, spillDirectory: spillDirectory) { (rows: Chunk) throws(SluiceError) in Bitmap(count: rows.count, value: true) }
                },
                lookup: { (keys: Chunk) in
                    tables.store(for: id)?.lookup(keysOf: keys) ?? (keys, Array(repeating: nil, count: keys.count))
                })
        } else if let filter = watermarkFilter(for: relation, from: watermark) {
            // Late rows are dropped and counted; the watermark follows the rows it rose with,
            // in the same step (a checkpoint's cut sees both or neither).
            streams.connectors.setWatermarkFilter(filter, for: id)
            let statistics = connector.statistics
            output = SourceOutput(isRead: { runtime.isRead(id) }) { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                runtime.withSource(id) { writer in
                    let (kept, late, watermark) = filter.apply(chunk)
                    if late > 0 { statistics.rowsLate.add(late, ordering: .relaxed) }
                    let rows = deduplicator?.apply(kept, watermark: filter.watermark) ?? kept
                    writer.emit(TableState.changes(rows, .insert))
                    if let watermark { writer.emit(watermark) }
                    advance()
                }
            }
        } else if let deduplicator {
            output = SourceOutput(isRead: { runtime.isRead(id) }) { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                runtime.withSource(id) { writer in
                    writer.emit(TableState.changes(deduplicator.apply(chunk, watermark: nil), .insert))
                    advance()
                }
            }
        } else {
            // The views over the source read some of its columns: a connector that can leave
            // the others undecoded (Parquet files) does, as long as no reader wants them.
            let reading = SourceOutput.ColumnReading(
                columns: { runtime.readColumns(id) },
                deliver: { (chunk: Chunk, columns: Set<Int>, advance: () -> Void) throws(SluiceError) -> Bool in
                    runtime.withSource(id) { writer -> Bool in
                        guard let read = writer.readColumns, read.isSubset(of: columns) else { return false }
                        writer.emit(TableState.changes(chunk, .insert))
                        advance()
                        return true
                    }
                })
            output = SourceOutput(
                isRead: { runtime.isRead(id) },
                deliver: { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                    runtime.withSource(id) { writer in
                        writer.emit(TableState.changes(chunk, .insert))
                        advance()
                    }
                },
                reading: reading)
        }
        let reading = output.callingWhenCaughtUp { runtime.requestBarrier() }.runningJobs(on: runtime.backgroundJobs)
        connector.start(output: relation.kind == .table ? reading : reading.waitingForReaders { runtime.waitUntilRead(id, timeout: $0) })
    }

    /// `relation`'s generated columns, if it has any (bound again).
    private func generatedColumns(for relation: RelationDefinition, statistics: SourceStatistics) -> GeneratedColumns? {
        guard relation.columns.contains(where: { $0.generatedExpression != nil }) else { return nil }
        do {
            let columns = try Binder.generatedColumns(of: relation, catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
            return GeneratedColumns(columns: relation.columns, expressions: columns, statistics: statistics)
        } catch {
            // Checked at CREATE; a start that cannot bind them again fills them with NULLs.
            return GeneratedColumns(columns: relation.columns, expressions: [], statistics: statistics)
        }
    }

    /// The filter of `relation`'s watermark, if it has one (its expression bound again).
    func watermarkFilter(for relation: RelationDefinition, from watermark: Int64?) -> WatermarkFilter? {
        guard let spec = relation.watermark else { return nil }
        do {
            let expression = try Binder.watermarkExpression(of: relation, catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
            return WatermarkFilter(column: spec.column, expression: expression, context: EvaluationContext(), watermark: watermark)
        } catch {
            // Checked at CREATE; a start that cannot bind it again reads without a watermark.
            return nil
        }
    }

    static func sourceDescription(_ relation: RelationDefinition) -> SourceDescription {
        let spec = relation.connector ?? ConnectorSpec(options: [:], format: "", encode: "")
        var description = SourceDescription(
            id: relation.id, name: relation.name, columns: relation.columns.filter { $0.generatedExpression == nil }.map { ($0.name, $0.type) },
            primaryKey: relation.primaryKey,
            options: spec.options, format: spec.format, encode: spec.encode, formatOptions: spec.formatOptions, isTable: relation.kind == .table)
        description.startPositions = spec.startPositions
        description.primaryKeyNames = spec.primaryKeyNames ?? []
        description.includes = (spec.includes ?? []).compactMap { include in
            guard let kind = SourceInclude.Kind(rawValue: include.kind),
                  let column = description.columns.firstIndex(where: { $0.name == include.column }) else { return nil }
            return SourceInclude(kind: kind, column: column)
        }
        return description
    }

    /// Registers a new relation and, for a table, its empty store.
    package func create(_ relation: RelationDefinition) throws(SluiceError) -> TableStore {
        try catalog.add(relation)
        let store = TableStore(
                    types: relation.columns.map(\.type), primaryKey: relation.primaryKey, onConflict: relation.onConflict ?? .overwrite,
                    versionColumn: relation.versionColumn, memory: streams.runtime.memory)
        if dataDirectory != nil { store.enableCheckpoints() }
        registerDeduplicator(for: relation)
        tables.stores.add(store, id: relation.id)
        streams.runtime.setRows(.store(store), for: relation.id)
        if relation.kind == .table, let filter = watermarkFilter(for: relation, from: nil) {
            streams.connectors.setWatermarkFilter(filter, for: relation.id)
        }
        try saveCatalog()
        return store
    }

    /// Registers view `relation` (in place of `replacing`, for CREATE OR REPLACE VIEW). A view
    /// is its definition alone: queries naming it bind its query in its place.
    package func createView(_ relation: RelationDefinition, replacing: RelationDefinition?) throws(SluiceError) {
        if let replacing { catalog.remove(id: replacing.id) }
        do {
            try catalog.add(relation)
        } catch {
            if let replacing { try? catalog.add(replacing) }
            throw error
        }
        try saveCatalog()
    }

    /// Registers materialized view `relation` and starts maintaining it by `plan`, from the
    /// current rows of what it reads. Returns the epoch after which it shows those rows.
    package func createMaterializedView(
        _ relation: RelationDefinition, plan: StreamPlan, restoring: RestoredTables? = nil
    ) throws(SluiceError) -> UInt64 {
        try catalog.add(relation)
        let store = TableStore(types: relation.columns.map(\.type), primaryKey: [])
        tables.stores.add(store, id: relation.id, isView: true)
        streams.runtime.setRows(.store(store), for: relation.id)
        // A restored view's indexes, empty until its first epoch is published (rebuilt from its
        // rows then, whole).
        for index in relation.indexList { tables.stores.addIndex(makeIndex(index, of: relation), id: index.id, table: relation.id) }
        let stores = tables.stores
        do {
            let epoch = try streams.runtime.createView(
                id: relation.id, name: relation.name, plan: plan, context: EvaluationContext(timeZones: timeZones), restoring: restoring)
            if !relation.indexList.isEmpty { streams.runtime.setKeepsChanges(true, view: relation.id) }
            try saveCatalog()
            return epoch
        } catch {
            catalog.remove(id: relation.id)
            stores.remove(id: relation.id)
            streams.runtime.removeRows(for: relation.id)
            throw error
        }
    }

    /// Registers sink `relation` and starts feeding it by `plan`, from the current rows of what
    /// it reads, or from `restoring` (a checkpoint's state: its epochs prepared and not yet
    /// committed, which commit at the first durable checkpoint). With `validate` (at CREATE)
    /// the connector checks its options and target first. Returns the epoch after which the sink
    /// has taken those rows.
    package func createSink(
        _ relation: RelationDefinition, plan: StreamPlan, restoring: RestoredTables? = nil, validate: Bool = true
    ) throws(SluiceError) -> UInt64 {
        var relation = relation
        if relation.sinkID == nil { relation.sinkID = UUID().uuidString.lowercased() }
        let sink = try makeSink(Self.sinkDescription(relation), validate)
        let interval = relation.connector?.options["commit_checkpoint_interval"].flatMap { Int($0) } ?? sink.defaultCommitInterval
        let committer = SinkCommitter(sink: sink, interval: interval, statistics: SinkStatistics())
        do {
            try catalog.add(relation)
        } catch {
            sink.close()
            throw error
        }
        do {
            let epoch = try streams.runtime.createView(
                id: relation.id, name: relation.name, plan: plan, context: EvaluationContext(timeZones: timeZones), restoring: restoring,
                sink: committer)
            try saveCatalog()
            return epoch
        } catch {
            streams.runtime.dropView(id: relation.id)
            catalog.remove(id: relation.id)
            committer.close()
            throw error
        }
    }


    static func sinkDescription(_ relation: RelationDefinition) -> SinkDescription {
        SinkDescription(
            id: relation.id, name: relation.name, sinkID: relation.sinkID ?? "", columns: relation.columns.map { ($0.name, $0.type) },
            appendOnly: relation.appendOnly ?? true, primaryKey: relation.primaryKey, options: relation.connector?.options ?? [:],
            format: relation.connector?.format ?? "", encode: relation.connector?.encode ?? "", formatOptions: relation.connector?.formatOptions ?? [:])
    }

    /// Adds secondary index `index` to `table` and builds it from the table's rows, with the
    /// table's writes paused so that none is missed or applied twice.
    /// A materialized view's index is built from the view's rows in the step that publishes an
    /// epoch, and takes each later epoch's changes.
    package func createIndex(_ index: IndexDefinition, on table: RelationDefinition) throws(SluiceError) {
        guard let store = tables.store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        let built = makeIndex(index, of: table)
        if table.kind == .materializedView {
            tables.stores.addViewIndex(built, id: index.id, view: table.id)
            streams.runtime.setKeepsChanges(true, view: table.id)
            do {
                try catalog.addIndex(index, toTable: table.id)
                try saveCatalog()
            } catch {
                dropIndex(index.id, of: table.id)
                throw error
            }
            return
        }
        try streams.runtime.withWritesPaused { () throws(SluiceError) in
            try catalog.addIndex(index, toTable: table.id)
            built.rebuild(from: store)
            tables.stores.addIndex(built, id: index.id, table: table.id)
        }
        do {
            try saveCatalog()
        } catch {
            tables.stores.removeIndex(id: index.id, table: table.id)
            catalog.removeIndex(index.id, fromTable: table.id)
            throw error
        }
    }

    package func dropIndex(_ index: IndexDefinition, of table: RelationDefinition) throws(SluiceError) {
        dropIndex(index.id, of: table.id)
        try saveCatalog()
    }

    private func dropIndex(_ indexID: Int, of tableID: Int) {
        catalog.removeIndex(indexID, fromTable: tableID)
        tables.stores.removeIndex(id: indexID, table: tableID)
        if tables.stores.indexes(of: tableID).isEmpty { streams.runtime.setKeepsChanges(false, view: tableID) }
    }

    /// An empty index `index` of `table`, counted against the memory limit.
    func makeIndex(_ index: IndexDefinition, of table: RelationDefinition) -> TableIndex {
        TableIndex(
            types: table.columns.map(\.type),
            keys: index.keys,
            memory: streams.runtime.memory)
    }

    package func drop(_ relation: RelationDefinition) throws(SluiceError) {
        if relation.kind == .materializedView || relation.kind == .sink { streams.runtime.dropView(id: relation.id) }
        if let connector = streams.connectors.remove(relation.id) { connector.stop() }
        streams.connectors.setWatermarkFilter(nil, for: relation.id)
        catalog.remove(id: relation.id)
        tables.stores.remove(id: relation.id)
        streams.runtime.removeRows(for: relation.id)
        try saveCatalog()
        if relation.kind == .table, let journal = tables.journal {
            // Its id may name a new table after a restart: replay must not apply its rows there.
            try journal.makeDurable(upTo: try journal.append(.dropped(table: relation.id)))
        }
    }
}
