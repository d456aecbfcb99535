import Foundation
import Testing
import SluiceConnectors
import SluiceCore
import SluiceDataflow
import SluiceLakehouse

/// An upsert Iceberg sink deletes the rows it wrote by position, and keeps doing so when a
/// compaction rewrites its files, also when the compaction lands between an epoch's prepare
/// and its commit. The table is read back with Sluice's scan, which applies position and
/// equality deletes; the expected rows are kept here by hand.
@Suite struct IcebergUpsertSinkTests {
    private let identifier = IcebergTableIdentifier(namespace: ["db"], name: "t")

    private func chunk(_ changes: [(ChangeOp, Int64, String)]) -> StreamChunk {
        StreamChunk(
            ops: changes.map(\.0),
            data: Chunk(columns: [Column(type: .int64, values: changes.map { .int64($0.1) }), Column(type: .varchar, values: changes.map { .string($0.2) })],
                        count: changes.count))
    }

    /// The changes that move `keys` from the model's names to `name`.
    private func updates(_ keys: [Int64], to name: String, model: inout [Int64: String]) -> [(ChangeOp, Int64, String)] {
        var changes: [(ChangeOp, Int64, String)] = []
        for key in keys {
            changes += [(.updateDelete, key, model[key]!), (.updateInsert, key, name)]
            model[key] = name
        }
        return changes
    }

    private func tableRows(_ root: String) throws -> (rows: [Int64: String], equalityDeletes: Int, positionDeletes: Int) {
        let catalog = IcebergStorageCatalog(root: root, fileIO: LocalFileIO())
        guard let loaded = try catalog.loadTableNow(identifier) else { throw SluiceError(.undefinedTable, "no table") }
        let scan = IcebergTableScan(metadata: loaded.metadata, fileIO: LocalFileIO())
        let plan = try scan.plan(fields: [1, 2])
        var rows: [Int64: String] = [:]
        var equality = Set<String>(), position = Set<String>()
        for task in plan.tasks {
            for delete in task.deletes {
                if delete.file.content == .equalityDeletes { equality.insert(delete.file.filePath) } else { position.insert(delete.file.filePath) }
            }
            for chunk in try scan.read(task, fields: [1, 2]) {
                for row in 0 ..< chunk.count {
                    guard case .int64(let key) = chunk.columns[0].value(at: row), case .string(let name) = chunk.columns[1].value(at: row) else {
                        Issue.record("unexpected row")
                        continue
                    }
                    #expect(rows[key] == nil, "key \(key) read twice")
                    rows[key] = name
                }
            }
        }
        return (rows, equality.count, position.count)
    }

    @Test func positionDeletesFollowACompactionBetweenPrepareAndCommit() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("upsert-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let description = SinkDescription(
            id: 1, name: "s", sinkID: UUID().uuidString, columns: [("id", .int64), ("name", .varchar)], appendOnly: false, primaryKey: [0],
            options: ["connector": "iceberg", "catalog.type": "storage", "warehouse.path": root, "database.name": "db", "table.name": "t",
                      "type": "upsert", "primary_key": "id", "enable_compaction": "false"])
        let sink = try IcebergSink(description, lakehouse: .none, validate: true)
        var model: [Int64: String] = [:]
        var epoch: UInt64 = 0
        func prepare(_ changes: [(ChangeOp, Int64, String)]) throws -> PreparedEpoch {
            try sink.write(chunk(changes))
            epoch += 1
            return PreparedEpoch(epoch: epoch, token: try #require(try sink.prepare(epoch: epoch)))
        }

        // Two epochs of inserts: two data files.
        for range in [Int64(1) ... 50, 51 ... 100] {
            for key in range { model[key] = "first" }
            _ = try sink.commit([try prepare(range.map { (.insert, $0, "first") })])
        }
        // Updates and a delete of keys in both files: position deletes only.
        var changes = updates(Array(1 ... 10) + Array(51 ... 55), to: "second", model: &model)
        changes.append((.delete, 20, model.removeValue(forKey: 20)!))
        _ = try sink.commit([try prepare(changes)])
        var table = try tableRows(root)
        #expect(table.rows == model)
        #expect(table.equalityDeletes == 0)
        #expect(table.positionDeletes > 0)

        // An epoch prepared, then a compaction rewrites every file, then the epoch commits: its
        // position deletes point into removed files, so the sink finds the rows in the new ones.
        let pending = try prepare(updates(Array(11 ... 15) + Array(56 ... 60), to: "third", model: &model))
        let compaction = IcebergCompaction(
            catalog: IcebergStorageCatalog(root: root, fileIO: LocalFileIO()), fileIO: LocalFileIO(), identifier: identifier,
            options: IcebergMaintenanceOptions(minInputFiles: 2))
        let result = try await compaction.run()
        #expect(result.rewrittenDataFiles >= 2)
        _ = try sink.commit([pending])
        table = try tableRows(root)
        #expect(table.rows == model)
        #expect(table.equalityDeletes == 0)

        // The next epoch's index has followed the compaction: still position deletes only, and
        // a deleted key comes back.
        changes = updates(Array(16 ... 19) + Array(61 ... 70), to: "fourth", model: &model)
        changes.append((.delete, 1, model.removeValue(forKey: 1)!))
        changes.append((.insert, 20, "back"))
        model[20] = "back"
        _ = try sink.commit([try prepare(changes)])
        table = try tableRows(root)
        #expect(table.rows == model)
        #expect(table.equalityDeletes == 0)
        #expect(table.positionDeletes > 0)
    }

    @Test func aTableWithOtherRowsKeepsEqualityDeletesForThem() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("upsert-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        func sink() throws -> IcebergSink {
            try IcebergSink(SinkDescription(
                id: 1, name: "s", sinkID: UUID().uuidString, columns: [("id", .int64), ("name", .varchar)], appendOnly: false, primaryKey: [0],
                options: ["connector": "iceberg", "catalog.type": "storage", "warehouse.path": root, "database.name": "db", "table.name": "t",
                          "type": "upsert", "primary_key": "id", "enable_compaction": "false"]), lakehouse: .none, validate: true)
        }
        // One sink writes rows; a second, new sink over the same table updates them: it did not
        // write them, so only equality deletes can remove their old versions.
        let first = try sink()
        try first.write(chunk((1 ... 5).map { (.insert, $0, "old") }))
        _ = try first.commit([PreparedEpoch(epoch: 1, token: try #require(try first.prepare(epoch: 1)))])
        let second = try sink()
        var model: [Int64: String] = [1: "old", 2: "old", 3: "old", 4: "old", 5: "old"]
        try second.write(chunk(updates([1, 2], to: "new", model: &model)))
        _ = try second.commit([PreparedEpoch(epoch: 1, token: try #require(try second.prepare(epoch: 1)))])
        let table = try tableRows(root)
        #expect(table.rows == model)
        #expect(table.equalityDeletes == 1)
    }

    @Test func anotherWritersAppendMakesTheSinkDeleteByEqualityAgain() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("upsert-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        func sink() throws -> IcebergSink {
            try IcebergSink(SinkDescription(
                id: 1, name: "s", sinkID: UUID().uuidString, columns: [("id", .int64), ("name", .varchar)], appendOnly: false, primaryKey: [0],
                options: ["connector": "iceberg", "catalog.type": "storage", "warehouse.path": root, "database.name": "db", "table.name": "t",
                          "type": "upsert", "primary_key": "id", "enable_compaction": "false"]), lakehouse: .none, validate: true)
        }
        // The sink writes into an empty table, so its index covers the table; then another
        // writer appends a row under key 10; then the sink takes an insert of key 10 (an upsert
        // of an append-only input): the other writer's row must go, by equality.
        let first = try sink()
        try first.write(chunk((1 ... 3).map { (.insert, $0, "mine") }))
        _ = try first.commit([PreparedEpoch(epoch: 1, token: try #require(try first.prepare(epoch: 1)))])
        let other = try sink()
        try other.write(chunk([(.insert, 10, "theirs")]))
        _ = try other.commit([PreparedEpoch(epoch: 1, token: try #require(try other.prepare(epoch: 1)))])
        try first.write(chunk([(.insert, 10, "mine")]))
        _ = try first.commit([PreparedEpoch(epoch: 2, token: try #require(try first.prepare(epoch: 2)))])
        let table = try tableRows(root)
        #expect(table.rows == [1: "mine", 2: "mine", 3: "mine", 10: "mine"])
        // The other writer's own delete of key 10 (it did not write the table's rows) and the
        // sink's, which is what removes the other writer's row.
        #expect(table.equalityDeletes == 2)
    }
}
