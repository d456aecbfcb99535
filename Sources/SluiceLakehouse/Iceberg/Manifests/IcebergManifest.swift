import SluiceCore
import SluiceFormats

/// A manifest as read: its metadata, its partition type and its entries, with snapshot ids
/// and sequence numbers inherited from the manifest list (Iceberg spec: "Manifests",
/// "Sequence Number Inheritance").
///
/// Fields are found by Iceberg field id, so manifests of Java, pyiceberg and this writer all
/// read; v1 manifests read too, their sequence numbers defaulting to 0 (spec, Appendix E).
package struct IcebergManifest: Hashable, Sendable {
    /// Metadata `schema`: the table schema JSON when the manifest was written.
    package var schemaJSON: String?
    package var schemaID: Int32?
    /// Metadata `partition-spec`: the JSON array of the partition spec's fields.
    package var partitionSpecJSON: String?
    package var partitionSpecID: Int32?
    /// Metadata `format-version`; 1 when absent.
    package var formatVersion: Int
    package var content: IcebergManifestContent
    /// The partition type, from the file's `partition` record schema.
    package var partitionType: [IcebergManifestPartitionField]
    package var entries: [IcebergManifestEntry]

    /// Reads the manifest that `manifestFile` lists, inheriting its `added_snapshot_id` and
    /// `sequence_number`.
    package static func read(_ bytes: [UInt8], inheritingFrom manifestFile: IcebergManifestFile) throws(SluiceError) -> IcebergManifest {
        try read(bytes, inheritedSnapshotID: manifestFile.addedSnapshotID, inheritedSequenceNumber: manifestFile.sequenceNumber)
    }

    /// Reads a manifest. An entry with a null snapshot id takes `inheritedSnapshotID`; an added
    /// entry with null sequence numbers takes `inheritedSequenceNumber`; in a v1 manifest every
    /// sequence number is 0. Nil inherited values leave the fields as written.
    ///
    /// - Throws: `dataCorrupted` for a file that is not a valid Avro container or whose records
    ///   lack required manifest fields.
    package static func read(_ bytes: [UInt8], inheritedSnapshotID: Int64?, inheritedSequenceNumber: Int64?) throws(SluiceError) -> IcebergManifest {
        var reader = try AvroContainerReader(bytes: bytes)
        let formatVersion = reader.metadataString("format-version").flatMap { Int($0) } ?? 1
        let contentText = reader.metadataString("content") ?? "data"
        guard let content: IcebergManifestContent = contentText == "data" ? .data : contentText == "deletes" ? .deletes : nil else {
            throw IcebergAvroRecord.invalid("metadata content \"\(contentText)\" is neither data nor deletes")
        }
        let entrySchema = reader.schema
        guard entrySchema.fields != nil, let dataFileIndex = entrySchema.fieldIndex(withID: 2) ?? entrySchema.fieldIndex(named: "data_file") else {
            throw IcebergAvroRecord.invalid("the records have no data_file field")
        }
        let dataFileSchema = entrySchema.fields?[dataFileIndex].type ?? .null
        var partitionType: [IcebergManifestPartitionField] = []
        if let partitionIndex = dataFileSchema.nonNullBranch.fieldIndex(withID: 102),
           let partitionFields = dataFileSchema.nonNullBranch.fields?[partitionIndex].type.nonNullBranch.fields {
            for field in partitionFields {
                guard let id = field.fieldID else { throw IcebergAvroRecord.invalid("partition field \"\(field.name)\" has no field-id") }
                partitionType.append(IcebergManifestPartitionField(name: field.name, fieldID: id, type: field.type))
            }
        }
        let hasSequenceNumbers = entrySchema.fieldIndex(withID: 3) != nil

        var entries: [IcebergManifestEntry] = []
        while let value = try reader.next() {
            let record = try IcebergAvroRecord(value, schema: entrySchema, name: "manifest_entry")
            let statusCode = try record.int(0, "status")
            guard let status = IcebergEntryStatus(rawValue: statusCode) else {
                throw IcebergAvroRecord.invalid("manifest_entry.status \(statusCode) is not 0, 1 or 2")
            }
            guard let dataFileValue = record.value(2) else { throw IcebergAvroRecord.invalid("manifest_entry.data_file is missing") }
            let dataFile = try IcebergDataFile(IcebergAvroRecord(dataFileValue, schema: dataFileSchema, name: "data_file"))
            var entry = IcebergManifestEntry(
                status: status, snapshotID: try record.optionalLong(1, "snapshot_id"), sequenceNumber: try record.optionalLong(3, "sequence_number"),
                fileSequenceNumber: try record.optionalLong(4, "file_sequence_number"), dataFile: dataFile)
            if entry.snapshotID == nil { entry.snapshotID = inheritedSnapshotID }
            if formatVersion == 1 && !hasSequenceNumbers {
                entry.sequenceNumber = 0
                entry.fileSequenceNumber = 0
            } else if status == .added {
                if entry.sequenceNumber == nil { entry.sequenceNumber = inheritedSequenceNumber }
                if entry.fileSequenceNumber == nil { entry.fileSequenceNumber = inheritedSequenceNumber }
            }
            entries.append(entry)
        }
        return IcebergManifest(
            schemaJSON: reader.metadataString("schema"), schemaID: reader.metadataString("schema-id").flatMap { Int32($0) },
            partitionSpecJSON: reader.metadataString("partition-spec"),
            partitionSpecID: reader.metadataString("partition-spec-id").flatMap { Int32($0) },
            formatVersion: formatVersion, content: content, partitionType: partitionType, entries: entries)
    }
}
