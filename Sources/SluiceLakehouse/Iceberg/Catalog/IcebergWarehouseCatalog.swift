import Dispatch
import SluiceCore

/// One warehouse of an ``IcebergCatalogStore`` as an ``IcebergCatalog``: the in-process catalog
/// the sink calls directly, without HTTP.
///
/// The store's work blocks (local fsyncs, S3 requests through ``FileIO``), so each call runs on
/// a Dispatch worker rather than on the Swift concurrency pool or a NIO event loop.
package struct IcebergWarehouseCatalog: IcebergCatalog {
    package let store: IcebergCatalogStore
    package let warehouse: String

    package init(store: IcebergCatalogStore, warehouse: String) {
        self.store = store
        self.warehouse = warehouse
    }

    package func createNamespaceIfMissing(_ namespace: [String]) async throws(SluiceError) {
        let (store, warehouse) = (self.store, self.warehouse)
        try await offloadBlocking { () throws(SluiceError) in try store.createNamespaceIfMissing(warehouse: warehouse, namespace) }
    }

    package func loadTable(_ identifier: IcebergTableIdentifier) async throws(SluiceError) -> IcebergLoadedTable? {
        let (store, warehouse) = (self.store, self.warehouse)
        return try await offloadBlocking { () throws(SluiceError) -> IcebergLoadedTable? in
            do throws(SluiceError) {
                return try store.loadTable(warehouse: warehouse, identifier)
            } catch where error.code == .undefinedTable || error.code == .invalidSchemaName {
                return nil
            }
        }
    }

    package func createTable(namespace: [String], _ creation: IcebergTableCreation) async throws(SluiceError) -> IcebergLoadedTable {
        let (store, warehouse) = (self.store, self.warehouse)
        return try await offloadBlocking { () throws(SluiceError) in try store.createTable(warehouse: warehouse, namespace: namespace, creation) }
    }

    package func commitTable(_ identifier: IcebergTableIdentifier, requirements: [IcebergTableRequirement],
                             updates: [IcebergTableUpdate]) async throws(SluiceError) -> IcebergLoadedTable {
        let (store, warehouse) = (self.store, self.warehouse)
        return try await offloadBlocking { () throws(SluiceError) in
            try store.commitTable(warehouse: warehouse, identifier, requirements: requirements, updates: updates)
        }
    }
}

/// Runs blocking `work` on a Dispatch worker thread and resumes with its result.
package func offloadBlocking<Result: Sendable>(_ work: @escaping @Sendable () throws(SluiceError) -> Result) async throws(SluiceError) -> Result {
    let outcome: Swift.Result<Result, SluiceError> = await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            do throws(SluiceError) {
                continuation.resume(returning: .success(try work()))
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
    }
    return try outcome.get()
}
