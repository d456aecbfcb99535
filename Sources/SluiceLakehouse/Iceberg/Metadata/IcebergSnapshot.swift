import SluiceCore

/// One committed state of a table (Iceberg spec: "Snapshots").
///
/// `summary` holds every summary entry except `operation`, which the spec requires and which
/// is kept apart so it cannot go missing. Engines record their own entries there: the sink
/// stores its last committed epoch in it, read back with ``IcebergTableMetadata/currentSnapshot``.
package struct IcebergSnapshot: Hashable, Sendable {
    package var snapshotID: Int64
    package var parentSnapshotID: Int64?
    /// Data sequence number; 0 in v1 tables.
    package var sequenceNumber: Int64
    package var timestampMs: Int64
    /// Location of the manifest list (Avro) of this snapshot.
    package var manifestList: String
    /// `append`, `replace`, `overwrite` or `delete`.
    package var operation: String
    package var summary: [String: String]
    package var schemaID: Int?

    package init(snapshotID: Int64, parentSnapshotID: Int64?, sequenceNumber: Int64, timestampMs: Int64,
                 manifestList: String, operation: String = "append", summary: [String: String] = [:], schemaID: Int?) {
        self.snapshotID = snapshotID
        self.parentSnapshotID = parentSnapshotID
        self.sequenceNumber = sequenceNumber
        self.timestampMs = timestampMs
        self.manifestList = manifestList
        self.operation = operation
        self.summary = summary
        self.schemaID = schemaID
    }

    package var json: JSONDocument {
        var summaryMembers = [JSONDocument.Member("operation", .string(operation))]
        summaryMembers += summary.keys.sorted().map { JSONDocument.Member($0, .string(summary[$0] ?? "")) }
        return .object([
            "snapshot-id": .int(snapshotID),
            "parent-snapshot-id": parentSnapshotID.map { .int($0) },
            "sequence-number": .int(sequenceNumber),
            "timestamp-ms": .int(timestampMs),
            "manifest-list": .string(manifestList),
            "summary": .object(summaryMembers),
            "schema-id": schemaID.map { .int(Int64($0)) },
        ])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "snapshot")
        var summary = try object.stringMap("summary")
        // v1 snapshots may lack a summary; "append" is what Java assumes for them.
        let operation = summary.removeValue(forKey: "operation") ?? "append"
        guard let manifestList = try object.optionalString("manifest-list") else {
            // v1's inline "manifests" list has no manifest list file; we cannot represent it.
            throw SluiceError(.featureNotSupported, "snapshots without a manifest list (v1 \"manifests\") are not supported")
        }
        self.init(
            snapshotID: try object.int64("snapshot-id"),
            parentSnapshotID: try object.optionalInt64("parent-snapshot-id"),
            sequenceNumber: try object.optionalInt64("sequence-number") ?? 0,
            timestampMs: try object.int64("timestamp-ms"),
            manifestList: manifestList,
            operation: operation,
            summary: summary,
            schemaID: try object.optionalInt("schema-id"))
    }
}

/// A named reference to a snapshot: a branch (`main` is the table's current state) or a tag.
package struct IcebergSnapshotRef: Hashable, Sendable {
    package enum Kind: String, Hashable, Sendable {
        case branch
        case tag
    }

    package var snapshotID: Int64
    package var kind: Kind
    package var minSnapshotsToKeep: Int?
    package var maxSnapshotAgeMs: Int64?
    package var maxRefAgeMs: Int64?

    package init(snapshotID: Int64, kind: Kind, minSnapshotsToKeep: Int? = nil, maxSnapshotAgeMs: Int64? = nil, maxRefAgeMs: Int64? = nil) {
        self.snapshotID = snapshotID
        self.kind = kind
        self.minSnapshotsToKeep = minSnapshotsToKeep
        self.maxSnapshotAgeMs = maxSnapshotAgeMs
        self.maxRefAgeMs = maxRefAgeMs
    }

    /// The name of the branch that is the table's current state.
    package static let mainBranch = "main"

    package var json: JSONDocument {
        .object([
            "snapshot-id": .int(snapshotID),
            "type": .string(kind.rawValue),
            "min-snapshots-to-keep": minSnapshotsToKeep.map { .int(Int64($0)) },
            "max-snapshot-age-ms": maxSnapshotAgeMs.map { .int($0) },
            "max-ref-age-ms": maxRefAgeMs.map { .int($0) },
        ])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        try self.init(fields: try IcebergJSONFields(json, context: "snapshot reference"))
    }

    /// Reads the ref's keys from `fields` (shared with the `set-snapshot-ref` update, which
    /// carries them inline).
    package init(fields object: IcebergJSONFields) throws(SluiceError) {
        let type = try object.string("type")
        guard let kind = Kind(rawValue: type) else { throw IcebergJSONFields.malformed("invalid snapshot reference type \"\(type)\"") }
        self.init(
            snapshotID: try object.int64("snapshot-id"),
            kind: kind,
            minSnapshotsToKeep: try object.optionalInt("min-snapshots-to-keep"),
            maxSnapshotAgeMs: try object.optionalInt64("max-snapshot-age-ms"),
            maxRefAgeMs: try object.optionalInt64("max-ref-age-ms"))
    }
}

/// An entry of `snapshot-log`: when the current snapshot changed, and to which.
package struct IcebergSnapshotLogEntry: Hashable, Sendable {
    package var snapshotID: Int64
    package var timestampMs: Int64

    package init(snapshotID: Int64, timestampMs: Int64) {
        self.snapshotID = snapshotID
        self.timestampMs = timestampMs
    }

    package var json: JSONDocument {
        .object(["timestamp-ms": .int(timestampMs), "snapshot-id": .int(snapshotID)])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "snapshot log entry")
        self.init(snapshotID: try object.int64("snapshot-id"), timestampMs: try object.int64("timestamp-ms"))
    }
}

/// An entry of `metadata-log`: a previous metadata file and when it was last updated.
package struct IcebergMetadataLogEntry: Hashable, Sendable {
    package var metadataFile: String
    package var timestampMs: Int64

    package init(metadataFile: String, timestampMs: Int64) {
        self.metadataFile = metadataFile
        self.timestampMs = timestampMs
    }

    package var json: JSONDocument {
        .object(["timestamp-ms": .int(timestampMs), "metadata-file": .string(metadataFile)])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "metadata log entry")
        self.init(metadataFile: try object.string("metadata-file"), timestampMs: try object.int64("timestamp-ms"))
    }
}

extension IcebergSnapshot {
    /// A fresh snapshot id: a random positive 64-bit integer, as Java derives one from a UUID.
    package static func newSnapshotID() -> Int64 {
        Int64.random(in: 1 ... Int64.max)
    }
}

extension IcebergTableMetadata {
    /// The requirements and updates of a commit that adds one snapshot on `main`, based on
    /// this metadata: it fails with a conflict (`40001`) if `main` moved meanwhile.
    ///
    /// The snapshot gets the next sequence number, the current snapshot as parent and the
    /// current schema id; `summary` holds the engine's entries (the sink's epoch) beside the
    /// `operation`.
    package func snapshotCommit(snapshotID: Int64 = IcebergSnapshot.newSnapshotID(), manifestList: String, operation: String = "append",
                                summary: [String: String], timestampMs: Int64) -> (requirements: [IcebergTableRequirement], updates: [IcebergTableUpdate]) {
        let parent = refs[IcebergSnapshotRef.mainBranch]?.snapshotID ?? currentSnapshotID
        let snapshot = IcebergSnapshot(snapshotID: snapshotID, parentSnapshotID: parent, sequenceNumber: nextSequenceNumber,
                                       timestampMs: timestampMs, manifestList: manifestList, operation: operation,
                                       summary: summary, schemaID: currentSchemaID)
        return ([.assertTableUUID(tableUUID), .assertRefSnapshotID(ref: IcebergSnapshotRef.mainBranch, snapshotID: parent)],
                [.addSnapshot(snapshot), .setSnapshotRef(name: IcebergSnapshotRef.mainBranch, ref: IcebergSnapshotRef(snapshotID: snapshotID, kind: .branch))])
    }
}
