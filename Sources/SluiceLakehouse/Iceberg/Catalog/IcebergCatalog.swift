import Foundation
import SluiceCore

/// A table's namespace (multi-level) and name.
package struct IcebergTableIdentifier: Hashable, Sendable, CustomStringConvertible {
    package var namespace: [String]
    package var name: String

    package init(namespace: [String], name: String) {
        self.namespace = namespace
        self.name = name
    }

    package var description: String { (namespace + [name]).joined(separator: ".") }
}

/// A table as the catalog returns it: its metadata and the file that metadata was read from
/// (nil for a staged create, which has no file yet), plus per-table client config (REST
/// `LoadTableResult.config`: the S3 settings of vended credentials).
package struct IcebergLoadedTable: Hashable, Sendable {
    package var metadataLocation: String?
    package var metadata: IcebergTableMetadata
    package var config: [String: String]

    package init(metadataLocation: String?, metadata: IcebergTableMetadata, config: [String: String] = [:]) {
        self.metadataLocation = metadataLocation
        self.metadata = metadata
        self.config = config
    }
}

/// What a create-table call asks for (REST `CreateTableRequest`).
package struct IcebergTableCreation: Hashable, Sendable {
    package var name: String
    /// Nil: the catalog's default location for the table.
    package var location: String?
    package var schema: IcebergSchema
    package var partitionSpec: IcebergPartitionSpec
    package var writeOrder: IcebergSortOrder
    package var properties: [String: String]
    /// Prepare metadata for a create transaction without creating the table.
    package var isStaged: Bool

    package init(name: String, location: String? = nil, schema: IcebergSchema, partitionSpec: IcebergPartitionSpec = .unpartitioned,
                 writeOrder: IcebergSortOrder = .unsorted, properties: [String: String] = [:], isStaged: Bool = false) {
        self.name = name
        self.location = location
        self.schema = schema
        self.partitionSpec = partitionSpec
        self.writeOrder = writeOrder
        self.properties = properties
        self.isStaged = isStaged
    }

    /// The new table's first metadata at `defaultLocation` (unless the request names one):
    /// format version 2 (`format-version` is a reserved property that chooses the version,
    /// not a property), and a sort order with fields numbered from 1.
    package func initialMetadata(defaultLocation: String, now: Int64) throws(SluiceError) -> IcebergTableMetadata {
        var location = self.location ?? defaultLocation
        while location.hasSuffix("/") { location.removeLast() }
        var properties = self.properties
        if let requested = properties.removeValue(forKey: "format-version"), requested != "2" {
            throw SluiceError(.featureNotSupported, "only Iceberg format version 2 tables can be created")
        }
        var sortOrder = writeOrder
        if !sortOrder.fields.isEmpty && sortOrder.orderID == 0 { sortOrder.orderID = 1 }
        return IcebergTableMetadata(
            tableUUID: UUID().uuidString, location: location, schema: schema, partitionSpec: partitionSpec, sortOrder: sortOrder,
            properties: properties, lastUpdatedMs: now)
    }
}

/// The catalog operations the Iceberg sink needs, served alike by the in-process store
/// (``IcebergWarehouseCatalog``) and by a remote REST catalog (``IcebergRESTCatalogClient``).
///
/// Async because the REST client is; the in-process store does its (blocking) file work on a
/// thread of its own. Every error is a ``SluiceError``; a commit whose requirements failed or
/// that lost a race has code ``IcebergCatalogError/commitConflictCode`` (`40001`): reload the
/// table and retry. Any other commit error may leave the outcome unknown.
package protocol IcebergCatalog: Sendable {
    /// Creates the namespace (and its ancestors) unless it exists.
    func createNamespaceIfMissing(_ namespace: [String]) async throws(SluiceError)
    /// The table, or nil when it (or its namespace) does not exist.
    func loadTable(_ identifier: IcebergTableIdentifier) async throws(SluiceError) -> IcebergLoadedTable?
    /// Creates the table; `42P07` when it exists, `3F000` when the namespace does not.
    func createTable(namespace: [String], _ creation: IcebergTableCreation) async throws(SluiceError) -> IcebergLoadedTable
    /// Checks `requirements` against the current metadata, applies `updates` and makes the
    /// result current, atomically.
    func commitTable(_ identifier: IcebergTableIdentifier, requirements: [IcebergTableRequirement],
                     updates: [IcebergTableUpdate]) async throws(SluiceError) -> IcebergLoadedTable
}
