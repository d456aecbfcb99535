import SluiceCore
import SluiceFormats
@testable import SluiceLakehouse
import Testing

/// The manifest partition type. Expected Avro schemas are those pyiceberg 0.12 wrote in
/// `data_file.partition` of a manifest for the same spec (`write_manifest`, read back from
/// the file's `avro.schema`), which are also Java's (spec, Appendix A).
@Suite struct IcebergPartitionTypeTests {
    static let schema = IcebergSchema(fields: [
        IcebergNestedField(id: 1, name: "i", isRequired: false, type: .int),
        IcebergNestedField(id: 2, name: "l", isRequired: false, type: .long),
        IcebergNestedField(id: 3, name: "s", isRequired: false, type: .string),
        IcebergNestedField(id: 4, name: "d", isRequired: false, type: .date),
        IcebergNestedField(id: 5, name: "ts", isRequired: false, type: .timestamp),
        IcebergNestedField(id: 6, name: "tstz", isRequired: false, type: .timestamptz),
        IcebergNestedField(id: 7, name: "dec", isRequired: false, type: .decimal(precision: 9, scale: 2)),
        IcebergNestedField(id: 8, name: "b", isRequired: false, type: .boolean),
        IcebergNestedField(id: 9, name: "f", isRequired: false, type: .float),
        IcebergNestedField(id: 10, name: "db", isRequired: false, type: .double),
        IcebergNestedField(id: 11, name: "bin", isRequired: false, type: .binary),
        IcebergNestedField(id: 12, name: "u", isRequired: false, type: .uuid),
        IcebergNestedField(id: 13, name: "t", isRequired: false, type: .time),
        IcebergNestedField(id: 14, name: "fx", isRequired: false, type: .fixed(3)),
        IcebergNestedField(id: 15, name: "bigdec", isRequired: false, type: .decimal(precision: 38, scale: 10)),
    ])

    /// (source id, transform, name) in pyiceberg's spec order; field ids 1000, 1001, ...
    static let specFields: [(Int, IcebergTransform, String)] = [
        (1, .identity, "i"), (2, .identity, "l"), (3, .identity, "s"), (4, .identity, "d"), (5, .identity, "ts"),
        (6, .identity, "tstz"), (7, .identity, "dec"), (8, .identity, "b"), (9, .identity, "f"), (10, .identity, "db"),
        (11, .identity, "bin"), (12, .identity, "u"), (13, .identity, "t"), (14, .identity, "fx"), (15, .identity, "bigdec"),
        (5, .day, "ts_day"), (5, .hour, "ts_hour"), (6, .month, "tstz_month"), (4, .year, "d_year"), (3, .bucket(16), "s_bucket"),
        (3, .truncate(3), "s_trunc"), (7, .truncate(50), "dec_trunc"), (2, .bucket(100), "l_bucket"),
    ]

    static let spec = IcebergPartitionSpec(specID: 0, fields: specFields.enumerated().map { position, field in
        IcebergPartitionField(sourceID: field.0, fieldID: 1000 + position, name: field.2, transform: field.1)
    })

    /// The non-null branch of each field's type as pyiceberg 0.12 wrote it.
    static let pyicebergTypes: [String] = [
        #""int""#, #""long""#, #""string""#,
        #"{"type": "int", "logicalType": "date"}"#,
        #"{"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": false}"#,
        #"{"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": true}"#,
        #"{"type": "fixed", "size": 4, "logicalType": "decimal", "precision": 9, "scale": 2, "name": "decimal_9_2"}"#,
        #""boolean""#, #""float""#, #""double""#, #""bytes""#,
        #"{"type": "fixed", "size": 16, "logicalType": "uuid", "name": "uuid_fixed"}"#,
        #"{"type": "long", "logicalType": "time-micros"}"#,
        #"{"type": "fixed", "size": 3, "name": "fixed_3"}"#,
        #"{"type": "fixed", "size": 16, "logicalType": "decimal", "precision": 38, "scale": 10, "name": "decimal_38_10"}"#,
        #"{"type": "int", "logicalType": "date"}"#,
        #""int""#, #""int""#, #""int""#, #""int""#, #""string""#,
        // pyiceberg repeats the name decimal_9_2 here; a repeated name is made unique (see
        // manifestPartitionType), the rest of the schema is pyiceberg's.
        #"{"type": "fixed", "size": 4, "logicalType": "decimal", "precision": 9, "scale": 2, "name": "decimal_9_2_1021"}"#,
        #""int""#,
    ]

    @Test func matchesWhatPyicebergWrites() throws {
        let partitionType = try Self.spec.manifestPartitionType(for: Self.schema)
        #expect(partitionType.count == Self.pyicebergTypes.count)
        for (index, field) in partitionType.enumerated() {
            #expect(field.name == Self.specFields[index].2)
            #expect(field.fieldID == 1000 + index)
            let expected = AvroSchema.optional(try AvroSchema(json: Self.pyicebergTypes[index]))
            #expect(field.type == expected, "field \(field.name)")
        }
    }

    @Test func decimalByteCountsFollowJava() {
        // Java's TypeUtil.decimalRequiredBytes: the smallest n with 2^(8n-1) >= 10^p.
        let expected: [Int: Int] = [1: 1, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 7: 4, 9: 4, 10: 5, 18: 8, 19: 9, 28: 12, 38: 16]
        for (precision, bytes) in expected {
            #expect(IcebergPartitionSchemas.decimalByteCount(precision: precision) == bytes, "precision \(precision)")
        }
    }

    @Test func unknownSourcesAndTransformsAreRejected() {
        let missing = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 99, fieldID: 1000, name: "x", transform: .identity)])
        #expect(throws: SluiceError.self) { try missing.manifestPartitionType(for: Self.schema) }
        let wrong = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 9, fieldID: 1000, name: "f_bucket", transform: .bucket(4))])
        do {
            _ = try wrong.manifestPartitionType(for: Self.schema)
            Issue.record("bucket over float must fail")
        } catch {
            #expect(error.code == .featureNotSupported)
        }
    }

    /// A manifest written with the type reads back with the same type and partition values.
    @Test func roundTripsThroughAManifest() throws {
        let partitionType = try Self.spec.manifestPartitionType(for: Self.schema)
        let values = IcebergPartitionValueTests.sampleRow
        var partition: [AvroValue] = []
        for (index, field) in Self.spec.fields.enumerated() {
            let sourceType = try #require(Self.schema.field(id: field.sourceID)).type
            let resultType = try field.transform.resultType(for: sourceType)
            partition.append(try IcebergPartitionValue.encode(values[index], as: resultType))
        }
        var writer = try IcebergManifestWriter(
            partitionType: partitionType, tableSchemaJSON: "{}", schemaID: 0, partitionSpecJSON: "[]", partitionSpecID: 0)
        try writer.append(IcebergManifestEntry(status: .added, dataFile: IcebergDataFile(
            filePath: "/data/a.parquet", partition: partition, recordCount: 1, fileSizeInBytes: 10)))
        try writer.append(IcebergManifestEntry(status: .added, dataFile: IcebergDataFile(
            filePath: "/data/b.parquet", partition: Array(repeating: .null, count: partition.count), recordCount: 1, fileSizeInBytes: 10)))
        let (bytes, _) = writer.finish(path: "/m.avro", snapshotID: 1, sequenceNumber: 1)
        let manifest = try IcebergManifest.read(bytes, inheritedSnapshotID: 1, inheritedSequenceNumber: 1)
        #expect(manifest.partitionType == partitionType)
        #expect(manifest.entries.map(\.dataFile.partition) == [partition, Array(repeating: .null, count: partition.count)])
        // And the scan's reader turns them back into the values (all but the uuid, which it reads as bytes).
        let types = try Self.spec.partitionType(for: Self.schema).fields.map(\.type)
        for (index, avroValue) in manifest.entries[0].dataFile.partition.enumerated() where types[index] != .uuid {
            #expect(IcebergPartitionFilter.value(avroValue, as: types[index]) == IcebergPartitionValueTests.sampleReadBack[index], "field \(index)")
        }
    }
}
