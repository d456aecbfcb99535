import Foundation
import SluiceCore

extension IcebergCatalogStore {
    /// Loads a table's current metadata; `42P01` when it does not exist.
    package func loadTable(warehouse: String, _ identifier: IcebergTableIdentifier) throws(SluiceError) -> IcebergLoadedTable {
        guard let location = try pointer(warehouse: warehouse, identifier) else {
            if try !namespaceExists(warehouse: warehouse, identifier.namespace) { throw IcebergCatalogError.noSuchNamespace(identifier.namespace) }
            throw IcebergCatalogError.noSuchTable(identifier.namespace, identifier.name)
        }
        return IcebergLoadedTable(metadataLocation: location, metadata: try readMetadata(location))
    }

    /// Creates a table (or, when `creation.isStaged`, returns the metadata a create transaction
    /// starts from without creating anything); `42P07` when it exists, `3F000` without namespace.
    package func createTable(warehouse: String, namespace: [String], _ creation: IcebergTableCreation) throws(SluiceError) -> IcebergLoadedTable {
        let identifier = IcebergTableIdentifier(namespace: namespace, name: creation.name)
        guard !creation.name.isEmpty else { throw IcebergCatalogError.badRequest("table name must not be empty") }
        guard try namespaceExists(warehouse: warehouse, namespace) else { throw IcebergCatalogError.noSuchNamespace(namespace) }
        guard try pointer(warehouse: warehouse, identifier) == nil else { throw IcebergCatalogError.tableExists(namespace, creation.name) }

        let metadata = try creation.initialMetadata(defaultLocation: defaultLocation(warehouse: warehouse, identifier), now: clock())
        guard !creation.isStaged else { return IcebergLoadedTable(metadataLocation: nil, metadata: metadata) }

        return try tableLocks.withLock(lockKey(warehouse, identifier)) { () throws(SluiceError) -> IcebergLoadedTable in
            let metadataLocation = try writeMetadata(metadata, version: 0)
            try swapPointer(warehouse: warehouse, identifier, expected: nil, new: metadataLocation)
            return IcebergLoadedTable(metadataLocation: metadataLocation, metadata: metadata)
        }
    }

    /// Commits `updates` if `requirements` hold on the current metadata. With `assert-create`
    /// the table must not exist and the updates build it from empty (a staged create).
    /// - Throws: `40001` on a failed requirement or a lost race, `42P01` for a missing table.
    package func commitTable(warehouse: String, _ identifier: IcebergTableIdentifier, requirements: [IcebergTableRequirement],
                             updates: [IcebergTableUpdate]) throws(SluiceError) -> IcebergLoadedTable {
        let isCreate = requirements.contains(.assertCreate)
        return try tableLocks.withLock(lockKey(warehouse, identifier)) { () throws(SluiceError) -> IcebergLoadedTable in
            let currentLocation = try pointer(warehouse: warehouse, identifier)
            if currentLocation == nil && !isCreate {
                if try !namespaceExists(warehouse: warehouse, identifier.namespace) { throw IcebergCatalogError.noSuchNamespace(identifier.namespace) }
                throw IcebergCatalogError.noSuchTable(identifier.namespace, identifier.name)
            }
            if isCreate, try !namespaceExists(warehouse: warehouse, identifier.namespace) {
                throw IcebergCatalogError.noSuchNamespace(identifier.namespace)
            }
            let current = try currentLocation.map { location throws(SluiceError) in try readMetadata(location) }
            for requirement in requirements { try requirement.check(against: current) }

            let now = clock()
            let base = current ?? IcebergTableMetadata.empty(
                tableUUID: UUID().uuidString, location: defaultLocation(warehouse: warehouse, identifier), now: now)
            var updated = try base.applying(updates, now: now)
            guard !updated.schemas.isEmpty, updated.currentSchema != nil else {
                throw IcebergCatalogError.badRequest("table \(identifier) would have no current schema")
            }
            if updated.partitionSpecs.isEmpty {
                updated.partitionSpecs = [.unpartitioned]
                updated.defaultSpecID = 0
            }
            if updated.sortOrders.isEmpty {
                updated.sortOrders = [.unsorted]
                updated.defaultSortOrderID = 0
            }
            if let current, let currentLocation {
                guard updated != current else { return IcebergLoadedTable(metadataLocation: currentLocation, metadata: current) }
                updated = updated.recordingPreviousMetadataFile(currentLocation, previousLastUpdatedMs: current.lastUpdatedMs)
            }
            let version = currentLocation.flatMap(IcebergCatalogStore.metadataVersion).map { $0 + 1 } ?? 0
            let newLocation = try writeMetadata(updated, version: version)
            try swapPointer(warehouse: warehouse, identifier, expected: currentLocation, new: newLocation)
            return IcebergLoadedTable(metadataLocation: newLocation, metadata: updated)
        }
    }

    /// Removes the table from the catalog; with `purge`, also deletes every file under its location.
    package func dropTable(warehouse: String, _ identifier: IcebergTableIdentifier, purge: Bool) throws(SluiceError) {
        try tableLocks.withLock(lockKey(warehouse, identifier)) { () throws(SluiceError) in
            guard let location = try pointer(warehouse: warehouse, identifier) else {
                throw IcebergCatalogError.noSuchTable(identifier.namespace, identifier.name)
            }
            let metadata = purge ? try? readMetadata(location) : nil
            try swapPointer(warehouse: warehouse, identifier, expected: location, new: nil)
            metadataCache.withLock { _ = $0.removeValue(forKey: location) }
            if let metadata {
                // The table is gone from the catalog already; a failed delete leaves garbage, not a table.
                for entry in (try? fileIO.list(prefix: metadata.location + "/")) ?? [] { try? fileIO.delete(entry.location) }
            }
        }
    }

    /// Renames a table within the warehouse; its files stay where they are.
    package func renameTable(warehouse: String, from source: IcebergTableIdentifier, to destination: IcebergTableIdentifier) throws(SluiceError) {
        try tableLocks.withLock(lockKey(warehouse, source)) { () throws(SluiceError) in
            try mutateWarehouse(warehouse) { state throws(SluiceError) in
                let sourceKey = IcebergCatalogState.key(source.namespace)
                let destinationKey = IcebergCatalogState.key(destination.namespace)
                guard let location = state.namespaces[sourceKey]?.tables[source.name] else {
                    throw IcebergCatalogError.noSuchTable(source.namespace, source.name)
                }
                guard state.namespaces[destinationKey] != nil else { throw IcebergCatalogError.noSuchNamespace(destination.namespace) }
                guard state.namespaces[destinationKey]?.tables[destination.name] == nil else {
                    throw IcebergCatalogError.tableExists(destination.namespace, destination.name)
                }
                state.namespaces[sourceKey]?.tables[source.name] = nil
                state.namespaces[destinationKey]?.tables[destination.name] = location
            }
        }
    }

    // MARK: Metadata files

    func lockKey(_ warehouse: String, _ identifier: IcebergTableIdentifier) -> String {
        IcebergCatalogState.key([warehouse] + identifier.namespace + [identifier.name])
    }

    /// Reads and parses a metadata file, from the cache when this process wrote or read it.
    package func readMetadata(_ location: String) throws(SluiceError) -> IcebergTableMetadata {
        if let cached = metadataCache.withLock({ $0[location] }) { return cached }
        let metadata = try IcebergTableMetadata(bytes: try fileIO.read(location))
        cacheMetadata(metadata, at: location)
        return metadata
    }

    func cacheMetadata(_ metadata: IcebergTableMetadata, at location: String) {
        metadataCache.withLock { cache in
            // Bounded: metadata of old versions is rarely needed again.
            if cache.count >= 1024 { cache.removeAll(keepingCapacity: true) }
            cache[location] = metadata
        }
    }

    /// Writes `<location>/metadata/<version>-<uuid>.metadata.json` and returns its location.
    func writeMetadata(_ metadata: IcebergTableMetadata, version: Int) throws(SluiceError) -> String {
        let number = String(version)
        let padded = String(repeating: "0", count: max(0, 5 - number.count)) + number
        let location = "\(metadata.location)/metadata/\(padded)-\(UUID().uuidString.lowercased()).metadata.json"
        try fileIO.write(location, metadata.json.bytes)
        cacheMetadata(metadata, at: location)
        return location
    }

    /// The version number in a metadata file name (`00012-….metadata.json` → 12).
    static func metadataVersion(_ location: String) -> Int? {
        guard let name = location.split(separator: "/").last, let dash = name.firstIndex(of: "-") else { return nil }
        return Int(name[name.startIndex ..< dash])
    }

    /// Points the table at `new` (nil: drops it) if it still points at `expected`.
    func swapPointer(warehouse: String, _ identifier: IcebergTableIdentifier, expected: String?, new: String?) throws(SluiceError) {
        try mutateWarehouse(warehouse) { state throws(SluiceError) in
            let key = IcebergCatalogState.key(identifier.namespace)
            guard var namespace = state.namespaces[key] else { throw IcebergCatalogError.noSuchNamespace(identifier.namespace) }
            guard namespace.tables[identifier.name] == expected else {
                if expected == nil { throw IcebergCatalogError.tableExists(identifier.namespace, identifier.name) }
                throw IcebergCatalogError.commitConflict("table \(identifier) changed concurrently")
            }
            namespace.tables[identifier.name] = new
            state.namespaces[key] = namespace
        }
    }
}
