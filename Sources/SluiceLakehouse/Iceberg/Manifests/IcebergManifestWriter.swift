import SluiceCore
import SluiceFormats

/// Writes one Iceberg v2 manifest: an Avro container file of `manifest_entry` records with the
/// metadata the spec requires (Iceberg spec: "Manifests", "Manifest Metadata"), and gathers
/// the counts and partition summaries its manifest list entry needs.
///
/// ```swift
/// var writer = try IcebergManifestWriter(partitionType: [], tableSchemaJSON: schemaJSON, schemaID: 0,
///                                        partitionSpecJSON: "[]", partitionSpecID: 0)
/// try writer.append(IcebergManifestEntry(status: .added, dataFile: file))
/// let (bytes, manifestFile) = writer.finish(path: manifestPath, snapshotID: snapshot, sequenceNumber: sequence)
/// // store `bytes` at `manifestPath`, then list `manifestFile` in the snapshot's manifest list
/// ```
package struct IcebergManifestWriter {
    package let partitionType: [IcebergManifestPartitionField]
    package let content: IcebergManifestContent
    package let partitionSpecID: Int32
    /// The Avro schema of the records: ``IcebergManifestSchemas/manifestEntry(partitionType:)``.
    package let schema: AvroSchema

    private var container: AvroContainerWriter
    private var summary: IcebergPartitionSummary
    private var addedFiles: Int32 = 0
    private var existingFiles: Int32 = 0
    private var deletedFiles: Int32 = 0
    private var addedRows: Int64 = 0
    private var existingRows: Int64 = 0
    private var deletedRows: Int64 = 0
    /// The smallest explicit data sequence number of a live entry.
    private var minimumExplicitSequenceNumber: Int64?
    /// Whether a live entry inherits its sequence number.
    private var hasInheritingLiveEntry = false

    /// Starts a manifest.
    ///
    /// - Parameters:
    ///   - partitionType: the fields of the partition spec's result type, in order.
    ///   - tableSchemaJSON: the table schema as Iceberg JSON (metadata `schema`).
    ///   - partitionSpecJSON: the JSON array of the partition spec's fields (metadata `partition-spec`).
    ///   - syncMarker: for reproducible files; random when nil.
    package init(
        partitionType: [IcebergManifestPartitionField], content: IcebergManifestContent = .data, tableSchemaJSON: String, schemaID: Int32,
        partitionSpecJSON: String, partitionSpecID: Int32, codec: AvroCodec = .deflate, syncMarker: [UInt8]? = nil
    ) throws(SluiceError) {
        self.partitionType = partitionType
        self.content = content
        self.partitionSpecID = partitionSpecID
        schema = IcebergManifestSchemas.manifestEntry(partitionType: partitionType)
        let metadata: [String: String] = [
            "schema": tableSchemaJSON,
            "schema-id": String(schemaID),
            "partition-spec": partitionSpecJSON,
            "partition-spec-id": String(partitionSpecID),
            "format-version": "2",
            "content": content.metadataValue,
        ]
        container = try AvroContainerWriter(
            schema: schema, codec: codec, metadata: metadata.mapValues { Array($0.utf8) }, syncMarker: syncMarker)
        summary = IcebergPartitionSummary(partitionType: partitionType)
    }

    /// Appends one entry.
    ///
    /// - Throws: `invalidParameterValue` for a file whose content does not belong in this
    ///   manifest (a delete file in a data manifest or the reverse), a partition tuple of the
    ///   wrong length, or an existing or deleted entry without its sequence numbers (the spec
    ///   requires them explicitly); `datatypeMismatch` for partition values that do not match
    ///   the partition type.
    package mutating func append(_ entry: IcebergManifestEntry) throws(SluiceError) {
        let file = entry.dataFile
        guard (file.content == .data) == (content == .data) else {
            throw SluiceError(.invalidParameterValue, "a \(file.content) file cannot be listed in a \(content.metadataValue) manifest")
        }
        guard file.partition.count == partitionType.count else {
            throw SluiceError(.invalidParameterValue, "data file has \(file.partition.count) partition values for \(partitionType.count) partition fields")
        }
        if entry.status != .added, entry.sequenceNumber == nil || entry.fileSequenceNumber == nil || entry.snapshotID == nil {
            throw SluiceError(
                .invalidParameterValue, "a \(entry.status) manifest entry needs its snapshot id and sequence numbers",
                detail: "Only added entries inherit them from the manifest list.")
        }
        let record = AvroValue.record([
            .int(entry.status.rawValue),
            entry.snapshotID.map { .long($0) } ?? .null,
            entry.sequenceNumber.map { .long($0) } ?? .null,
            entry.fileSequenceNumber.map { .long($0) } ?? .null,
            file.avroValue(),
        ])
        try container.append(record)
        summary.add(file.partition)
        switch entry.status {
        case .added:
            addedFiles += 1
            addedRows += file.recordCount
        case .existing:
            existingFiles += 1
            existingRows += file.recordCount
        case .deleted:
            deletedFiles += 1
            deletedRows += file.recordCount
        }
        if entry.status != .deleted {
            if let sequenceNumber = entry.sequenceNumber {
                minimumExplicitSequenceNumber = min(minimumExplicitSequenceNumber ?? sequenceNumber, sequenceNumber)
            } else {
                hasInheritingLiveEntry = true
            }
        }
    }

    /// The manifest's bytes and its manifest list entry.
    ///
    /// - Parameters:
    ///   - path: where the caller stores the bytes (`manifest_path`).
    ///   - snapshotID: the snapshot that adds this manifest (`added_snapshot_id`).
    ///   - sequenceNumber: that snapshot's sequence number, which added entries inherit; it is
    ///     also `min_sequence_number` when no live entry has an older one.
    package consuming func finish(path: String, snapshotID: Int64, sequenceNumber: Int64) -> (bytes: [UInt8], manifestFile: IcebergManifestFile) {
        let bytes = container.finish()
        var minimum = minimumExplicitSequenceNumber ?? sequenceNumber
        if hasInheritingLiveEntry { minimum = min(minimum, sequenceNumber) }
        let manifestFile = IcebergManifestFile(
            manifestPath: path, manifestLength: Int64(bytes.count), partitionSpecID: partitionSpecID, content: content,
            sequenceNumber: sequenceNumber, minSequenceNumber: minimum, addedSnapshotID: snapshotID,
            addedFilesCount: addedFiles, existingFilesCount: existingFiles, deletedFilesCount: deletedFiles,
            addedRowsCount: addedRows, existingRowsCount: existingRows, deletedRowsCount: deletedRows,
            partitions: summary.summaries)
        return (bytes, manifestFile)
    }
}
