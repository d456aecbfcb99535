import SluiceFormats

/// The Avro schemas of Iceberg v2 manifests and manifest lists, with the field ids of the
/// spec's tables (Iceberg spec: "Manifests", "Manifest Lists") and the record names Java and
/// pyiceberg write (`manifest_entry`, `r2`, `r102`, `k117_v118`, `manifest_file`, `r508`).
package enum IcebergManifestSchemas {
    /// The partition tuple record `r102` for a partition type.
    package static func partitionRecord(_ partitionType: [IcebergManifestPartitionField]) -> AvroSchema {
        .record("r102", partitionType.map { AvroField($0.name, $0.type, fieldID: $0.fieldID) })
    }

    /// The `data_file` record `r2` (v2), with `partition` typed by `partitionType`.
    package static func dataFile(partitionType: [IcebergManifestPartitionField]) -> AvroSchema {
        func countMap(_ keyID: Int, _ valueID: Int) -> AvroSchema {
            .optional(.icebergMap(key: .int, keyID: keyID, value: .long, valueID: valueID))
        }
        func boundMap(_ keyID: Int, _ valueID: Int) -> AvroSchema {
            .optional(.icebergMap(key: .int, keyID: keyID, value: .bytes, valueID: valueID))
        }
        return .record("r2", [
            AvroField("content", .int, fieldID: 134),
            AvroField("file_path", .string, fieldID: 100),
            AvroField("file_format", .string, fieldID: 101),
            AvroField("partition", partitionRecord(partitionType), fieldID: 102),
            AvroField("record_count", .long, fieldID: 103),
            AvroField("file_size_in_bytes", .long, fieldID: 104),
            AvroField("column_sizes", countMap(117, 118), fieldID: 108),
            AvroField("value_counts", countMap(119, 120), fieldID: 109),
            AvroField("null_value_counts", countMap(121, 122), fieldID: 110),
            AvroField("nan_value_counts", countMap(138, 139), fieldID: 137),
            AvroField("lower_bounds", boundMap(126, 127), fieldID: 125),
            AvroField("upper_bounds", boundMap(129, 130), fieldID: 128),
            AvroField("key_metadata", .optional(.bytes), fieldID: 131),
            AvroField("split_offsets", .optional(.array(.long, elementID: 133)), fieldID: 132),
            AvroField("equality_ids", .optional(.array(.int, elementID: 136)), fieldID: 135),
            AvroField("sort_order_id", .optional(.int), fieldID: 140),
            AvroField("referenced_data_file", .optional(.string), fieldID: 143),
        ])
    }

    /// The `manifest_entry` record (v2): the schema of a manifest file's records.
    package static func manifestEntry(partitionType: [IcebergManifestPartitionField]) -> AvroSchema {
        .record("manifest_entry", [
            AvroField("status", .int, fieldID: 0),
            AvroField("snapshot_id", .optional(.long), fieldID: 1),
            AvroField("sequence_number", .optional(.long), fieldID: 3),
            AvroField("file_sequence_number", .optional(.long), fieldID: 4),
            AvroField("data_file", dataFile(partitionType: partitionType), fieldID: 2),
        ])
    }

    /// The `field_summary` record `r508`.
    package static let fieldSummary = AvroSchema.record("r508", [
        AvroField("contains_null", .boolean, fieldID: 509),
        AvroField("contains_nan", .optional(.boolean), fieldID: 518),
        AvroField("lower_bound", .optional(.bytes), fieldID: 510),
        AvroField("upper_bound", .optional(.bytes), fieldID: 511),
    ])

    /// The `manifest_file` record (v2): the schema of a manifest list's records.
    package static let manifestFile = AvroSchema.record("manifest_file", [
        AvroField("manifest_path", .string, fieldID: 500),
        AvroField("manifest_length", .long, fieldID: 501),
        AvroField("partition_spec_id", .int, fieldID: 502),
        AvroField("content", .int, fieldID: 517),
        AvroField("sequence_number", .long, fieldID: 515),
        AvroField("min_sequence_number", .long, fieldID: 516),
        AvroField("added_snapshot_id", .long, fieldID: 503),
        AvroField("added_files_count", .int, fieldID: 504),
        AvroField("existing_files_count", .int, fieldID: 505),
        AvroField("deleted_files_count", .int, fieldID: 506),
        AvroField("added_rows_count", .long, fieldID: 512),
        AvroField("existing_rows_count", .long, fieldID: 513),
        AvroField("deleted_rows_count", .long, fieldID: 514),
        AvroField("partitions", .optional(.array(fieldSummary, elementID: 508)), fieldID: 507),
        AvroField("key_metadata", .optional(.bytes), fieldID: 519),
    ])
}
