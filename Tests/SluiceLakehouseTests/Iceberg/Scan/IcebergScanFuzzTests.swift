import SluiceCore
import SluiceFormats
import Testing
@testable import SluiceLakehouse

/// Random mutations and truncations of a table's manifest list, manifests, data and delete
/// files: planning and reading must throw a ``SluiceError`` or succeed, never trap or hang.
@Suite struct IcebergScanFuzzTests {
    @Test func mutatedFilesThrowOrReadButNeverTrap() throws {
        let table = IcebergScanTestTable("fuzz", schema: IcebergTableScanTests.schema)
        let data = try table.writeFile(IcebergTableScanTests.columns(), rowGroups: [IcebergTableScanTests.chunk(1 ... 20), IcebergTableScanTests.chunk(21 ... 25)])
        let deletes = try table.writePositionDeletes([(data.filePath, 3)])
        let equality = try table.writeFile([ParquetColumnSchema(name: "id", type: .int64, fieldID: 1)], rowGroups: [idChunk([7])],
                                           content: .equalityDeletes, equalityIDs: [1])
        try table.commit(data: [data])
        try table.commit(deletes: [deletes, equality])
        let snapshot = try #require(table.metadata.currentSnapshot)
        let targets = [snapshot.manifestList] + table.manifests.map(\.manifestPath) + [data.filePath, deletes.filePath, equality.filePath]
        let predicate = IcebergScanPredicate([.compare(fieldID: 1, .greaterThan, .int64(3)), .isNotNull(fieldID: 2)])

        var random = SplitMix64(seed: 20_240_601)
        var outcomes = (succeeded: 0, failed: 0)
        for round in 0 ..< 300 {
            let target = targets[round % targets.count]
            var bytes = try table.fileIO.read(target)
            switch random.next(below: 4) {
            case 0: bytes.removeLast(random.next(below: bytes.count))
            case 1: for _ in 0 ... random.next(below: 8) { ByteMutations.overwriteByte(&bytes, random: &random) }
            case 2: ByteMutations.deleteRun(&bytes, upTo: 64, random: &random)
            default: ByteMutations.duplicateRun(&bytes, upTo: 64, random: &random)
            }
            let fileIO = MutatedFileIO(base: table.fileIO, location: target, bytes: bytes)
            let scan = IcebergTableScan(metadata: table.metadata, fileIO: fileIO)
            do {
                let plan = try scan.plan(fields: [1, 2, 3], predicate: predicate, choosingRowGroups: round % 2 == 0)
                for task in plan.tasks { _ = try scan.read(task, fields: [3, 1]) }
                outcomes.succeeded += 1
            } catch {
                outcomes.failed += 1
            }
        }
        #expect(outcomes.succeeded + outcomes.failed == 300)
        #expect(outcomes.failed > 0)
    }
}

/// A file IO that serves `bytes` for `location` and everything else from `base`.
struct MutatedFileIO: FileIO {
    let base: any FileIO
    let location: String
    let bytes: [UInt8]

    func write(_ location: String, _ bytes: [UInt8]) throws(SluiceError) { try base.write(location, bytes) }
    func read(_ location: String) throws(SluiceError) -> [UInt8] { location == self.location ? bytes : try base.read(location) }
    func read(_ location: String, range: Range<Int>) throws(SluiceError) -> [UInt8] {
        guard location == self.location else { return try base.read(location, range: range) }
        let clamped = range.clamped(to: 0 ..< bytes.count)
        return Array(bytes[clamped])
    }
    func size(_ location: String) throws(SluiceError) -> Int? { location == self.location ? bytes.count : try base.size(location) }
    func delete(_ location: String) throws(SluiceError) { try base.delete(location) }
    func list(prefix: String) throws(SluiceError) -> [FileEntry] { try base.list(prefix: prefix) }
    func output(_ location: String) throws(SluiceError) -> any FileOutput { try base.output(location) }
}
