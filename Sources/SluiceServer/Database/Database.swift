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

    package init(dataDirectory: String?, barrierIntervalMilliseconds: Int = 1000) throws(SluiceError) {
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
        if let dataDirectory { try load(from: dataDirectory) }
        runtime.start()
    }

    package func store(for tableID: Int) -> TableStore? {
        stores.store(for: tableID)
    }

    /// A table provider for one query: tables as they are now, every view at one epoch.
    package func reader() -> any TableProvider {
        stores.reader()
    }

    /// Inserts `chunks` (in the table's column order and types) into table `table` and sends
    /// the changes (upserted rows as deletes of the rows they replace) to the views reading it.
    /// Returns the number of rows given.
    @discardableResult
    package func insert(_ chunks: [Chunk], into table: RelationDefinition) throws(SluiceError) -> Int {
        guard let store = store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        return try runtime.withSources { (writer) throws(SluiceError) -> Int in
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

    /// Stops the stream runtime's threads.
    package func stop() {
        runtime.stop()
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
            for relation in stored.relations where relation.kind != .materializedView {
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
            // Views read tables and earlier views: rebuild them in creation order.
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
