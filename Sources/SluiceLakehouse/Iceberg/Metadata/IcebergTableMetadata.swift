import SluiceCore

/// The contents of a table metadata file (Iceberg spec: "Table Metadata", v2 fields).
///
/// A value: commits produce a new one with ``applying(_:now:)`` and the catalog writes it to a
/// new file. `statistics` and `partitionStatistics` are carried as raw JSON so they survive a
/// round trip without this reader understanding them.
package struct IcebergTableMetadata: Hashable, Sendable {
    package var formatVersion: Int
    /// Lowercase UUID text.
    package var tableUUID: String
    package var location: String
    package var lastSequenceNumber: Int64
    package var lastUpdatedMs: Int64
    package var lastColumnID: Int
    package var schemas: [IcebergSchema]
    package var currentSchemaID: Int
    package var partitionSpecs: [IcebergPartitionSpec]
    package var defaultSpecID: Int
    package var lastPartitionID: Int
    package var properties: [String: String]
    package var currentSnapshotID: Int64?
    package var snapshots: [IcebergSnapshot]
    package var snapshotLog: [IcebergSnapshotLogEntry]
    package var metadataLog: [IcebergMetadataLogEntry]
    package var sortOrders: [IcebergSortOrder]
    package var defaultSortOrderID: Int
    package var refs: [String: IcebergSnapshotRef]
    package var statistics: [JSONDocument]
    package var partitionStatistics: [JSONDocument]

    /// The newest format version this code writes.
    package static let supportedFormatVersion = 2

    /// New table metadata as a create-table produces it: schema 0, spec 0, the sort order,
    /// no snapshots. Field ids in `schema` are kept as given (callers assign fresh ids first).
    package init(tableUUID: String, location: String, schema: IcebergSchema, partitionSpec: IcebergPartitionSpec = .unpartitioned,
                 sortOrder: IcebergSortOrder = .unsorted, properties: [String: String] = [:], lastUpdatedMs: Int64) {
        var schema = schema
        schema.schemaID = 0
        var spec = partitionSpec
        spec.specID = 0
        self.formatVersion = 2
        self.tableUUID = tableUUID.lowercased()
        self.location = location
        self.lastSequenceNumber = 0
        self.lastUpdatedMs = lastUpdatedMs
        self.lastColumnID = schema.highestFieldID
        self.schemas = [schema]
        self.currentSchemaID = 0
        self.partitionSpecs = [spec]
        self.defaultSpecID = 0
        self.lastPartitionID = spec.lastAssignedFieldID
        self.properties = properties
        self.currentSnapshotID = nil
        self.snapshots = []
        self.snapshotLog = []
        self.metadataLog = []
        self.sortOrders = sortOrder.fields.isEmpty ? [.unsorted] : [sortOrder]
        self.defaultSortOrderID = sortOrder.fields.isEmpty ? 0 : sortOrder.orderID
        self.refs = [:]
        self.statistics = []
        self.partitionStatistics = []
    }

    /// The current schema (the one `current-schema-id` names).
    package var currentSchema: IcebergSchema? { schemas.first { $0.schemaID == currentSchemaID } }

    package var defaultPartitionSpec: IcebergPartitionSpec? { partitionSpecs.first { $0.specID == defaultSpecID } }

    /// The snapshot the `main` branch points at, if any.
    package var currentSnapshot: IcebergSnapshot? {
        guard let id = refs[IcebergSnapshotRef.mainBranch]?.snapshotID ?? currentSnapshotID else { return nil }
        return snapshot(id: id)
    }

    package func snapshot(id: Int64) -> IcebergSnapshot? { snapshots.first { $0.snapshotID == id } }

    /// The sequence number the next snapshot gets (v2), 0 for v1 tables.
    package var nextSequenceNumber: Int64 { formatVersion >= 2 ? lastSequenceNumber + 1 : 0 }

    /// The value of the summary entry `key` in the newest snapshot on `main` that has it,
    /// walking parents (a sink finds its last committed epoch even after a foreign commit).
    package func latestSummaryValue(_ key: String) -> String? {
        var snapshot = currentSnapshot
        var steps = 0
        while let current = snapshot, steps <= snapshots.count {
            if let value = current.summary[key] { return value }
            snapshot = current.parentSnapshotID.flatMap { self.snapshot(id: $0) }
            steps += 1
        }
        return nil
    }
}
