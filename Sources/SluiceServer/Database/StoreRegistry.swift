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

/// The stores of every relation, and the lock under which views are published and read.
final class StoreRegistry: Sendable {
    private struct Entry {
        var store: TableStore
        /// A materialized view's store changes only by ``publish(_:)``.
        var isView: Bool
    }

    private let stores = Mutex<[Int: Entry]>([:])
    /// Tables' secondary indexes: table id → index id → index.
    private let indexes = Mutex<[Int: [Int: TableIndex]]>([:])

    /// Table `tableID`'s indexes.
    func indexes(of tableID: Int) -> [TableIndex] {
        indexes.withLock { $0[tableID].map { Array($0.values) } ?? [] }
    }

    func addIndex(_ index: TableIndex, id: Int, table: Int) {
        indexes.withLock { $0[table, default: [:]][id] = index }
    }

    func removeIndex(id: Int, table: Int) {
        indexes.withLock { _ = $0[table]?.removeValue(forKey: id) }
    }

    func store(for id: Int) -> TableStore? {
        stores.withLock { $0[id]?.store }
    }

    /// The tables' stores (not the views'), by id.
    func tables() -> [Int: TableStore] {
        stores.withLock { $0.filter { !$0.value.isView }.mapValues(\.store) }
    }

    func add(_ store: TableStore, id: Int, isView: Bool = false) {
        stores.withLock { $0[id] = Entry(store: store, isView: isView) }
    }

    func remove(id: Int) {
        stores.withLock { _ = $0.removeValue(forKey: id) }
        indexes.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Replaces the rows of every view in `views` in one step, with their indexes: each takes
    /// the epoch's changes, or is rebuilt from the view's rows when they were not kept.
    func publish(_ views: [Int: PublishedView]) {
        stores.withLock { stores in
            for (id, view) in views {
                guard let store = stores[id]?.store else { continue }
                store.replaceAll(with: view.pages)
                for index in indexes(of: id) {
                    if let changes = view.changes { index.apply(changes) } else { index.rebuild(from: store) }
                }
            }
        }
    }

    /// Adds index `index` of view `viewID`, built from the view's rows in the step that
    /// publishes them, so that it misses no epoch and takes none twice.
    func addViewIndex(_ index: TableIndex, id: Int, view viewID: Int) {
        stores.withLock { stores in
            if let store = stores[viewID]?.store { index.rebuild(from: store) }
            addIndex(index, id: id, table: viewID)
        }
    }

    /// The rows a table or view holds now (nil for one without stored rows), for the optimizer's
    /// estimates.
    func rowCount(id: Int) -> Int? {
        stores.withLock { $0[id]?.store }?.rowCount
    }

    /// Tables as they are, and a copy of every view's rows taken in one step.
    func reader() -> any TableProvider {
        stores.withLock { stores in
            var tables: [Int: TableStore] = [:]
            for (id, entry) in stores { tables[id] = entry.isView ? entry.store.frozenCopy() : entry.store }
            // A view's indexes as of the same epoch as its rows; a table's, live as its rows.
            let all = indexes.withLock { indexes in
                indexes.reduce(into: [Int: TableIndex]()) { all, relation in
                    let isView = stores[relation.key]?.isView == true
                    for (id, index) in relation.value { all[id] = isView ? index.frozen() : index }
                }
            }
            return ConsistentReader(tables: tables, indexes: all)
        }
    }
}

/// The tables one query reads: views fixed at one epoch, tables live.
struct ConsistentReader: TableProvider {
    var tables: [Int: TableStore]
    var indexes: [Int: TableIndex]

    func store(for tableID: Int) -> TableStore? {
        tables[tableID]
    }

    func index(_ indexID: Int) -> TableIndex? {
        indexes[indexID]
    }
}

/// The reader of one query, plus sources: a source's rows are everything its outside system
/// holds, read when the query first asks for them. A query runs on one thread.
package final class SourceScanningReader: PruningTableProvider, @unchecked Sendable {
    private let base: any TableProvider
    private let connectors: [Int: any SourceConnector]
    private let catalog: Catalog
    /// Relations outside the catalog (a session's `file_scan` calls), by id: their connector and
    /// column types.
    private let external: [Int: FileScans.Relation]
    private var scanned: [Int: TableStore] = [:]
    /// Why a source could not be read; the query must fail with it.
    package private(set) var failure: SluiceError?

    /// The server's state budget: a scan's rows count against it and spill past it.
    private let memory: StateMemory?

    init(base: any TableProvider, connectors: [Int: any SourceConnector], catalog: Catalog, memory: StateMemory?, external: [Int: FileScans.Relation] = [:]) {
        self.external = external
        self.base = base
        self.connectors = connectors
        self.catalog = catalog
        self.memory = memory
    }

    package func index(_ indexID: Int) -> TableIndex? {
        base.index(indexID)
    }

    package func store(for tableID: Int) -> TableStore? {
        if let store = base.store(for: tableID) { return store }
        if let store = scanned[tableID] { return store }
        guard let (connector, types) = connector(tableID) else { return nil }
        let store = read(connector, types, filter: nil)
        scanned[tableID] = store
        return store
    }

    /// The connector that reads relation `tableID`, and its column types.
    private func connector(_ tableID: Int) -> (any SourceConnector, [DataType])? {
        if let relation = external[tableID] { return (relation.connector, relation.types) }
        guard let connector = connectors[tableID], let relation = catalog.relation(id: tableID) else { return nil }
        return (connector, relation.columns.map(\.type))
    }

    /// The rows `connector` reads now, a chunk at a time into a table of the state store, which
    /// spills them to disk past `--memory-limit`: a query of a large topic or lake table never
    /// holds it whole in memory.
    private func read(_ connector: any SourceConnector, _ types: [DataType], filter: ScalarExpr?) -> TableStore {
        let store = TableStore(types: types, primaryKey: [], memory: memory)
        do {
            try connector.scan(pruningBy: filter) { (chunk: Chunk) throws(SluiceError) in try store.insert(chunk) }
        } catch {
            failure = failure ?? error
        }
        return store
    }

    package func store(for tableID: Int, pruningBy filter: ScalarExpr) -> TableStore? {
        if let store = base.store(for: tableID) { return store }
        if let store = scanned[tableID] { return store }
        guard let (connector, types) = connector(tableID) else { return nil }
        // Not kept for other scans of the relation in the statement: another filter may keep more.
        return read(connector, types, filter: filter)
    }
}

/// The running connectors, by relation id.
final class ConnectorSet: Sendable {
    private let connectors = Mutex<[Int: any SourceConnector]>([:])
    /// The watermark filters of the sources that have one, by source id.
    private let filters = Mutex<[Int: WatermarkFilter]>([:])
    /// The deduplicators of the sources and tables with `dedup.key`, by relation id.
    private let deduplicators = Mutex<[Int: SourceDeduplicator]>([:])

    /// Every deduplicator, by relation id.
    var allDeduplicators: [Int: SourceDeduplicator] { deduplicators.withLock { $0 } }

    /// Relation `id`'s deduplicator, if it has one.
    func deduplicator(for id: Int) -> SourceDeduplicator? { deduplicators.withLock { $0[id] } }

    func setDeduplicator(_ deduplicator: SourceDeduplicator?, for id: Int) {
        deduplicators.withLock { $0[id] = deduplicator }
    }

    var all: [Int: any SourceConnector] { connectors.withLock { $0 } }

    var watermarkFilters: [Int: WatermarkFilter] { filters.withLock { $0 } }

    /// Relation `id`'s watermark filter, if it has one.
    func watermarkFilter(for id: Int) -> WatermarkFilter? { filters.withLock { $0[id] } }

    /// The connector feeding relation `id`, if one does.
    func connector(for id: Int) -> (any SourceConnector)? { connectors.withLock { $0[id] } }

    func set(_ connector: any SourceConnector, for id: Int) {
        connectors.withLock { $0[id] = connector }
    }

    func setWatermarkFilter(_ filter: WatermarkFilter?, for id: Int) {
        filters.withLock { $0[id] = filter }
    }

    func remove(_ id: Int) -> (any SourceConnector)? {
        filters.withLock { _ = $0.removeValue(forKey: id) }
        deduplicators.withLock { _ = $0.removeValue(forKey: id) }
        return connectors.withLock { $0.removeValue(forKey: id) }
    }
}
