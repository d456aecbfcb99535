import Foundation
import SluiceCore
import SluiceLakehouse
import SluiceLakehouseClients
import Synchronization

/// The catalog an Iceberg sink commits to, called from the sink's own threads (its fragment's
/// and its committer's), which may block: the built-in catalog's store directly, or any REST
/// catalog through the REST client, whose async calls are waited for on a thread of the
/// caller's, never on the Swift concurrency pool's few threads.
enum IcebergCatalogAccess: Sendable {
    case builtIn(IcebergCatalogStore, warehouse: String)
    case rest(IcebergRESTCatalogClient)
    case storage(IcebergStorageCatalog)

    /// The catalog `options` name: a REST client for `catalog.uri`, else the built-in one.
    static func resolve(_ options: IcebergTableOptions, lakehouse: Lakehouse) throws(SluiceError) -> IcebergCatalogAccess {
        if options.usesStorageCatalog {
            let fileIO = try IcebergSink.fileIO(location: options.warehouse, vended: [:], options: options, lakehouse: lakehouse)
            return .storage(IcebergStorageCatalog(root: options.warehouse, fileIO: fileIO))
        }
        if let uri = options.catalogURI {
            guard uri.hasPrefix("http://") || uri.hasPrefix("https://") else {
                throw SluiceError(
                    .invalidParameterValue, "catalog.uri must be an http:// or https:// address, not '\(URLCredentials.masking(in: uri, inProse: false))'")
            }
            return .rest(IcebergRESTCatalogClient(configuration: .init(
                uri: uri, credential: options.credential, scope: options.scope ?? "catalog", warehouse: options.warehouse,
                oauth2ServerURI: options.oauth2ServerURI)))
        }
        guard let store = lakehouse.store else {
            throw SluiceError(
                .invalidParameterValue, "the iceberg connector names no catalog.uri, and the built-in catalog is off",
                hint: "Give catalog.uri, or start the server without --no-catalog.")
        }
        return .builtIn(store, warehouse: options.warehouse)
    }

    /// The same catalog behind the async protocol (for table maintenance).
    var shared: any IcebergCatalog {
        switch self {
        case .builtIn(let store, let warehouse): store.warehouse(warehouse)
        case .rest(let client): client
        case .storage(let catalog): catalog
        }
    }

    func createNamespaceIfMissing(_ namespace: [String]) throws(SluiceError) {
        switch self {
        case .builtIn(let store, let warehouse): try store.createNamespaceIfMissing(warehouse: warehouse, namespace)
        case .rest(let client): try Self.wait { () async throws(SluiceError) in try await client.createNamespaceIfMissing(namespace) }
        case .storage: break
        }
    }

    /// The table, or nil when it does not exist.
    func loadTable(_ identifier: IcebergTableIdentifier) throws(SluiceError) -> IcebergLoadedTable? {
        switch self {
        case .builtIn(let store, let warehouse):
            guard try store.tableExists(warehouse: warehouse, identifier) else { return nil }
            return try store.loadTable(warehouse: warehouse, identifier)
        case .rest(let client):
            return try Self.wait { () async throws(SluiceError) in try await client.loadTable(identifier) }
        case .storage(let catalog):
            return try catalog.loadTableNow(identifier)
        }
    }

    func createTable(namespace: [String], _ creation: IcebergTableCreation) throws(SluiceError) -> IcebergLoadedTable {
        switch self {
        case .builtIn(let store, let warehouse): return try store.createTable(warehouse: warehouse, namespace: namespace, creation)
        case .rest(let client): return try Self.wait { () async throws(SluiceError) in try await client.createTable(namespace: namespace, creation) }
        case .storage(let catalog): return try catalog.createTableNow(namespace: namespace, creation)
        }
    }

    func commitTable(
        _ identifier: IcebergTableIdentifier, requirements: [IcebergTableRequirement], updates: [IcebergTableUpdate]
    ) throws(SluiceError) -> IcebergLoadedTable {
        switch self {
        case .builtIn(let store, let warehouse):
            return try store.commitTable(warehouse: warehouse, identifier, requirements: requirements, updates: updates)
        case .rest(let client):
            return try Self.wait { () async throws(SluiceError) in
                try await client.commitTable(identifier, requirements: requirements, updates: updates)
            }
        case .storage(let catalog):
            return try catalog.commitTableNow(identifier, requirements: requirements, updates: updates)
        }
    }

    /// Runs `operation` and blocks the calling thread until it finishes.
    static func wait<Result: Sendable>(
        _ operation: @escaping @Sendable () async throws(SluiceError) -> Result
    ) throws(SluiceError) -> Result {
        let outcome = Mutex<Swift.Result<Result, SluiceError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do throws(SluiceError) {
                let value = try await operation()
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}
