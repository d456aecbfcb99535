import Foundation
import SluiceCore

// Iceberg spec: "Table Metadata Fields" and Appendix C, "JSON serialization".

extension IcebergTableMetadata {
    /// The metadata as JSON, keys named and ordered as Java's `TableMetadataParser` writes them.
    ///
    /// A table with no current snapshot gets `"current-snapshot-id": -1`, the sentinel every
    /// reader (Java, pyiceberg, DuckDB) maps to "none".
    package var json: JSONDocument {
        .object([
            "format-version": .int(Int64(formatVersion)),
            "table-uuid": .string(tableUUID),
            "location": .string(location),
            "last-sequence-number": formatVersion >= 2 ? .int(lastSequenceNumber) : nil,
            "last-updated-ms": .int(lastUpdatedMs),
            "last-column-id": .int(Int64(lastColumnID)),
            "current-schema-id": .int(Int64(currentSchemaID)),
            "schemas": .array(schemas.map(\.json)),
            "default-spec-id": .int(Int64(defaultSpecID)),
            "partition-specs": .array(partitionSpecs.map(\.json)),
            "last-partition-id": .int(Int64(lastPartitionID)),
            "default-sort-order-id": .int(Int64(defaultSortOrderID)),
            "sort-orders": .array(sortOrders.map(\.json)),
            "properties": .stringMap(properties),
            "current-snapshot-id": .int(currentSnapshotID ?? -1),
            "refs": .object(refs.keys.sorted().map { JSONDocument.Member($0, refs[$0]?.json ?? .null) }),
            "snapshots": .array(snapshots.map(\.json)),
            "statistics": .array(statistics),
            "partition-statistics": .array(partitionStatistics),
            "snapshot-log": .array(snapshotLog.map(\.json)),
            "metadata-log": .array(metadataLog.map(\.json)),
        ])
    }

    /// Parses a metadata file or a REST `metadata` object: v2 fully, v1 where it maps cheaply
    /// (single `schema`, `partition-spec` field list, no sequence numbers). Unknown keys are ignored.
    /// - Throws: `22023` naming the field for malformed metadata, `0A000` for format versions above 2.
    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "table metadata")
        let formatVersion = try object.int("format-version")
        guard (1 ... IcebergTableMetadata.supportedFormatVersion).contains(formatVersion) else {
            throw SluiceError(.featureNotSupported, "Iceberg table format version \(formatVersion) is not supported")
        }

        var schemas: [IcebergSchema] = []
        if let list = try object.optionalArray("schemas") {
            for element in list { schemas.append(try IcebergSchema(json: element)) }
        } else if let single = object.value("schema") {
            schemas.append(try IcebergSchema(json: single))
        }
        guard !schemas.isEmpty else { throw IcebergJSONFields.malformed("table metadata has no schema") }
        let currentSchemaID = try object.optionalInt("current-schema-id") ?? schemas[0].schemaID

        var specs: [IcebergPartitionSpec] = []
        if let list = try object.optionalArray("partition-specs") {
            for element in list { specs.append(try IcebergPartitionSpec(json: element)) }
        } else if let fields = try object.optionalArray("partition-spec") {
            specs.append(IcebergPartitionSpec(specID: 0, fields: try IcebergPartitionField.list(fields)))
        }
        if specs.isEmpty { specs.append(.unpartitioned) }

        var sortOrders: [IcebergSortOrder] = []
        for element in try object.optionalArray("sort-orders") ?? [] { sortOrders.append(try IcebergSortOrder(json: element)) }
        if sortOrders.isEmpty { sortOrders.append(.unsorted) }

        var snapshots: [IcebergSnapshot] = []
        for element in try object.optionalArray("snapshots") ?? [] { snapshots.append(try IcebergSnapshot(json: element)) }
        var snapshotLog: [IcebergSnapshotLogEntry] = []
        for element in try object.optionalArray("snapshot-log") ?? [] { snapshotLog.append(try IcebergSnapshotLogEntry(json: element)) }
        var metadataLog: [IcebergMetadataLogEntry] = []
        for element in try object.optionalArray("metadata-log") ?? [] { metadataLog.append(try IcebergMetadataLogEntry(json: element)) }

        var currentSnapshotID = try object.optionalInt64("current-snapshot-id")
        if currentSnapshotID == -1 { currentSnapshotID = nil }
        var refs: [String: IcebergSnapshotRef] = [:]
        if let refsObject = try object.optionalObject("refs") {
            for member in refsObject.members { refs[member.key] = try IcebergSnapshotRef(json: member.value) }
        }
        // Spec: without refs, `current-snapshot-id` implies the main branch.
        if refs[IcebergSnapshotRef.mainBranch] == nil, let currentSnapshotID {
            refs[IcebergSnapshotRef.mainBranch] = IcebergSnapshotRef(snapshotID: currentSnapshotID, kind: .branch)
        }

        let highestSchemaField = schemas.map(\.highestFieldID).max() ?? 0
        let highestPartitionField = specs.map(\.lastAssignedFieldID).max() ?? IcebergPartitionSpec.partitionFieldIDStart - 1
        self.formatVersion = formatVersion
        self.tableUUID = (try object.optionalString("table-uuid") ?? UUID().uuidString).lowercased()
        self.location = try object.string("location")
        self.lastSequenceNumber = formatVersion >= 2 ? try object.int64("last-sequence-number") : 0
        self.lastUpdatedMs = try object.int64("last-updated-ms")
        self.lastColumnID = try object.optionalInt("last-column-id") ?? highestSchemaField
        self.schemas = schemas
        self.currentSchemaID = currentSchemaID
        self.partitionSpecs = specs
        self.defaultSpecID = try object.optionalInt("default-spec-id") ?? specs[0].specID
        self.lastPartitionID = try object.optionalInt("last-partition-id") ?? highestPartitionField
        self.properties = try object.stringMap("properties")
        self.currentSnapshotID = currentSnapshotID
        self.snapshots = snapshots
        self.snapshotLog = snapshotLog
        self.metadataLog = metadataLog
        self.sortOrders = sortOrders
        self.defaultSortOrderID = try object.optionalInt("default-sort-order-id") ?? sortOrders[0].orderID
        self.refs = refs
        self.statistics = try object.optionalArray("statistics") ?? []
        self.partitionStatistics = try object.optionalArray("partition-statistics") ?? []

        guard self.schemas.contains(where: { $0.schemaID == self.currentSchemaID }) else {
            throw IcebergJSONFields.malformed("current-schema-id \(currentSchemaID) names no schema")
        }
    }

    /// Parses metadata file bytes.
    package init(bytes: [UInt8]) throws(SluiceError) {
        try self.init(json: try JSONDocument.parse(bytes))
    }
}
