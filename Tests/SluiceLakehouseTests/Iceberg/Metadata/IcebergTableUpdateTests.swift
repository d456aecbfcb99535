import SluiceCore
import SluiceLakehouse
import Testing

@Suite struct IcebergTableUpdateTests {
    static let schema = IcebergSchema(fields: [
        IcebergNestedField(id: 1, name: "id", isRequired: true, type: .long),
        IcebergNestedField(id: 2, name: "v", isRequired: false, type: .string),
    ])

    static func table() -> IcebergTableMetadata {
        IcebergTableMetadata(tableUUID: "3E4F068C-83B7-4D34-8D8A-B680D91D328F", location: "file:///w/t", schema: schema, lastUpdatedMs: 1000)
    }

    static func snapshot(_ id: Int64, parent: Int64?, sequence: Int64, at time: Int64, epoch: String) -> IcebergSnapshot {
        IcebergSnapshot(snapshotID: id, parentSnapshotID: parent, sequenceNumber: sequence, timestampMs: time,
                        manifestList: "file:///w/t/metadata/snap-\(id).avro", summary: ["sluice.epoch": epoch], schemaID: 0)
    }

    @Test func newTableDefaults() {
        let metadata = Self.table()
        #expect(metadata.tableUUID == "3e4f068c-83b7-4d34-8d8a-b680d91d328f")
        #expect(metadata.lastColumnID == 2)
        #expect(metadata.lastPartitionID == 999)
        #expect(metadata.defaultSortOrderID == 0 && metadata.sortOrders == [.unsorted])
        #expect(metadata.nextSequenceNumber == 1)
    }

    @Test func appendingSnapshotsMovesMainAndLogs() throws {
        let first = Self.snapshot(11, parent: nil, sequence: 1, at: 5000, epoch: "7")
        var metadata = try Self.table().applying([
            .addSnapshot(first),
            .setSnapshotRef(name: "main", ref: IcebergSnapshotRef(snapshotID: 11, kind: .branch)),
        ], now: 9999)
        #expect(metadata.currentSnapshotID == 11)
        #expect(metadata.lastSequenceNumber == 1)
        // Java: moving a branch to a snapshot added in the same commit stamps the snapshot's time.
        #expect(metadata.lastUpdatedMs == 5000)
        #expect(metadata.snapshotLog == [IcebergSnapshotLogEntry(snapshotID: 11, timestampMs: 5000)])
        #expect(metadata.latestSummaryValue("sluice.epoch") == "7")

        metadata = try metadata.applying([
            .addSnapshot(Self.snapshot(12, parent: 11, sequence: 2, at: 6000, epoch: "8")),
            .setSnapshotRef(name: "main", ref: IcebergSnapshotRef(snapshotID: 12, kind: .branch)),
        ], now: 9999)
        #expect(metadata.currentSnapshot?.summary["sluice.epoch"] == "8")
        #expect(metadata.snapshotLog.map(\.snapshotID) == [11, 12])

        // A stale snapshot (sequence number not newer) is a conflict.
        do {
            _ = try metadata.applying([.addSnapshot(Self.snapshot(13, parent: 11, sequence: 2, at: 7000, epoch: "9"))], now: 9999)
            Issue.record("stale snapshot accepted")
        } catch {
            #expect(error.code == IcebergCatalogError.commitConflictCode)
        }

        metadata = try metadata.applying([.removeSnapshotRef("main")], now: 12345)
        #expect(metadata.currentSnapshot == nil && metadata.lastUpdatedMs == 12345)
    }

    @Test func lastAddedIdsAndReuse() throws {
        let wider = IcebergSchema(schemaID: 7, fields: Self.schema.fields + [IcebergNestedField(id: 3, name: "w", isRequired: false, type: .int)])
        var metadata = try Self.table().applying([.addSchema(wider, lastColumnID: 3), .setCurrentSchema(-1)], now: 2000)
        #expect(metadata.currentSchemaID == 1)  // reassigned: highest existing id + 1
        #expect(metadata.lastColumnID == 3)
        // The same schema again is reused, not duplicated.
        metadata = try metadata.applying([.addSchema(wider, lastColumnID: nil), .setCurrentSchema(-1)], now: 3000)
        #expect(metadata.schemas.count == 2)

        let spec = IcebergPartitionSpec(specID: 0, fields: [IcebergPartitionField(sourceID: 1, fieldID: 1000, name: "id_bucket", transform: .bucket(8))])
        metadata = try metadata.applying([.addSpec(spec), .setDefaultSpec(-1)], now: 4000)
        #expect(metadata.defaultSpecID == 1 && metadata.lastPartitionID == 1000)

        let order = IcebergSortOrder(orderID: 0, fields: [IcebergSortField(sourceID: 2)])
        metadata = try metadata.applying([.addSortOrder(order), .setDefaultSortOrder(-1)], now: 5000)
        #expect(metadata.defaultSortOrderID == 1)

        #expect(throws: SluiceError.self) { try Self.table().applying([.setCurrentSchema(-1)], now: 1) }
        #expect(throws: SluiceError.self) { try Self.table().applying([.setCurrentSchema(5)], now: 1) }
        #expect(throws: SluiceError.self) { try Self.table().applying([.upgradeFormatVersion(3)], now: 1) }
        #expect(throws: SluiceError.self) { try Self.table().applying([.setSnapshotRef(name: "main", ref: IcebergSnapshotRef(snapshotID: 1, kind: .branch))], now: 1) }
    }

    @Test func propertiesLocationAndNoOps() throws {
        let base = Self.table()
        #expect(try base.applying([.setProperties([:]), .removeProperties(["absent"])], now: 777) == base)
        let changed = try base.applying([.setProperties(["a": "1", "b": "2"]), .removeProperties(["a"]), .setLocation("s3://b/t")], now: 777)
        #expect(changed.properties == ["b": "2"])
        #expect(changed.location == "s3://b/t")
        #expect(changed.lastUpdatedMs == 777)
    }

    @Test func requirementsProduceConflicts() throws {
        let metadata = try Self.table().applying([
            .addSnapshot(Self.snapshot(11, parent: nil, sequence: 1, at: 5000, epoch: "1")),
            .setSnapshotRef(name: "main", ref: IcebergSnapshotRef(snapshotID: 11, kind: .branch)),
        ], now: 1)
        let holding: [IcebergTableRequirement] = [
            .assertTableUUID("3E4F068C-83B7-4D34-8D8A-B680D91D328F"), .assertRefSnapshotID(ref: "main", snapshotID: 11),
            .assertRefSnapshotID(ref: "dev", snapshotID: nil), .assertLastAssignedFieldID(2), .assertCurrentSchemaID(0),
            .assertLastAssignedPartitionID(999), .assertDefaultSpecID(0), .assertDefaultSortOrderID(0),
        ]
        for requirement in holding { try requirement.check(against: metadata) }
        try IcebergTableRequirement.assertCreate.check(against: nil)
        let failing: [IcebergTableRequirement] = [
            .assertCreate, .assertTableUUID("00000000-0000-0000-0000-000000000000"), .assertRefSnapshotID(ref: "main", snapshotID: nil),
            .assertRefSnapshotID(ref: "main", snapshotID: 10), .assertLastAssignedFieldID(3), .assertCurrentSchemaID(1),
            .assertLastAssignedPartitionID(1000), .assertDefaultSpecID(1), .assertDefaultSortOrderID(1),
        ]
        for requirement in failing {
            do {
                try requirement.check(against: metadata)
                Issue.record("\(requirement) held")
            } catch {
                #expect(error.code == IcebergCatalogError.commitConflictCode)
                #expect(IcebergCatalogError.httpStatus(for: error) == (409, "CommitFailedException"))
            }
        }
        #expect(throws: SluiceError.self) { try IcebergTableRequirement.assertCurrentSchemaID(0).check(against: nil) }
    }

    @Test func updatesAndRequirementsRoundTripAsPyicebergWritesThem() throws {
        // As pyiceberg 0.12 serializes them (`model_dump_json(by_alias=True)`).
        let updates = try JSONDocument.parse(#"""
        [{"action":"assign-uuid","uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1"},
         {"action":"upgrade-format-version","format-version":2},
         {"action":"add-schema","schema":{"type":"struct","fields":[{"id":1,"name":"x","type":"long","required":true}],"schema-id":0,"identifier-field-ids":[]}},
         {"action":"set-current-schema","schema-id":-1},
         {"action":"add-spec","spec":{"spec-id":0,"fields":[]}},
         {"action":"set-default-spec","spec-id":-1},
         {"action":"add-sort-order","sort-order":{"order-id":0,"fields":[]}},
         {"action":"set-default-sort-order","sort-order-id":-1},
         {"action":"set-location","location":"file:///w/x"},
         {"action":"set-properties","updates":{"k":"v"}},
         {"action":"remove-properties","removals":["k"]},
         {"action":"add-snapshot","snapshot":{"snapshot-id":5,"parent-snapshot-id":null,"sequence-number":1,"timestamp-ms":77,"manifest-list":"file:///w/x/m.avro","summary":{"operation":"append","added-records":"2"},"schema-id":0}},
         {"action":"set-snapshot-ref","ref-name":"main","type":"branch","snapshot-id":5,"max-ref-age-ms":null,"max-snapshot-age-ms":null,"min-snapshots-to-keep":null},
         {"action":"remove-snapshot-ref","ref-name":"tag1"},
         {"action":"remove-snapshots","snapshot-ids":[1,2]}]
        """#)
        guard case .array(let elements) = updates else { Issue.record("not an array"); return }
        let parsed = try elements.map { try IcebergTableUpdate(json: $0) }
        #expect(parsed[3] == .setCurrentSchema(-1))
        #expect(parsed[12] == .setSnapshotRef(name: "main", ref: IcebergSnapshotRef(snapshotID: 5, kind: .branch)))
        for update in parsed { #expect(try IcebergTableUpdate(json: update.json) == update) }

        let created = try IcebergTableMetadata.empty(tableUUID: "x", location: "file:///w/default", now: 1).applying(Array(parsed.prefix(13)), now: 100)
        #expect(created.tableUUID == "9c12d441-03fe-4693-9a96-a0705ddf69c1")
        #expect(created.currentSchemaID == 0 && created.defaultSpecID == 0 && created.defaultSortOrderID == 0)
        #expect(created.location == "file:///w/x")
        #expect(created.currentSnapshot?.summary["added-records"] == "2")

        let requirements: [IcebergTableRequirement] = [.assertCreate, .assertRefSnapshotID(ref: "main", snapshotID: nil), .assertDefaultSortOrderID(3)]
        for requirement in requirements { #expect(try IcebergTableRequirement(json: requirement.json) == requirement) }
        #expect(IcebergTableRequirement.assertRefSnapshotID(ref: "main", snapshotID: nil).json["snapshot-id"] == .null)
        #expect(throws: SluiceError.self) { try IcebergTableUpdate(json: JSONDocument.parse(#"{"action":"explode"}"#)) }
    }
}
