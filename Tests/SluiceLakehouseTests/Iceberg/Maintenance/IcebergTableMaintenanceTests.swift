import Foundation
import SluiceCore
import SluiceLakehouse
import Testing

@Suite struct IcebergTableMaintenanceTests {
    @Test func oneRoundCompactsExpiresAndCleansUp() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        let now = nowMs()
        var expected: [IcebergTestTable.Row] = []
        var appended: [IcebergTestTable.Commit] = []
        for batch in 0 ..< 8 {
            let rows = IcebergTestTable.rows(from: Int64(batch * 10), count: 10)
            expected += rows
            appended.append(try table.append(rows, timestampMs: now - 10 * dayMs + Int64(batch)))
        }
        let orphan = try table.writeDataFile(IcebergTestTable.rows(from: 999, count: 2)).filePath
        try setAge(of: orphan, ageMs: 4 * 24 * 3_600_000)  // past the 3-day grace period
        let maintenance = IcebergTableMaintenance(catalog: table.catalog, fileIO: LocalFileIO(), identifier: table.identifier)

        let report = try await maintenance.runOnce()

        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.dataFilesRewritten == 8)
        #expect(report.dataFilesAdded == 1)
        #expect(report.bytesRewritten > 0 && report.bytesWritten > 0)
        // The eight appends are old; the replace snapshot is the one kept.
        #expect(report.snapshotsExpired == 8)
        #expect(report.expiry?.deletedDataFiles == 8)
        #expect(report.orphanCleanup?.deletedLocations == [orphan])
        #expect(report.filesDeleted == (report.expiry?.deletedFiles ?? 0) + 1)
        let metadata = try table.table.metadata
        #expect(metadata.snapshots.count == 1)
        #expect(metadata.currentSnapshot?.operation == "replace")
        #expect(try table.rows() == IcebergTestTable.multiset(expected))
        for commit in appended { #expect(!FileManager.default.fileExists(atPath: commit.writtenFiles[0])) }

        // Nothing is left to do in the next round.
        let second = try await maintenance.runOnce()
        #expect(second.compaction?.outcome == .nothingToCompact)
        #expect(second.expiry?.outcome == .nothingToExpire)
        #expect(second.orphanCleanup?.deletedFiles == 0)
    }

    @Test func aMissingTableIsAnError() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        let maintenance = IcebergTableMaintenance(
            catalog: table.catalog, fileIO: LocalFileIO(), identifier: IcebergTableIdentifier(namespace: ["db"], name: "absent"))
        await #expect(throws: SluiceError.self) { try await maintenance.runOnce() }
    }

    @Test func aFailingPhaseDoesNotStopTheOthers() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        let now = nowMs()
        var paths: [String] = []
        for batch in 0 ..< 6 {
            paths.append(try table.append(IcebergTestTable.rows(from: Int64(batch * 10), count: 10), timestampMs: now - 10 * dayMs + Int64(batch)).writtenFiles[0])
        }
        // A data file that is not Parquet: compaction fails, expiry still runs.
        try LocalFileIO().write(paths[2], Array("not parquet".utf8))
        let report = try await IcebergTableMaintenance(catalog: table.catalog, fileIO: LocalFileIO(), identifier: table.identifier).runOnce()
        #expect(report.errors.count == 1)
        #expect(report.compaction == nil)
        #expect(report.snapshotsExpired == 5)
    }

    @Test func damagedManifestsAreErrorsNotCrashes() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        var commits: [IcebergTestTable.Commit] = []
        for batch in 0 ..< 6 { commits.append(try table.append(IcebergTestTable.rows(from: Int64(batch * 10), count: 10))) }
        let manifest = try #require(commits.last?.writtenFiles.first { $0.hasSuffix("-m0.avro") })
        let list = try #require(commits.last?.writtenFiles.last)
        let options = IcebergMaintenanceOptions(orphanGracePeriodMs: 30 * dayMs)
        var generator = SystemRandomNumberGenerator()
        for round in 0 ..< 16 {
            let victim = round % 2 == 0 ? manifest : list
            let original = try LocalFileIO().read(victim)
            var damaged = original
            if round % 4 < 2 {
                damaged = Array(original.prefix(Int.random(in: 0 ..< original.count, using: &generator)))
            } else {
                for _ in 0 ..< 4 {
                    let index = Int.random(in: 0 ..< damaged.count, using: &generator)
                    damaged[index] ^= UInt8.random(in: 1 ... 255, using: &generator)
                }
            }
            try LocalFileIO().write(victim, damaged)
            let snapshot = try table.table.metadata.currentSnapshotID
            let report = try await IcebergTableMaintenance(catalog: table.catalog, fileIO: LocalFileIO(), identifier: table.identifier,
                                                           options: options).runOnce()
            if report.errors.isEmpty {
                // The damage changed only what the readers tolerate; the table must still read.
                _ = try? table.rows()
            } else {
                #expect(try table.table.metadata.currentSnapshotID == snapshot || report.compaction != nil)
            }
            try LocalFileIO().write(victim, original)
            if case .committed? = report.compaction?.outcome { break }
        }
    }
}
