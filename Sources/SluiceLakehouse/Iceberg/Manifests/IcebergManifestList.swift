import SluiceCore
import SluiceFormats

/// A snapshot's manifest list (Iceberg spec: "Manifest Lists"): an Avro container file of
/// `manifest_file` records, with the metadata `snapshot-id`, `parent-snapshot-id`,
/// `sequence-number` and `format-version`.
package struct IcebergManifestList: Hashable, Sendable {
    package var snapshotID: Int64?
    package var parentSnapshotID: Int64?
    package var sequenceNumber: Int64?
    /// Metadata `format-version`; 1 when absent.
    package var formatVersion: Int
    package var manifests: [IcebergManifestFile]

    /// The bytes of a v2 manifest list of `manifests`.
    ///
    /// - Throws: `invalidParameterValue` when a manifest lacks one of the counts v2 requires.
    package static func write(
        _ manifests: [IcebergManifestFile], snapshotID: Int64, parentSnapshotID: Int64?, sequenceNumber: Int64,
        codec: AvroCodec = .deflate, syncMarker: [UInt8]? = nil
    ) throws(SluiceError) -> [UInt8] {
        let metadata: [String: String] = [
            "snapshot-id": String(snapshotID),
            // Java and pyiceberg write the text "null" for a snapshot without a parent.
            "parent-snapshot-id": parentSnapshotID.map { String($0) } ?? "null",
            "sequence-number": String(sequenceNumber),
            "format-version": "2",
        ]
        var writer = try AvroContainerWriter(
            schema: IcebergManifestSchemas.manifestFile, codec: codec, metadata: metadata.mapValues { Array($0.utf8) }, syncMarker: syncMarker)
        for manifest in manifests {
            guard let addedFiles = manifest.addedFilesCount, let existingFiles = manifest.existingFilesCount,
                  let deletedFiles = manifest.deletedFilesCount, let addedRows = manifest.addedRowsCount,
                  let existingRows = manifest.existingRowsCount, let deletedRows = manifest.deletedRowsCount else {
                throw SluiceError(.invalidParameterValue, "manifest \"\(manifest.manifestPath)\" lacks file or row counts, which v2 requires")
            }
            let partitions: AvroValue = manifest.partitions.map { summaries in
                .array(summaries.map { summary in
                    .record([
                        .boolean(summary.containsNull),
                        summary.containsNaN.map { .boolean($0) } ?? .null,
                        summary.lowerBound.map { .bytes($0) } ?? .null,
                        summary.upperBound.map { .bytes($0) } ?? .null,
                    ])
                })
            } ?? .null
            try writer.append(.record([
                .string(manifest.manifestPath), .long(manifest.manifestLength), .int(manifest.partitionSpecID),
                .int(manifest.content.rawValue), .long(manifest.sequenceNumber), .long(manifest.minSequenceNumber),
                .long(manifest.addedSnapshotID), .int(addedFiles), .int(existingFiles), .int(deletedFiles),
                .long(addedRows), .long(existingRows), .long(deletedRows), partitions,
                manifest.keyMetadata.map { .bytes($0) } ?? .null,
            ]))
        }
        return writer.finish()
    }

    /// Reads a manifest list of any format version; fields are found by Iceberg field id, and
    /// v1 lists get content `data` and sequence numbers 0 (spec, Appendix E).
    ///
    /// - Throws: `dataCorrupted` for a file that is not a valid Avro container or whose records
    ///   lack required fields.
    package static func read(_ bytes: [UInt8]) throws(SluiceError) -> IcebergManifestList {
        var reader = try AvroContainerReader(bytes: bytes)
        let schema = reader.schema
        var manifests: [IcebergManifestFile] = []
        while let value = try reader.next() {
            let record = try IcebergAvroRecord(value, schema: schema, name: "manifest_file")
            let contentCode = try record.optionalInt(517, "content") ?? 0
            guard let content = IcebergManifestContent(rawValue: contentCode) else {
                throw IcebergAvroRecord.invalid("manifest_file.content \(contentCode) is not 0 or 1")
            }
            var partitions: [IcebergFieldSummary]?
            if let summaries = record.value(507) {
                guard let elements = summaries.arrayValue, case .array(let itemSchema)? = record.fieldSchema(507)?.kind else {
                    throw IcebergAvroRecord.invalid("manifest_file.partitions is not a list")
                }
                var list: [IcebergFieldSummary] = []
                for element in elements {
                    let summary = try IcebergAvroRecord(element, schema: itemSchema, name: "field_summary")
                    guard let containsNull = try summary.optionalBoolean(509, "contains_null") else {
                        throw IcebergAvroRecord.invalid("field_summary.contains_null is missing")
                    }
                    list.append(IcebergFieldSummary(
                        containsNull: containsNull, containsNaN: try summary.optionalBoolean(518, "contains_nan"),
                        lowerBound: try summary.optionalBytes(510, "lower_bound"), upperBound: try summary.optionalBytes(511, "upper_bound")))
                }
                partitions = list
            }
            manifests.append(IcebergManifestFile(
                manifestPath: try record.string(500, "manifest_path"), manifestLength: try record.long(501, "manifest_length"),
                partitionSpecID: try record.int(502, "partition_spec_id"), content: content,
                sequenceNumber: try record.optionalLong(515, "sequence_number") ?? 0,
                minSequenceNumber: try record.optionalLong(516, "min_sequence_number") ?? 0,
                addedSnapshotID: try record.long(503, "added_snapshot_id"),
                addedFilesCount: try record.optionalInt(504, "added_files_count"),
                existingFilesCount: try record.optionalInt(505, "existing_files_count"),
                deletedFilesCount: try record.optionalInt(506, "deleted_files_count"),
                addedRowsCount: try record.optionalLong(512, "added_rows_count"),
                existingRowsCount: try record.optionalLong(513, "existing_rows_count"),
                deletedRowsCount: try record.optionalLong(514, "deleted_rows_count"),
                partitions: partitions, keyMetadata: try record.optionalBytes(519, "key_metadata")))
        }
        return IcebergManifestList(
            snapshotID: reader.metadataString("snapshot-id").flatMap { Int64($0) },
            parentSnapshotID: reader.metadataString("parent-snapshot-id").flatMap { Int64($0) },
            sequenceNumber: reader.metadataString("sequence-number").flatMap { Int64($0) },
            formatVersion: reader.metadataString("format-version").flatMap { Int($0) } ?? 1,
            manifests: manifests)
    }
}
