import Foundation
import SluiceCore
import SluiceLakehouse
import Synchronization
import Testing

@Suite struct IcebergOrphanFilesTests {
    @Test func oldUnreferencedFilesGoAndTheRestStays() throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        let first = try table.append(IcebergTestTable.rows(from: 0, count: 5))
        try table.append(IcebergTestTable.rows(from: 10, count: 5))
        let location = try table.location
        // A sink's prepared file whose commit never happened, and a stray manifest.
        let orphan = try table.writeDataFile(IcebergTestTable.rows(from: 100, count: 5)).filePath
        let strayManifest = location + "/metadata/stray-m0.avro"
        try LocalFileIO().write(strayManifest, [1, 2, 3])
        // A file being written right now.
        let young = try table.writeDataFile(IcebergTestTable.rows(from: 200, count: 5)).filePath
        let rowsBefore = try table.rows()
        let twoHours: Int64 = 2 * 3_600_000
        for path in try table.storedFiles() where path != young { try setAge(of: path, ageMs: twoHours) }

        var sightings = IcebergOrphanSightings()
        let result = try IcebergOrphanFiles(fileIO: LocalFileIO(), gracePeriodMs: 3_600_000).clean(try table.table, sightings: &sightings)

        #expect(Set(result.deletedLocations) == [orphan, strayManifest])
        #expect(result.unreferencedFiles == 3)
        #expect(result.youngFilesKept == 1)
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(!FileManager.default.fileExists(atPath: strayManifest))
        #expect(FileManager.default.fileExists(atPath: young))
        for path in first.writtenFiles { #expect(FileManager.default.fileExists(atPath: path)) }
        #expect(try table.rows() == rowsBefore)
        // Every metadata file in the log stays.
        for entry in try table.table.metadata.metadataLog { #expect(FileManager.default.fileExists(atPath: entry.metadataFile)) }
    }

    @Test func storesWithoutFileTimesWaitAGracePeriodAfterTheFirstSighting() throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        try table.append(IcebergTestTable.rows(from: 0, count: 5))
        let orphan = try table.writeDataFile(IcebergTestTable.rows(from: 100, count: 5)).filePath
        try setAge(of: orphan, ageMs: 10 * dayMs)
        let clock = Mutex<Int64>(nowMs())
        let cleaner = IcebergOrphanFiles(fileIO: TimelessFileIO(), gracePeriodMs: 3_600_000, clock: { clock.withLock { $0 } })
        var sightings = IcebergOrphanSightings()

        let first = try cleaner.clean(try table.table, sightings: &sightings)
        #expect(first.deletedFiles == 0)
        #expect(first.youngFilesKept == 1)
        #expect(sightings.firstSeenMs.count == 1)

        clock.withLock { $0 += 2 * 3_600_000 }
        let second = try cleaner.clean(try table.table, sightings: &sightings)
        #expect(second.deletedLocations == [orphan])
        #expect(sightings.firstSeenMs.isEmpty)
    }

    @Test func missingMetadataStopsTheCleanup() throws {
        let table = try IcebergTestTable()
        defer { table.removeDirectory() }
        let commit = try table.append(IcebergTestTable.rows(from: 0, count: 5))
        let orphan = try table.writeDataFile(IcebergTestTable.rows(from: 100, count: 5)).filePath
        try setAge(of: orphan, ageMs: dayMs)
        // Without the manifest, what the snapshot references is unknown: nothing may go.
        let manifest = try #require(commit.writtenFiles.first { $0.hasSuffix("-m0.avro") })
        try FileManager.default.removeItem(atPath: manifest)
        var sightings = IcebergOrphanSightings()
        #expect(throws: SluiceError.self) {
            try IcebergOrphanFiles(fileIO: LocalFileIO(), gracePeriodMs: 0).clean(try table.table, sightings: &sightings)
        }
        #expect(FileManager.default.fileExists(atPath: orphan))
    }
}

/// Local files through a ``FileIO`` that cannot tell modification times (as S3 through
/// `FileIO` cannot).
struct TimelessFileIO: FileIO {
    let local = LocalFileIO()
    func write(_ location: String, _ bytes: [UInt8]) throws(SluiceError) { try local.write(location, bytes) }
    func read(_ location: String) throws(SluiceError) -> [UInt8] { try local.read(location) }
    func read(_ location: String, range: Range<Int>) throws(SluiceError) -> [UInt8] { try local.read(location, range: range) }
    func size(_ location: String) throws(SluiceError) -> Int? { try local.size(location) }
    func delete(_ location: String) throws(SluiceError) { try local.delete(location) }
    func list(prefix: String) throws(SluiceError) -> [FileEntry] { try local.list(prefix: prefix) }
    func output(_ location: String) throws(SluiceError) -> any FileOutput { try local.output(location) }
}
