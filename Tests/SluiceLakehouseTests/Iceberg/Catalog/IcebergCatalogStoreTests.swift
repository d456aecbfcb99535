import Foundation
import SluiceCore
import SluiceLakehouse
import Testing

@Suite struct IcebergCatalogStoreTests {
    static let schema = IcebergSchema(fields: [IcebergNestedField(id: 1, name: "id", isRequired: false, type: .long)])

    static func openStore(_ directory: String, autoCreate: Bool = true) throws -> IcebergCatalogStore {
        try IcebergCatalogStore(rootDirectory: "\(directory)/catalog", warehouseRoot: "file://\(directory)/warehouse/",
                                fileIO: LocalFileIO(), autoCreateWarehouses: autoCreate)
    }

    static func appendSnapshot(_ id: Int64, to table: IcebergLoadedTable) -> (requirements: [IcebergTableRequirement], updates: [IcebergTableUpdate]) {
        let metadata = table.metadata
        let snapshot = IcebergSnapshot(snapshotID: id, parentSnapshotID: metadata.currentSnapshotID, sequenceNumber: metadata.nextSequenceNumber,
                                       timestampMs: 1000 + id, manifestList: "\(metadata.location)/metadata/snap-\(id).avro",
                                       summary: ["sluice.epoch": "\(id)"], schemaID: metadata.currentSchemaID)
        return ([.assertRefSnapshotID(ref: "main", snapshotID: metadata.currentSnapshotID)],
                [.addSnapshot(snapshot), .setSnapshotRef(name: "main", ref: IcebergSnapshotRef(snapshotID: id, kind: .branch))])
    }

    @Test func namespacesAndTablesPersistAcrossRestarts() throws {
        let directory = temporaryDirectory("store")
        let identifier = IcebergTableIdentifier(namespace: ["a", "b"], name: "t")
        do {
            let store = try Self.openStore(directory)
            try store.createNamespace(warehouse: "wh", ["a"], properties: ["k": "v"])
            #expect(throws: SluiceError.self) { try store.createNamespace(warehouse: "wh", ["x", "y"]) }  // parent missing
            try store.createNamespaceIfMissing(warehouse: "wh", ["a", "b"])
            try store.createNamespaceIfMissing(warehouse: "wh", ["a", "b"])
            let table = try store.createTable(warehouse: "wh", namespace: ["a", "b"], IcebergTableCreation(name: "t", schema: Self.schema))
            #expect(table.metadata.location == "file://\(directory)/warehouse/wh/a/b/t")
            #expect(table.metadataLocation?.hasPrefix("file://\(directory)/warehouse/wh/a/b/t/metadata/00000-") == true)
            #expect(table.metadataLocation?.hasSuffix(".metadata.json") == true)
            let change = Self.appendSnapshot(1, to: table)
            _ = try store.commitTable(warehouse: "wh", identifier, requirements: change.requirements, updates: change.updates)
        }
        let reopened = try Self.openStore(directory)
        #expect(try reopened.listNamespaces(warehouse: "wh") == [["a"]])
        #expect(try reopened.listNamespaces(warehouse: "wh", parent: ["a"]) == [["a", "b"]])
        #expect(try reopened.namespaceProperties(warehouse: "wh", ["a"]) == ["k": "v"])
        #expect(try reopened.listTables(warehouse: "wh", namespace: ["a", "b"]) == ["t"])
        let loaded = try reopened.loadTable(warehouse: "wh", identifier)
        #expect(loaded.metadataLocation?.contains("/metadata/00001-") == true)
        #expect(loaded.metadata.latestSummaryValue("sluice.epoch") == "1")
        #expect(loaded.metadata.metadataLog.count == 1)
        #expect(loaded.metadata.metadataLog.first?.metadataFile.contains("/metadata/00000-") == true)
        // The metadata file is a real file that parses on its own.
        let path = String(try #require(loaded.metadataLocation).dropFirst("file://".count))
        let onDisk = try IcebergTableMetadata(bytes: Array(try #require(FileManager.default.contents(atPath: path))))
        #expect(onDisk == loaded.metadata)
    }

    @Test func conflictingCommitsAreRefused() throws {
        let store = try Self.openStore(temporaryDirectory("conflict"))
        let identifier = IcebergTableIdentifier(namespace: ["n"], name: "t")
        try store.createNamespace(warehouse: "wh", ["n"])
        let base = try store.createTable(warehouse: "wh", namespace: ["n"], IcebergTableCreation(name: "t", schema: Self.schema))
        let first = Self.appendSnapshot(1, to: base)
        let second = Self.appendSnapshot(2, to: base)  // built on the same base: stale after the first
        _ = try store.commitTable(warehouse: "wh", identifier, requirements: first.requirements, updates: first.updates)
        do {
            _ = try store.commitTable(warehouse: "wh", identifier, requirements: second.requirements, updates: second.updates)
            Issue.record("stale commit accepted")
        } catch {
            #expect(error.code == IcebergCatalogError.commitConflictCode)
        }
        #expect(try store.loadTable(warehouse: "wh", identifier).metadata.currentSnapshotID == 1)
    }

    @Test func concurrentCommitsSerializeAndExactlyOneWins() async throws {
        let store = try Self.openStore(temporaryDirectory("race"))
        let identifier = IcebergTableIdentifier(namespace: ["n"], name: "t")
        try store.createNamespace(warehouse: "wh", ["n"])
        let base = try store.createTable(warehouse: "wh", namespace: ["n"], IcebergTableCreation(name: "t", schema: Self.schema))
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for id in Int64(1) ... 8 {
                group.addTask {
                    let change = Self.appendSnapshot(id, to: base)
                    return (try? store.commitTable(warehouse: "wh", identifier, requirements: change.requirements, updates: change.updates)) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 1)
        #expect(try store.loadTable(warehouse: "wh", identifier).metadata.snapshots.count == 1)
    }

    @Test func tornTemporaryStateFileIsIgnored() throws {
        let directory = temporaryDirectory("torn")
        do {
            let store = try Self.openStore(directory)
            try store.createNamespace(warehouse: "wh", ["kept"])
        }
        // A crash mid-save leaves a partial temp file; the rename never happened.
        let stray = "\(directory)/catalog/catalog.json.tmp-123-456"
        _ = FileManager.default.createFile(atPath: stray, contents: Data("{\"version\":1,\"warehouses\":{\"wh\":{\"namesp".utf8))
        let reopened = try Self.openStore(directory)
        #expect(try reopened.listNamespaces(warehouse: "wh") == [["kept"]])
        #expect(!FileManager.default.fileExists(atPath: stray))
        // A corrupt state file itself is reported, not silently replaced by an empty catalog.
        _ = FileManager.default.createFile(atPath: "\(directory)/catalog/catalog.json", contents: Data("{\"version\":1,\"wareh".utf8))
        do {
            _ = try Self.openStore(directory)
            Issue.record("corrupt state accepted")
        } catch {
            #expect((error as? SluiceError)?.code == .dataCorrupted)
        }
    }

    @Test func stagedCreateCommitsWithAssertCreate() throws {
        let store = try Self.openStore(temporaryDirectory("staged"))
        let identifier = IcebergTableIdentifier(namespace: ["n"], name: "s")
        try store.createNamespace(warehouse: "wh", ["n"])
        let staged = try store.createTable(warehouse: "wh", namespace: ["n"], IcebergTableCreation(name: "s", schema: Self.schema, isStaged: true))
        #expect(staged.metadataLocation == nil)
        #expect(try !store.tableExists(warehouse: "wh", identifier))
        let created = try store.commitTable(warehouse: "wh", identifier, requirements: [.assertCreate], updates: [
            .assignUUID(staged.metadata.tableUUID), .upgradeFormatVersion(2), .addSchema(Self.schema, lastColumnID: 1), .setCurrentSchema(-1),
            .addSpec(.unpartitioned), .setDefaultSpec(-1), .addSortOrder(.unsorted), .setDefaultSortOrder(-1), .setLocation(staged.metadata.location),
        ])
        #expect(created.metadata.tableUUID == staged.metadata.tableUUID)
        #expect(created.metadataLocation?.contains("/metadata/00000-") == true)
        do {
            _ = try store.commitTable(warehouse: "wh", identifier, requirements: [.assertCreate], updates: [.addSchema(Self.schema, lastColumnID: 1)])
            Issue.record("second create accepted")
        } catch {
            #expect(error.code == IcebergCatalogError.commitConflictCode)
        }
    }

    @Test func dropRenameAndNamespaceRules() throws {
        let directory = temporaryDirectory("drop")
        let store = try Self.openStore(directory)
        try store.createNamespace(warehouse: "wh", ["n"])
        try store.createNamespace(warehouse: "wh", ["m"])
        let table = try store.createTable(warehouse: "wh", namespace: ["n"], IcebergTableCreation(name: "t", schema: Self.schema))
        do {
            try store.dropNamespace(warehouse: "wh", ["n"])
            Issue.record("non-empty namespace dropped")
        } catch {
            #expect(IcebergCatalogError.httpStatus(for: error) == (409, "NamespaceNotEmptyException"))
        }
        #expect(throws: SluiceError.self) {
            try store.createTable(warehouse: "wh", namespace: ["n"], IcebergTableCreation(name: "t", schema: Self.schema))
        }
        try store.renameTable(warehouse: "wh", from: IcebergTableIdentifier(namespace: ["n"], name: "t"), to: IcebergTableIdentifier(namespace: ["m"], name: "u"))
        #expect(try store.listTables(warehouse: "wh", namespace: ["n"]).isEmpty)
        let moved = IcebergTableIdentifier(namespace: ["m"], name: "u")
        #expect(try store.loadTable(warehouse: "wh", moved).metadata.location == table.metadata.location)
        try store.dropTable(warehouse: "wh", moved, purge: true)
        #expect(!FileManager.default.fileExists(atPath: String(try #require(table.metadataLocation).dropFirst(7))))
        do {
            _ = try store.loadTable(warehouse: "wh", moved)
            Issue.record("dropped table loaded")
        } catch {
            #expect(IcebergCatalogError.httpStatus(for: error) == (404, "NoSuchTableException"))
        }
        try store.dropNamespace(warehouse: "wh", ["n"])
        let updated = try store.updateNamespaceProperties(warehouse: "wh", ["m"], removals: ["gone"], updates: ["a": "1"])
        #expect(updated.updated == ["a"] && updated.missing == ["gone"] && updated.removed.isEmpty)

        let strict = try Self.openStore(temporaryDirectory("strict"), autoCreate: false)
        #expect(throws: SluiceError.self) { try strict.createNamespace(warehouse: "nope", ["n"]) }
        try strict.createWarehouse("yes")
        try strict.createNamespace(warehouse: "yes", ["n"])
    }
}
