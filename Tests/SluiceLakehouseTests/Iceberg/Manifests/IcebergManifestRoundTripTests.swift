import SluiceCore
import SluiceFormats
import Testing
@testable import SluiceLakehouse

@Suite struct IcebergManifestRoundTripTests {
    static let tableSchema = #"{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","required":false,"type":"long"},{"id":2,"name":"region","required":false,"type":"string"},{"id":3,"name":"day","required":false,"type":"date"}]}"#
    static let spec = #"[{"source-id":2,"field-id":1000,"transform":"identity","name":"region"},{"source-id":3,"field-id":1001,"transform":"identity","name":"day"}]"#
    static let partitionType = [
        IcebergManifestPartitionField(name: "region", fieldID: 1000, type: .optional(.string)),
        IcebergManifestPartitionField(name: "day", fieldID: 1001, type: .optional(AvroSchema(.int, logicalType: .date))),
    ]

    static let added = IcebergManifestEntry(status: .added, dataFile: IcebergDataFile(
        filePath: "s3://b/t/data/a.parquet", partition: [.string("eu"), .int(19844)], recordCount: 10, fileSizeInBytes: 4096,
        columnSizes: [1: 100, 2: 50], valueCounts: [1: 10, 2: 10], nullValueCounts: [1: 0, 2: 3], nanValueCounts: [:],
        lowerBounds: [1: [1, 0, 0, 0, 0, 0, 0, 0]], upperBounds: [1: [9, 0, 0, 0, 0, 0, 0, 0]], keyMetadata: [0xAB],
        splitOffsets: [4, 2048], sortOrderID: 0))
    static let existing = IcebergManifestEntry(status: .existing, snapshotID: 5, sequenceNumber: 1, fileSequenceNumber: 1, dataFile: IcebergDataFile(
        filePath: "s3://b/t/data/b.parquet", partition: [.null, .int(19840)], recordCount: 7, fileSizeInBytes: 999))
    static let deleted = IcebergManifestEntry(status: .deleted, snapshotID: 9, sequenceNumber: 2, fileSequenceNumber: 3, dataFile: IcebergDataFile(
        filePath: "s3://b/t/data/c.parquet", partition: [.string("ap"), .null], recordCount: 4, fileSizeInBytes: 512))

    private func writer(content: IcebergManifestContent = .data) throws -> IcebergManifestWriter {
        try IcebergManifestWriter(
            partitionType: Self.partitionType, content: content, tableSchemaJSON: Self.tableSchema, schemaID: 0,
            partitionSpecJSON: Self.spec, partitionSpecID: 3)
    }

    @Test func aManifestRoundTripsWithInheritedSnapshotAndSequenceNumbers() throws {
        var writer = try writer()
        for entry in [Self.added, Self.existing, Self.deleted] { try writer.append(entry) }
        let (bytes, manifestFile) = writer.finish(path: "s3://b/t/metadata/m0.avro", snapshotID: 42, sequenceNumber: 4)

        // The list entry's counts and summaries, worked out from the three entries above.
        #expect(manifestFile.manifestLength == Int64(bytes.count))
        #expect(manifestFile.partitionSpecID == 3 && manifestFile.content == .data)
        #expect(manifestFile.sequenceNumber == 4 && manifestFile.addedSnapshotID == 42)
        #expect(manifestFile.minSequenceNumber == 1)
        #expect([manifestFile.addedFilesCount, manifestFile.existingFilesCount, manifestFile.deletedFilesCount] == [1, 1, 1])
        #expect([manifestFile.addedRowsCount, manifestFile.existingRowsCount, manifestFile.deletedRowsCount] == [10, 7, 4])
        #expect(manifestFile.partitions == [
            IcebergFieldSummary(containsNull: true, containsNaN: false, lowerBound: Array("ap".utf8), upperBound: Array("eu".utf8)),
            // Days 19840 (0x4D80) and 19844 (0x4D84), little-endian.
            IcebergFieldSummary(containsNull: true, containsNaN: false, lowerBound: [0x80, 0x4D, 0, 0], upperBound: [0x84, 0x4D, 0, 0]),
        ])

        let manifest = try IcebergManifest.read(bytes, inheritingFrom: manifestFile)
        #expect(manifest.formatVersion == 2 && manifest.content == .data)
        #expect(manifest.schemaJSON == Self.tableSchema && manifest.schemaID == 0)
        #expect(manifest.partitionSpecJSON == Self.spec && manifest.partitionSpecID == 3)
        #expect(manifest.partitionType == Self.partitionType)
        var expectedAdded = Self.added
        expectedAdded.snapshotID = 42
        expectedAdded.sequenceNumber = 4
        expectedAdded.fileSequenceNumber = 4
        #expect(manifest.entries == [expectedAdded, Self.existing, Self.deleted])

        // Without inheritance the added entry reads as written.
        let raw = try IcebergManifest.read(bytes, inheritedSnapshotID: nil, inheritedSequenceNumber: nil)
        #expect(raw.entries.first == Self.added)

        var reader = try AvroContainerReader(bytes: bytes)
        #expect(reader.metadataString("format-version") == "2")
        #expect(reader.metadataString("content") == "data")
        #expect(reader.metadataString("partition-spec-id") == "3")
        #expect(try reader.readAll().count == 3)
    }

    @Test func aManifestListRoundTrips() throws {
        let first = IcebergManifestFile(
            manifestPath: "s3://b/t/metadata/m0.avro", manifestLength: 4321, partitionSpecID: 0, content: .data, sequenceNumber: 4,
            minSequenceNumber: 1, addedSnapshotID: 42, addedFilesCount: 1, existingFilesCount: 2, deletedFilesCount: 0,
            addedRowsCount: 10, existingRowsCount: 20, deletedRowsCount: 0,
            partitions: [IcebergFieldSummary(containsNull: false, containsNaN: nil, lowerBound: [1], upperBound: [2])], keyMetadata: [7])
        let second = IcebergManifestFile(
            manifestPath: "s3://b/t/metadata/m1.avro", manifestLength: 99, partitionSpecID: 1, content: .deletes, sequenceNumber: 3,
            minSequenceNumber: 3, addedSnapshotID: 41, addedFilesCount: 0, existingFilesCount: 1, deletedFilesCount: 1,
            addedRowsCount: 0, existingRowsCount: 5, deletedRowsCount: 6)
        let bytes = try IcebergManifestList.write([first, second], snapshotID: 42, parentSnapshotID: 41, sequenceNumber: 4)
        let list = try IcebergManifestList.read(bytes)
        #expect(list.snapshotID == 42 && list.parentSnapshotID == 41 && list.sequenceNumber == 4 && list.formatVersion == 2)
        #expect(list.manifests == [first, second])
        let orphan = try IcebergManifestList.read(try IcebergManifestList.write([], snapshotID: 1, parentSnapshotID: nil, sequenceNumber: 1))
        #expect(orphan.parentSnapshotID == nil && orphan.manifests.isEmpty)
        var missingCounts = second
        missingCounts.addedRowsCount = nil
        #expect(throws: SluiceError.self) { try IcebergManifestList.write([missingCounts], snapshotID: 1, parentSnapshotID: nil, sequenceNumber: 1) }
    }

    @Test func entriesThatBreakTheSpecRulesAreRefused() throws {
        var data = try writer()
        var deleteFile = Self.added
        deleteFile.dataFile.content = .positionDeletes
        #expect(throws: SluiceError.self) { try data.append(deleteFile) }
        var shortPartition = Self.added
        shortPartition.dataFile.partition = [.string("eu")]
        #expect(throws: SluiceError.self) { try data.append(shortPartition) }
        var wrongType = Self.added
        wrongType.dataFile.partition = [.long(1), .int(1)]
        #expect(throws: SluiceError.self) { try data.append(wrongType) }
        var existingWithoutSequence = Self.existing
        existingWithoutSequence.sequenceNumber = nil
        #expect(throws: SluiceError.self) { try data.append(existingWithoutSequence) }
        // A deletes manifest takes delete files, equality ids included.
        var deletes = try writer(content: .deletes)
        var equalityDeletes = Self.added
        equalityDeletes.dataFile.content = .equalityDeletes
        equalityDeletes.dataFile.equalityIDs = [1, 2]
        try deletes.append(equalityDeletes)
        let (bytes, file) = deletes.finish(path: "d.avro", snapshotID: 1, sequenceNumber: 1)
        let manifest = try IcebergManifest.read(bytes, inheritingFrom: file)
        #expect(manifest.content == .deletes)
        #expect(manifest.entries.first?.dataFile.equalityIDs == [1, 2])
        #expect(manifest.entries.first?.dataFile.content == .equalityDeletes)
    }

    @Test func equalityIDsWrittenAsLongsAndFieldsInAnotherOrderRead() throws {
        // pyiceberg declares equality_ids items as "long" and puts sequence numbers before
        // data_file; readers match fields by id, so such a manifest reads the same.
        var schema = IcebergManifestSchemas.manifestEntry(partitionType: [])
        guard case .record(let name, var fields) = schema.kind, case .record(let fileName, var fileFields) = fields[4].type.kind else {
            Issue.record("unexpected manifest_entry schema")
            return
        }
        fileFields[14].type = .optional(.array(.long, elementID: 136))
        fields[4].type = .record(fileName, fileFields)
        fields.swapAt(1, 4)
        schema.kind = .record(name: name, fields: fields)
        var writer = try AvroContainerWriter(schema: schema, metadata: ["format-version": Array("2".utf8), "content": Array("deletes".utf8)])
        var file = IcebergDataFile(content: .equalityDeletes, filePath: "e.parquet", recordCount: 1, fileSizeInBytes: 2, equalityIDs: [3, 4])
        file.partition = []
        guard case .record(var fileValues) = file.avroValue() else { return }
        fileValues[14] = .array([.long(3), .long(4)])
        try writer.append(.record([.int(1), .record(fileValues), .null, .null, .null]))
        let manifest = try IcebergManifest.read(writer.finish(), inheritedSnapshotID: 8, inheritedSequenceNumber: 2)
        #expect(manifest.entries == [IcebergManifestEntry(status: .added, snapshotID: 8, sequenceNumber: 2, fileSequenceNumber: 2, dataFile: file)])
    }

    @Test func mutatedManifestsThrowOrReadButNeverTrap() throws {
        var writer = try writer()
        for entry in [Self.added, Self.existing, Self.deleted] { try writer.append(entry) }
        let (manifest, file) = writer.finish(path: "m.avro", snapshotID: 1, sequenceNumber: 1)
        let list = try IcebergManifestList.write([file], snapshotID: 1, parentSnapshotID: nil, sequenceNumber: 1)
        var random = SplitMix64(seed: 0x1CEB)
        for round in 0 ..< 1200 {
            var bytes = round % 2 == 0 ? manifest : list
            for _ in 0 ... random.next(below: 3) {
                switch random.next(below: 4) {
                case 0: ByteMutations.truncate(&bytes, random: &random)
                case 1: ByteMutations.deleteRun(&bytes, upTo: 8, random: &random)
                default: ByteMutations.overwriteByte(&bytes, random: &random)
                }
            }
            do {
                if round % 2 == 0 {
                    _ = try IcebergManifest.read(bytes, inheritingFrom: file)
                } else {
                    _ = try IcebergManifestList.read(bytes)
                }
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }
}
