import Foundation
import SluiceCore
import SluiceLakehouse
import Testing

@Suite struct IcebergSnapshotExpiryTests {
    func expiry(_ table: IcebergTestTable, options: IcebergMaintenanceOptions = .init()) -> IcebergSnapshotExpiry {
        IcebergSnapshotExpiry(catalog: table.catalog, fileIO: LocalFileIO(), identifier: table.identifier, options: options)
    }

    @Test func oldSnapshotsGoWithTheFilesOnlyTheyUsed() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        let now = nowMs()
        var expected: [IcebergTestTable.Row] = []
        var oldCommits: [IcebergTestTable.Commit] = []
        for batch in 0 ..< 5 {
            let rows = IcebergTestTable.rows(from: Int64(batch * 10), count: 10)
            expected += rows
            oldCommits.append(try table.append(rows, timestampMs: now - 10 * dayMs + Int64(batch) * 1000))
        }
        // A compaction eight days ago replaced the five files with one.
        let compaction = IcebergCompaction(catalog: table.catalog, fileIO: LocalFileIO(), identifier: table.identifier,
                                           clock: { now - 8 * dayMs })
        guard case .committed = try await compaction.run().outcome else { throw TestFailure("compaction did not commit") }
        let compacted = try #require(try table.dataFiles().first)
        let replaceSnapshot = try #require(try table.table.metadata.currentSnapshot)
        // A recent append.
        let recentRows = IcebergTestTable.rows(from: 500, count: 4)
        expected += recentRows
        let recent = try table.append(recentRows, timestampMs: now - 3_600_000)

        let result = try await expiry(table).run()

        #expect(result.outcome == .committed)
        #expect(Set(result.expiredSnapshotIDs) == Set(oldCommits.map(\.snapshotID) + [replaceSnapshot.snapshotID]))
        let metadata = try table.table.metadata
        #expect(metadata.snapshots.map(\.snapshotID) == [recent.snapshotID])
        #expect(metadata.currentSnapshotID == recent.snapshotID)
        // The old data files, manifests and manifest lists are gone.
        for commit in oldCommits {
            for path in commit.writtenFiles { #expect(!FileManager.default.fileExists(atPath: path), "\(path) remains") }
        }
        #expect(!FileManager.default.fileExists(atPath: replaceSnapshot.manifestList))
        #expect(result.deletedDataFiles == 5)
        #expect(result.deletedManifestLists == 6)
        #expect(result.failedDeletes == 0)
        // Everything the current snapshot needs remains.
        #expect(FileManager.default.fileExists(atPath: compacted.dataFile.filePath))
        for path in recent.writtenFiles { #expect(FileManager.default.fileExists(atPath: path)) }
        #expect(try table.rows() == IcebergTestTable.multiset(expected))
    }

    @Test func youngSnapshotsAndTheMinimumAreKept() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        let now = nowMs()
        for batch in 0 ..< 3 { try table.append(IcebergTestTable.rows(from: Int64(batch * 10), count: 3), timestampMs: now - 10 * dayMs + Int64(batch)) }
        try table.append(IcebergTestTable.rows(from: 100, count: 3), timestampMs: now - 2 * dayMs)
        try table.append(IcebergTestTable.rows(from: 200, count: 3), timestampMs: now - dayMs)
        let before = try table.table.metadata.snapshots.map(\.snapshotID)

        // Two young snapshots are kept; of the old ones, none (minimum 1 is met by the head).
        let result = try await expiry(table).run()
        #expect(result.expiredSnapshotIDs == Array(before.prefix(3)))
        #expect(try table.table.metadata.snapshots.map(\.snapshotID) == Array(before.suffix(2)))

        // A table property raises the minimum; with nothing older than an hour allowed, the
        // newest `min-snapshots-to-keep` stay.
        let minimum = try await expiry(table, options: IcebergMaintenanceOptions(maxSnapshotAgeMs: 3_600_000, minSnapshotsToKeep: 2)).run()
        #expect(minimum.outcome == .nothingToExpire)
        let single = try await expiry(table, options: IcebergMaintenanceOptions(maxSnapshotAgeMs: 3_600_000)).run()
        #expect(single.expiredSnapshotIDs == [before[3]])
        #expect(try table.table.metadata.snapshots.map(\.snapshotID) == [before[4]])
    }

    @Test func aSinksNewestSnapshotStaysReachable() async throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        let now = nowMs()
        let first = try table.append(IcebergTestTable.rows(from: 0, count: 3), timestampMs: now - 10 * dayMs, summary: ["sluice.sink-id": "s1"])
        let second = try table.append(IcebergTestTable.rows(from: 10, count: 3), timestampMs: now - 9 * dayMs, summary: ["sluice.sink-id": "s2"])
        let third = try table.append(IcebergTestTable.rows(from: 20, count: 3), timestampMs: now - 8 * dayMs, summary: ["sluice.sink-id": "s2"])
        let metadata = try table.table.metadata

        let retention = IcebergSnapshotRetention(options: IcebergMaintenanceOptions(), properties: [:])
        // Sink s1's last commit is the oldest: the whole chain to it stays.
        #expect(retention.expiredSnapshotIDs(in: metadata, nowMs: now).isEmpty)
        var withoutMarkers = retention
        withoutMarkers.retainedSummaryKeys = []
        #expect(withoutMarkers.expiredSnapshotIDs(in: metadata, nowMs: now) == [first.snapshotID, second.snapshotID])
        _ = third
    }

    @Test func taggedAndUnreferencedSnapshots() throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        let now = nowMs()
        let tagged = try table.append(IcebergTestTable.rows(from: 0, count: 1), timestampMs: now - 20 * dayMs)
        let old = try table.append(IcebergTestTable.rows(from: 1, count: 1), timestampMs: now - 19 * dayMs)
        let head = try table.append(IcebergTestTable.rows(from: 2, count: 1), timestampMs: now - 18 * dayMs)
        var metadata = try table.table.metadata
        metadata.refs["audit"] = IcebergSnapshotRef(snapshotID: tagged.snapshotID, kind: .tag)
        // A snapshot no ref reaches, recent: kept until it is old.
        metadata.snapshots.append(IcebergSnapshot(snapshotID: 77, parentSnapshotID: head.snapshotID, sequenceNumber: 99, timestampMs: now - 1000,
                                                  manifestList: "x", schemaID: 0))
        let retention = IcebergSnapshotRetention(maxSnapshotAgeMs: 5 * dayMs, minSnapshotsToKeep: 1, retainedSummaryKeys: [])
        #expect(retention.expiredSnapshotIDs(in: metadata, nowMs: now) == [old.snapshotID])
        #expect(retention.expiredSnapshotIDs(in: metadata, nowMs: now + 6 * dayMs) == [old.snapshotID, 77])
    }
}
