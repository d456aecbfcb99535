import Foundation
import SluiceCore
import Synchronization

/// The persistent Iceberg catalog: warehouses → namespaces → tables, each table a pointer to
/// its current metadata file.
///
/// The pointers live in `<rootDirectory>/catalog.json` (see ``IcebergCatalogState``), replaced
/// atomically per change. Metadata files are written through ``FileIO`` at
/// `<table location>/metadata/<5-digit version>-<uuid>.metadata.json`, so tables may live on S3
/// while the pointers stay local. A commit is: wait for the table's commit lock, check the
/// requirements against the current metadata, write the new metadata file, swap the pointer.
/// A crash between the last two leaves an unreferenced metadata file and the old pointer.
///
/// Synchronous and thread-safe: call it from any thread that may block (never a NIO event
/// loop). ``warehouse(_:)`` gives the async ``IcebergCatalog`` view the sink uses.
package final class IcebergCatalogStore: Sendable {
    package let rootDirectory: String
    /// Where warehouses live: `file:///…/warehouse` or `s3://bucket/prefix`, no trailing `/`.
    package let warehouseRoot: String
    package let fileIO: any FileIO
    package let autoCreatesWarehouses: Bool
    /// Milliseconds since the epoch; injectable for tests.
    let clock: @Sendable () -> Int64
    let stateFile: IcebergCatalogStateFile
    let state: Mutex<IcebergCatalogState>
    /// Parsed metadata of current pointers, keyed by metadata location (files never change).
    let metadataCache = Mutex<[String: IcebergTableMetadata]>([:])
    let tableLocks = IcebergTableLocks()

    /// Opens (or creates) the catalog under `rootDirectory`.
    ///
    /// - Parameters:
    ///   - warehouseRoot: the location prefix under which each warehouse gets `<root>/<warehouse>`.
    ///   - autoCreateWarehouses: whether a warehouse named by a client is created on first use;
    ///     when false, only warehouses made with ``createWarehouse(_:)`` exist.
    package init(rootDirectory: String, warehouseRoot: String, fileIO: any FileIO, autoCreateWarehouses: Bool = true,
                 clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }) throws(SluiceError) {
        try CatalogDisk.createDirectory(rootDirectory)
        self.rootDirectory = rootDirectory
        var root = warehouseRoot
        while root.hasSuffix("/") && !root.hasSuffix("://") { root.removeLast() }
        self.warehouseRoot = root
        self.fileIO = fileIO
        self.autoCreatesWarehouses = autoCreateWarehouses
        self.clock = clock
        self.stateFile = IcebergCatalogStateFile(rootDirectory: rootDirectory)
        self.state = Mutex(try stateFile.load())
    }

    /// The async catalog view of one warehouse (what the sink and the protocol use).
    package func warehouse(_ name: String) -> IcebergWarehouseCatalog {
        IcebergWarehouseCatalog(store: self, warehouse: name)
    }

    // MARK: Warehouses

    package func createWarehouse(_ name: String) throws(SluiceError) {
        try mutate { state throws(SluiceError) in
            if state.warehouses[name] == nil { state.warehouses[name] = IcebergCatalogState.Warehouse() }
        }
    }

    package func warehouseNames() -> [String] {
        state.withLock { $0.warehouses.keys.sorted() }
    }

    /// The default location of a table: `<root>/<warehouse>/<namespace parts joined by '/'>/<table>`.
    package func defaultLocation(warehouse: String, _ identifier: IcebergTableIdentifier) -> String {
        ([warehouseRoot, warehouse] + identifier.namespace + [identifier.name]).joined(separator: "/")
    }

    // MARK: Namespaces

    package func listNamespaces(warehouse: String, parent: [String] = []) throws(SluiceError) -> [[String]] {
        try read(warehouse) { warehouseState throws(SluiceError) in
            if !parent.isEmpty, warehouseState.namespaces[IcebergCatalogState.key(parent)] == nil {
                throw IcebergCatalogError.noSuchNamespace(parent)
            }
            return warehouseState.namespaces.values
                .filter { $0.parts.count == parent.count + 1 && Array($0.parts.prefix(parent.count)) == parent }
                .map(\.parts)
                .sorted { $0.lexicographicallyPrecedes($1) }
        }
    }

    /// Creates a namespace whose parent (for a nested one) exists; `42P06` when it exists.
    @discardableResult
    package func createNamespace(warehouse: String, _ namespace: [String], properties: [String: String] = [:]) throws(SluiceError) -> [String: String] {
        try validate(namespace)
        try mutateWarehouse(warehouse) { warehouseState throws(SluiceError) in
            let key = IcebergCatalogState.key(namespace)
            guard warehouseState.namespaces[key] == nil else { throw IcebergCatalogError.namespaceExists(namespace) }
            let parent = Array(namespace.dropLast())
            if !parent.isEmpty, warehouseState.namespaces[IcebergCatalogState.key(parent)] == nil {
                throw IcebergCatalogError.noSuchNamespace(parent)
            }
            warehouseState.namespaces[key] = IcebergCatalogState.Namespace(parts: namespace, properties: properties)
        }
        return properties
    }

    /// Creates the namespace and any missing ancestors; existing ones are left alone.
    package func createNamespaceIfMissing(warehouse: String, _ namespace: [String]) throws(SluiceError) {
        try validate(namespace)
        let exists = try read(warehouse) { $0.namespaces[IcebergCatalogState.key(namespace)] != nil }
        guard !exists else { return }
        try mutateWarehouse(warehouse) { warehouseState throws(SluiceError) in
            for depth in 1 ... namespace.count {
                let parts = Array(namespace.prefix(depth))
                let key = IcebergCatalogState.key(parts)
                if warehouseState.namespaces[key] == nil {
                    warehouseState.namespaces[key] = IcebergCatalogState.Namespace(parts: parts, properties: [:])
                }
            }
        }
    }

    package func namespaceProperties(warehouse: String, _ namespace: [String]) throws(SluiceError) -> [String: String] {
        try read(warehouse) { warehouseState throws(SluiceError) in
            guard let found = warehouseState.namespaces[IcebergCatalogState.key(namespace)] else {
                throw IcebergCatalogError.noSuchNamespace(namespace)
            }
            return found.properties
        }
    }

    package func namespaceExists(warehouse: String, _ namespace: [String]) throws(SluiceError) -> Bool {
        try read(warehouse) { $0.namespaces[IcebergCatalogState.key(namespace)] != nil }
    }

    /// Drops an empty namespace; `2BP01` when it has tables or child namespaces.
    package func dropNamespace(warehouse: String, _ namespace: [String]) throws(SluiceError) {
        try mutateWarehouse(warehouse) { warehouseState throws(SluiceError) in
            let key = IcebergCatalogState.key(namespace)
            guard let found = warehouseState.namespaces[key] else { throw IcebergCatalogError.noSuchNamespace(namespace) }
            let hasChildren = warehouseState.namespaces.values.contains {
                $0.parts.count > namespace.count && Array($0.parts.prefix(namespace.count)) == namespace
            }
            guard found.tables.isEmpty, !hasChildren else { throw IcebergCatalogError.namespaceNotEmpty(namespace) }
            warehouseState.namespaces[key] = nil
        }
    }

    /// Applies property removals and updates; returns what was updated, removed, and asked to
    /// be removed but missing (REST `UpdateNamespacePropertiesResponse`).
    package func updateNamespaceProperties(warehouse: String, _ namespace: [String], removals: [String],
                                           updates: [String: String]) throws(SluiceError) -> (updated: [String], removed: [String], missing: [String]) {
        let overlap = Set(removals).intersection(updates.keys)
        guard overlap.isEmpty else {
            throw IcebergCatalogError.badRequest("properties cannot be both updated and removed: \(overlap.sorted().joined(separator: ", "))")
        }
        var result: (updated: [String], removed: [String], missing: [String]) = ([], [], [])
        try mutateWarehouse(warehouse) { warehouseState throws(SluiceError) in
            let key = IcebergCatalogState.key(namespace)
            guard var found = warehouseState.namespaces[key] else { throw IcebergCatalogError.noSuchNamespace(namespace) }
            for name in removals {
                if found.properties.removeValue(forKey: name) != nil { result.removed.append(name) } else { result.missing.append(name) }
            }
            for (name, value) in updates { found.properties[name] = value }
            result.updated = updates.keys.sorted()
            warehouseState.namespaces[key] = found
        }
        return result
    }

    // MARK: Tables (listing, existence)

    package func listTables(warehouse: String, namespace: [String]) throws(SluiceError) -> [String] {
        try read(warehouse) { warehouseState throws(SluiceError) in
            guard let found = warehouseState.namespaces[IcebergCatalogState.key(namespace)] else {
                throw IcebergCatalogError.noSuchNamespace(namespace)
            }
            return found.tables.keys.sorted()
        }
    }

    package func tableExists(warehouse: String, _ identifier: IcebergTableIdentifier) throws(SluiceError) -> Bool {
        try pointer(warehouse: warehouse, identifier) != nil
    }

    /// The current metadata location of a table, nil when the table or namespace is missing.
    func pointer(warehouse: String, _ identifier: IcebergTableIdentifier) throws(SluiceError) -> String? {
        try read(warehouse) { $0.namespaces[IcebergCatalogState.key(identifier.namespace)]?.tables[identifier.name] }
    }

    // MARK: State access

    func validate(_ namespace: [String]) throws(SluiceError) {
        guard !namespace.isEmpty, namespace.allSatisfy({ !$0.isEmpty && !$0.contains("\u{1F}") }) else {
            throw IcebergCatalogError.badRequest("invalid namespace: \(namespace)")
        }
    }

    /// Reads a warehouse's state; a missing warehouse reads as empty when warehouses are
    /// auto-created (it would be created by the first write), else `42704`.
    func read<Result>(_ warehouse: String, _ body: (IcebergCatalogState.Warehouse) throws(SluiceError) -> Result) throws(SluiceError) -> Result {
        let snapshot = state.withLock { $0.warehouses[warehouse] }
        if let snapshot { return try body(snapshot) }
        guard autoCreatesWarehouses else { throw noSuchWarehouse(warehouse) }
        return try body(IcebergCatalogState.Warehouse())
    }

    func noSuchWarehouse(_ name: String) -> SluiceError {
        SluiceError(.undefinedObject, "warehouse does not exist: \(name)")
    }

    /// Changes the state and saves it; nothing changes when `body` or the save throws.
    func mutate(_ body: (inout IcebergCatalogState) throws(SluiceError) -> Void) throws(SluiceError) {
        let result: Result<Void, SluiceError> = state.withLock { current in
            var copy = current
            do throws(SluiceError) {
                try body(&copy)
                if copy != current { try stateFile.save(copy) }
                current = copy
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    func mutateWarehouse(_ warehouse: String, _ body: (inout IcebergCatalogState.Warehouse) throws(SluiceError) -> Void) throws(SluiceError) {
        let autoCreates = autoCreatesWarehouses
        try mutate { state throws(SluiceError) in
            guard var warehouseState = state.warehouses[warehouse] ?? (autoCreates ? IcebergCatalogState.Warehouse() : nil) else {
                throw noSuchWarehouse(warehouse)
            }
            try body(&warehouseState)
            state.warehouses[warehouse] = warehouseState
        }
    }
}

/// Serializes commits per table: at most one holder per key, others wait.
final class IcebergTableLocks: Sendable {
    private let condition = NSCondition()
    private let busy = Mutex<Set<String>>([])

    func withLock<Result>(_ key: String, _ body: () throws(SluiceError) -> Result) throws(SluiceError) -> Result {
        condition.lock()
        while busy.withLock({ $0.contains(key) }) { condition.wait() }
        busy.withLock { _ = $0.insert(key) }
        condition.unlock()
        defer {
            condition.lock()
            busy.withLock { _ = $0.remove(key) }
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}
