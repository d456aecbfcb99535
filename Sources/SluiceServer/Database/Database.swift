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
                    lastError: fragment.statistics.lastError, plan: fragment.planText)
            }
        }
        let connectors = self.connectors
        catalog.setSourceStatusSource {
            connectors.all.sorted { $0.key < $1.key }.map { id, connector in
                let statistics = connector.statistics
                return SourceStatus(
                    relationID: id, rowsRead: statistics.rowsRead.load(ordering: .relaxed),
                    rowsRejected: statistics.rowsRejected.load(ordering: .relaxed), status: statistics.status, errors: statistics.errors)
            }
        }
        if let dataDirectory { try load(from: dataDirectory) }
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
    /// `afterward` runs under the same source lock once the rows are in (a connector records
    /// the position it reached there).
    @discardableResult
    package func insert(_ chunks: [Chunk], into table: RelationDefinition, afterward: () -> Void = {}) throws(SluiceError) -> Int {
        guard let store = store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        return try runtime.withSources { (writer) throws(SluiceError) -> Int in
            defer { afterward() }
            var count = 0
            let isRead = writer.isRead(table.id)
            for chunk in chunks {
                let result = try store.insert(chunk)
                count += chunk.count
                if isRead {
                    if let replaced = result.replaced { writer.emit(Self.changes(replaced, .delete), table: table.id) }
                    writer.emit(Self.changes(result.inserted, .insert), table: table.id)
                }
            }
            return count
        }
    }

    /// Deletes the rows of `table` whose primary keys are those of `keys`' rows and sends the
    /// deletes to the views reading it; `afterward` runs under the same source lock.
    package func delete(keysOf keys: Chunk, from table: RelationDefinition, afterward: () -> Void = {}) throws(SluiceError) {
        guard let store = store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        runtime.withSources { writer in
            defer { afterward() }
            if let removed = store.delete(keysOf: keys), writer.isRead(table.id) {
                writer.emit(Self.changes(removed, .delete), table: table.id)
            }
        }
    }

    /// Deletes the rows of `table` that `matching` selects or, with `update`, replaces each chunk
    /// of them by what `update` makes of it, and sends the changes (old rows deleted, new rows
    /// inserted, rows an updated primary key replaced deleted) to the views reading the table.
    /// Returns the number of rows matched.
    package func modify(
        _ table: RelationDefinition, matching: (Chunk) throws(SluiceError) -> Bitmap,
        update: ((Chunk) throws(SluiceError) -> Chunk)? = nil
    ) throws(SluiceError) -> Int {
        guard let store = store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        return try runtime.withSources { (writer) throws(SluiceError) -> Int in
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
            if writer.isRead(table.id) {
                for chunk in removed + result.replaced { writer.emit(Self.changes(chunk, .delete), table: table.id) }
                for chunk in result.inserted { writer.emit(Self.changes(chunk, .insert), table: table.id) }
            }
            return result.affected
        }
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
            output = SourceOutput(
                isRead: { true },
                deliver: { [weak self] (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                    guard let self else { return }
                    try self.insert([chunk], into: relation, afterward: advance)
                },
                deleteKeys: { [weak self] (keys: Chunk, advance: () -> Void) throws(SluiceError) in
                    guard let self else { return }
                    try self.delete(keysOf: keys, from: relation, afterward: advance)
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
        return SourceDescription(
            id: relation.id, name: relation.name, columns: relation.columns.map { ($0.name, $0.type) }, primaryKey: relation.primaryKey,
            options: spec.options, format: spec.format, encode: spec.encode, formatOptions: spec.formatOptions, isTable: relation.kind == .table)
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
        if let dataDirectory { try? FileManager.default.removeItem(atPath: "\(dataDirectory)/tables/\(relation.id).chunks") }
        try saveCatalog()
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

    /// Writes every table's rows to the data directory (views are rebuilt, not saved).
    package func saveTables() throws(SluiceError) {
        guard let dataDirectory else { return }
        let tables = Set(catalog.relations.filter { $0.kind == .table }.map(\.id))
        let all = stores.all().filter { tables.contains($0.key) }
        do {
            try FileManager.default.createDirectory(atPath: "\(dataDirectory)/tables", withIntermediateDirectories: true)
            for (id, store) in all {
                var bytes: [UInt8] = Array("SLUICE-TABLE-1\n".utf8)
                for chunk in store.snapshot().chunks { ChunkCodec.encode(chunk, into: &bytes) }
                try writeAtomically(Data(bytes), to: "\(dataDirectory)/tables/\(id).chunks")
            }
        } catch {
            throw SluiceError(.ioError, "could not write table data: \(error)")
        }
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
            for relation in stored.relations where relation.kind == .table {
                try catalog.add(relation)
                let store = TableStore(types: relation.columns.map(\.type), primaryKey: relation.primaryKey)
                let path = "\(directory)/tables/\(relation.id).chunks"
                if let data = FileManager.default.contents(atPath: path) {
                    let bytes = [UInt8](data)
                    let header = Array("SLUICE-TABLE-1\n".utf8)
                    guard bytes.starts(with: header) else { throw SluiceError(.ioError, "table file \(path) has an unknown format") }
                    var offset = header.count
                    while offset < bytes.count {
                        try store.insert(try ChunkCodec.decode(bytes, offset: &offset, types: store.types))
                    }
                }
                stores.add(store, id: relation.id)
            }
            // Connectors start from their definitions (not checked again: an outside system that
            // is down now is retried, with the reason in `sluice_sources.status`).
            for relation in stored.relations where relation.connector != nil {
                do {
                    start(try makeConnector(Self.sourceDescription(relation), false), for: relation)
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
