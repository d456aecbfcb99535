import SluiceCore
import SluiceLakehouse
import Testing

@Suite struct IcebergTableMetadataTests {
    @Test func parsesPyicebergMetadata() throws {
        let metadata = try IcebergTableMetadata(json: JSONDocument.parse(MetadataFixtures.pyicebergNewTable))
        #expect(metadata.formatVersion == 2)
        #expect(metadata.tableUUID == "3e4f068c-83b7-4d34-8d8a-b680d91d328f")
        #expect(metadata.lastColumnID == 19)
        #expect(metadata.lastPartitionID == 1002)
        #expect(metadata.currentSnapshot == nil)
        let schema = try #require(metadata.currentSchema)
        #expect(schema.identifierFieldIDs == [1])
        #expect(schema.fields.map(\.name) == ["id", "name", "ts", "tags", "m", "s"])
        #expect(schema.fields[0].type == .long && schema.fields[0].isRequired)
        #expect(schema.fields[3].type == .list(IcebergListType(elementID: 7, element: .string, isElementRequired: false)))
        #expect(schema.fields[4].type == .map(IcebergMapType(keyID: 8, key: .string, valueID: 9, value: .double, isValueRequired: true)))
        guard case .structure(let inner) = schema.fields[5].type else { Issue.record("s is not a struct"); return }
        #expect(inner.fields.map(\.type) == [.decimal(precision: 10, scale: 2), .fixed(16), .uuid, .time, .date, .timestamp, .binary, .float, .int, .boolean])
        #expect(metadata.partitionSpecs[0].fields.map(\.transform) == [.bucket(16), .day, .truncate(4)])
        #expect(metadata.sortOrders == [IcebergSortOrder(orderID: 1, fields: [IcebergSortField(sourceID: 2)])])
        #expect(metadata.properties == ["owner": "me"])
    }

    @Test func parsesSpecMetadataWithSnapshotsAndIgnoresUnknownKeys() throws {
        let metadata = try IcebergTableMetadata(json: JSONDocument.parse(MetadataFixtures.specV2WithSnapshots))
        #expect(metadata.lastSequenceNumber == 34)
        #expect(metadata.currentSchemaID == 1)
        #expect(metadata.currentSchema?.fields[1].doc == "comment")
        #expect(metadata.currentSchema?.identifierFieldIDs == [1, 2])
        #expect(metadata.sortOrders[0].fields[1] == IcebergSortField(sourceID: 3, transform: .bucket(4), isDescending: true, isNullsFirst: false))
        let current = try #require(metadata.currentSnapshot)
        #expect(current.snapshotID == 3055729675574597004)
        #expect(current.parentSnapshotID == 3051729675574597004)
        #expect(current.operation == "append")
        #expect(current.summary == ["sluice.epoch": "42"])
        #expect(current.schemaID == 1)
        // Without a main ref, current-snapshot-id implies it.
        #expect(metadata.refs["main"] == IcebergSnapshotRef(snapshotID: 3055729675574597004, kind: .branch))
        #expect(metadata.refs["test"] == IcebergSnapshotRef(snapshotID: 3051729675574597004, kind: .tag, maxRefAgeMs: 10000000))
        #expect(metadata.snapshotLog.count == 2)
        #expect(metadata.metadataLog == [IcebergMetadataLogEntry(metadataFile: "s3://bucket/.../v1.json", timestampMs: 1515100)])
        #expect(metadata.statistics.count == 1)
        #expect(metadata.latestSummaryValue("sluice.epoch") == "42")
    }

    @Test func roundTripsThroughJSON() throws {
        for fixture in [MetadataFixtures.pyicebergNewTable, MetadataFixtures.specV2WithSnapshots] {
            let metadata = try IcebergTableMetadata(json: JSONDocument.parse(fixture))
            let reparsed = try IcebergTableMetadata(bytes: metadata.json.bytes)
            #expect(reparsed == metadata)
        }
    }

    @Test func writesSpecKeyNames() throws {
        let metadata = try IcebergTableMetadata(json: JSONDocument.parse(MetadataFixtures.specV2WithSnapshots))
        let json = metadata.json
        for key in ["format-version", "table-uuid", "location", "last-sequence-number", "last-updated-ms", "last-column-id",
                    "schemas", "current-schema-id", "partition-specs", "default-spec-id", "last-partition-id", "properties",
                    "current-snapshot-id", "snapshots", "snapshot-log", "metadata-log", "sort-orders", "default-sort-order-id",
                    "refs", "statistics"] {
            #expect(json[key] != nil, "missing \(key)")
        }
        #expect(json["some-future-key"] == nil)
        #expect(json["current-snapshot-id"] == .int(3055729675574597004))
        guard case .array(let snapshots)? = json["snapshots"] else { Issue.record("no snapshots"); return }
        #expect(snapshots[1]["summary"]?["operation"] == .string("append"))
        #expect(snapshots[1]["summary"]?["sluice.epoch"] == .string("42"))
        #expect(snapshots[0]["parent-snapshot-id"] == nil)
    }

    @Test func readsVersion1Metadata() throws {
        let metadata = try IcebergTableMetadata(json: JSONDocument.parse(MetadataFixtures.specV1))
        #expect(metadata.formatVersion == 1)
        #expect(metadata.schemas.count == 1)
        #expect(metadata.partitionSpecs == [IcebergPartitionSpec(specID: 0, fields: [IcebergPartitionField(sourceID: 1, fieldID: 1000, name: "x", transform: .identity)])])
        #expect(metadata.lastPartitionID == 1000)
        #expect(metadata.currentSnapshotID == nil)
        #expect(metadata.sortOrders == [.unsorted])
    }

    @Test func rejectsUnsupportedAndMalformedMetadata() throws {
        #expect(throws: SluiceError.self) { try IcebergTableMetadata(json: JSONDocument.parse(#"{"format-version": 3}"#)) }
        #expect(throws: SluiceError.self) { try IcebergTableMetadata(json: JSONDocument.parse(#"{"format-version": 2, "location": 5}"#)) }
        #expect(throws: SluiceError.self) { try IcebergTableMetadata(json: JSONDocument.parse("[1,2]")) }
        let badSchema = MetadataFixtures.specV1.replacingOccurrences(of: "\"long\"", with: "\"longer\"")
        #expect(throws: SluiceError.self) { try IcebergTableMetadata(json: JSONDocument.parse(badSchema)) }
    }

    /// Random truncations and byte mutations of real metadata must throw or parse, never trap.
    @Test func survivesMutatedInput() {
        var generator = SplitMix64(seed: 7)
        let original = Array(MetadataFixtures.specV2WithSnapshots.utf8)
        for round in 0 ..< 3000 {
            var bytes = original
            if round % 3 == 0 {
                bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count))))
            } else {
                for _ in 0 ..< 1 + Int(generator.next() % 4) {
                    let index = Int(generator.next() % UInt64(bytes.count))
                    bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            _ = try? IcebergTableMetadata(bytes: bytes)
        }
        // Deep nesting is refused, not a stack overflow.
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: SluiceError.self) { try JSONDocument.parse(deep) }
    }

    @Test func jsonKeepsLargeIntegersAndEscapes() throws {
        let text = #"{"a": 9223372036854775807, "b": -9223372036854775808, "c": 1.5, "d": "x\"\u00e9\ud83d\ude00\n"}"#
        let json = try JSONDocument.parse(text)
        #expect(json["a"] == .int(.max))
        #expect(json["b"] == .int(.min))
        #expect(json["c"] == .double(1.5))
        #expect(json["d"] == .string("x\"é😀\n"))
        #expect(try JSONDocument.parse(json.bytes) == json)
        for bad in ["{", "{\"a\" 1}", "[1,]", "\"\\ud800\"", "01x", "nul", "{\"a\":1}x", "\"\u{01}\""] {
            #expect(throws: SluiceError.self) { try JSONDocument.parse(bad) }
        }
    }
}
