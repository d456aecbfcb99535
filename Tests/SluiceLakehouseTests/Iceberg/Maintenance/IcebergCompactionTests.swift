import Foundation
import SluiceCore
import SluiceFormats
import SluiceLakehouse
import Synchronization
import Testing

@Suite struct IcebergCompactionTests {
    func compaction(_ table: IcebergTestTable, catalog: (any IcebergCatalog)? = nil, options: IcebergMaintenanceOptions = .init()) -> IcebergCompaction {
        IcebergCompaction(catalog: catalog ?? table.catalog, fileIO: LocalFileIO(), identifier: table.identifier, options: options)
    }

    @Test func manySmallFilesBecomeOneWithTheSameRows() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        var expected: [IcebergTestTable.Row] = []
        for batch in 0 ..< 12 {
            let rows = IcebergTestTable.rows(from: Int64(batch * 100), count: 40)
            expected += rows
            try table.append(rows)
        }
        let start = try table.table.metadata
        let startSnapshot = try #require(start.currentSnapshot)
        let inputs = try table.dataFiles()
        #expect(inputs.count == 12)

        let result = try await compaction(table).run()

        guard case .committed(let snapshotID) = result.outcome else { throw TestFailure("not committed: \(result.outcome)") }
        #expect(result.rewrittenDataFiles == 12)
        #expect(result.addedDataFiles == 1)
        #expect(result.rewrittenRecords == 480)
        #expect(result.addedRecords == 480)
        #expect(result.rewrittenBytes == inputs.reduce(0) { $0 + $1.dataFile.fileSizeInBytes })
        let metadata = try table.table.metadata
        let snapshot = try #require(metadata.currentSnapshot)
        #expect(snapshot.snapshotID == snapshotID)
        #expect(snapshot.operation == "replace")
        #expect(snapshot.parentSnapshotID == startSnapshot.snapshotID)
        #expect(snapshot.sequenceNumber == startSnapshot.sequenceNumber + 1)
        #expect(snapshot.summary["added-data-files"] == "1")
        #expect(snapshot.summary["deleted-data-files"] == "12")
        #expect(snapshot.summary["total-data-files"] == "1")
        #expect(snapshot.summary["total-records"] == "480")

        let outputs = try table.dataFiles()
        #expect(outputs.count == 1)
        let output = try #require(outputs.first)
        // The rewrite keeps the starting snapshot's data sequence number; the file sequence
        // number is the new snapshot's.
        #expect(output.sequenceNumber == startSnapshot.sequenceNumber)
        #expect(output.fileSequenceNumber == snapshot.sequenceNumber)
        #expect(output.dataFile.recordCount == 480)
        #expect(output.dataFile.filePath.hasPrefix(metadata.location + "/data/"))
        #expect(output.dataFile.lowerBounds?[1] == IcebergSingleValue.encode(.int64(0), as: .int64))
        #expect(output.dataFile.upperBounds?[1] == IcebergSingleValue.encode(.int64(1139), as: .int64))
        #expect(try table.rows() == IcebergTestTable.multiset(expected))
        // The rewritten files stay until expiry removes the snapshots that use them.
        for input in inputs { #expect(FileManager.default.fileExists(atPath: input.dataFile.filePath)) }
        // A second round finds nothing to do.
        #expect(try await compaction(table).run().outcome == .nothingToCompact)
    }

    @Test func fewerSmallFilesThanTheMinimumAreLeftAlone() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        for batch in 0 ..< 4 { try table.append(IcebergTestTable.rows(from: Int64(batch * 10), count: 10)) }
        #expect(try await compaction(table).run().outcome == .nothingToCompact)
        #expect(try table.dataFiles().count == 4)
        let lower = try await compaction(table, options: IcebergMaintenanceOptions(minInputFiles: 2)).run()
        #expect(lower.rewrittenDataFiles == 4)
        #expect(try table.dataFiles().count == 1)
    }

    @Test func partitionsAreCompactedSeparately() async throws {
        let table = try IcebergTestTable(partitioned: true)
        defer { table.removeDirectory() }
        var expected: [IcebergTestTable.Row] = []
        for batch in 0 ..< 6 {
            for name in ["east", "west"] {
                let rows = IcebergTestTable.rows(from: Int64(batch * 100 + (name == "east" ? 0 : 50)), count: 20, names: [name])
                expected += rows
                try table.append(rows, partitionName: name)
            }
        }
        try table.append(IcebergTestTable.rows(from: 5000, count: 5, names: ["north"]), partitionName: "north")
        expected += IcebergTestTable.rows(from: 5000, count: 5, names: ["north"])

        let result = try await compaction(table).run()

        #expect(result.rewrittenDataFiles == 12)
        #expect(result.addedDataFiles == 2)
        let files = try table.dataFiles()
        #expect(files.count == 3)
        let partitions = files.map(\.dataFile.partition)
        #expect(Set(partitions) == [[.string("east")], [.string("west")], [.string("north")]])
        for file in files where file.dataFile.partition != [.string("north")] {
            guard case .string(let name)? = file.dataFile.partition.first else { continue }
            // New files stay in their partition's directory.
            #expect(file.dataFile.filePath.contains("/data/name=\(name)/"))
            #expect(file.dataFile.recordCount == 120)
        }
        #expect(try table.rows() == IcebergTestTable.multiset(expected))
    }

    @Test func filesRollAtTheTargetSize() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        var expected: [IcebergTestTable.Row] = []
        for batch in 0 ..< 8 {
            let rows = IcebergTestTable.rows(from: Int64(batch * 1000), count: 600)
            expected += rows
            try table.append(rows)
        }
        let inputs = try table.dataFiles()
        let largest = inputs.map(\.dataFile.fileSizeInBytes).max() ?? 0
        let target = largest * 2

        let result = try await compaction(table, options: IcebergMaintenanceOptions(targetFileSizeBytes: target)).run()

        #expect(result.rewrittenDataFiles == 8)
        let outputs = try table.dataFiles()
        #expect(outputs.count >= 2 && outputs.count < 8, "\(outputs.count) files")
        #expect(outputs.allSatisfy { $0.dataFile.fileSizeInBytes < target * 2 })
        #expect(try table.rows() == IcebergTestTable.multiset(expected))
    }

    @Test func equalityAndPositionDeletesAreAppliedAndDropped() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        var rows: [IcebergTestTable.Row] = []
        var firstFile = ""
        for batch in 0 ..< 6 {
            let batchRows = IcebergTestTable.rows(from: Int64(batch * 10), count: 10)
            rows += batchRows
            let commit = try table.append(batchRows)
            if batch == 1 { firstFile = commit.writtenFiles[0] }
        }
        // An upsert sink's delete: ids 3, 15 and 42 (sequence number 7).
        try table.commit([try table.writeEqualityDeletes(ids: [3, 15, 42])])
        // Id 3 written again after the delete: it stays (the delete is not newer).
        let reinserted = IcebergTestTable.Row(id: 3, name: "again", value: 9)
        try table.append([reinserted])
        // Positions 0 and 4 of the second file (ids 10 and 14).
        try table.commit([try table.writePositionDeletes(dataPath: firstFile, positions: [0, 4])])
        let expected = rows.filter { ![3, 15, 42, 10, 14].contains($0.id) } + [reinserted]
        #expect(try table.rows() == IcebergTestTable.multiset(expected))
        #expect(try table.deleteFiles().count == 2)

        let result = try await compaction(table).run()

        #expect(result.rewrittenDataFiles == 7)
        #expect(result.removedDeleteFiles == 2)
        #expect(result.addedRecords == Int64(expected.count))
        #expect(try table.deleteFiles().isEmpty)
        #expect(try table.dataFiles().count == 1)
        let snapshot = try #require(try table.table.metadata.currentSnapshot)
        #expect(snapshot.summary["removed-delete-files"] == "2")
        #expect(snapshot.summary["removed-equality-delete-files"] == "1")
        #expect(snapshot.summary["removed-position-delete-files"] == "1")
        #expect(snapshot.summary["total-delete-files"] == "0")
        #expect(try table.rows() == IcebergTestTable.multiset(expected))
    }

    @Test func deletesMakeEvenOneFileWorthRewriting() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        let rows = IcebergTestTable.rows(from: 0, count: 30)
        try table.append(rows)
        try table.commit([try table.writeEqualityDeletes(ids: [1, 2])])

        let result = try await compaction(table).run()

        #expect(result.rewrittenDataFiles == 1)
        #expect(result.removedDeleteFiles == 1)
        #expect(try table.rows() == IcebergTestTable.multiset(rows.filter { $0.id != 1 && $0.id != 2 }))
    }

    @Test func aConflictingCommitLeavesNoTraceOfTheRound() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        var expected: [IcebergTestTable.Row] = []
        for batch in 0 ..< 6 {
            let rows = IcebergTestTable.rows(from: Int64(batch * 10), count: 10)
            expected += rows
            try table.append(rows)
        }
        let before = try table.storedFiles()
        let sinkRows = IcebergTestTable.rows(from: 900, count: 3)
        let interfering = InterferingCatalog(base: table.catalog) { () throws(SluiceError) -> [String] in
            // A sink commits while the compaction is about to commit.
            do {
                let commit = try table.append(sinkRows)
                return commit.writtenFiles + [commit.metadataLocation].compactMap { $0 }
            } catch let error as SluiceError {
                throw error
            } catch {
                throw SluiceError(.internalError, "\(error)")
            }
        }

        let result = try await compaction(table, catalog: interfering).run()

        #expect(result.outcome == .abandonedOnConflict)
        let sinkFiles = Set(interfering.interferingFiles.withLock { $0 })
        #expect(!sinkFiles.isEmpty)
        #expect(try table.storedFiles() == before.union(sinkFiles))
        let metadata = try table.table.metadata
        #expect(metadata.snapshots.allSatisfy { $0.operation == "append" })
        #expect(try table.dataFiles().count == 7)
        #expect(try table.rows() == IcebergTestTable.multiset(expected + sinkRows))
    }

    @Test func aDamagedDataFileFailsTheRoundWithoutLeftovers() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        var paths: [String] = []
        for batch in 0 ..< 6 { paths.append(try table.append(IcebergTestTable.rows(from: Int64(batch * 10), count: 50)).writtenFiles[0]) }
        var generator = SystemRandomNumberGenerator()
        var failures = 0
        for round in 0 ..< 12 {
            // Truncate or flip bytes of the last file, then restore it.
            let victim = try #require(paths.last)
            let original = try LocalFileIO().read(victim)
            var damaged = original
            if round % 2 == 0 {
                damaged = Array(original.prefix(Int.random(in: 0 ..< original.count, using: &generator)))
            } else {
                for _ in 0 ..< 8 {
                    let index = Int.random(in: 0 ..< damaged.count, using: &generator)
                    damaged[index] ^= UInt8.random(in: 1 ... 255, using: &generator)
                }
            }
            try LocalFileIO().write(victim, damaged)
            let before = try table.storedFiles()
            let snapshotBefore = try table.table.metadata.currentSnapshotID
            do {
                let result = try await compaction(table).run()
                // Flipped bytes may land where they change only values.
                #expect(result.rewrittenDataFiles == 6)
                break
            } catch {
                failures += 1
                #expect(!error.message.isEmpty)
                #expect(try table.storedFiles() == before)
                #expect(try table.table.metadata.currentSnapshotID == snapshotBefore)
            }
            try LocalFileIO().write(victim, original)
        }
        // A truncated file always fails.
        #expect(failures > 0)
    }
}

/// A catalog that runs `interfere` (another writer's commit) before each commit it forwards.
final class InterferingCatalog: IcebergCatalog {
    let base: IcebergWarehouseCatalog
    let interfere: @Sendable () throws(SluiceError) -> [String]
    let interferingFiles = Mutex<[String]>([])

    init(base: IcebergWarehouseCatalog, interfere: @escaping @Sendable () throws(SluiceError) -> [String]) {
        self.base = base
        self.interfere = interfere
    }

    func createNamespaceIfMissing(_ namespace: [String]) async throws(SluiceError) {
        try await base.createNamespaceIfMissing(namespace)
    }

    func loadTable(_ identifier: IcebergTableIdentifier) async throws(SluiceError) -> IcebergLoadedTable? {
        try await base.loadTable(identifier)
    }

    func createTable(namespace: [String], _ creation: IcebergTableCreation) async throws(SluiceError) -> IcebergLoadedTable {
        try await base.createTable(namespace: namespace, creation)
    }

    func commitTable(_ identifier: IcebergTableIdentifier, requirements: [IcebergTableRequirement],
                     updates: [IcebergTableUpdate]) async throws(SluiceError) -> IcebergLoadedTable {
        let files = try interfere()
        interferingFiles.withLock { $0 += files }
        return try await base.commitTable(identifier, requirements: requirements, updates: updates)
    }
}
