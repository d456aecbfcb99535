import Foundation
import SluiceCore
import SluiceFormats
import Testing
@testable import SluiceLakehouse

@Suite struct IcebergScanDeleteTests {
    static let schema = IcebergTableScanTests.schema
    static let columns = IcebergTableScanTests.columns()

    static func ids(_ rows: [[Value]]) -> [Int64] {
        rows.compactMap { row -> Int64? in
            if case .int64(let id)? = row.first { return id }
            return nil
        }.sorted()
    }

    @Test func equalityDeletesApplyOnlyToOlderDataFiles() throws {
        let table = IcebergScanTestTable("equality", schema: Self.schema)
        let a = try table.writeFile(Self.columns, rowGroups: [IcebergTableScanTests.chunk(1 ... 4), IcebergTableScanTests.chunk(5 ... 10)])
        try table.commit(data: [a])                                                   // sequence 1

        // Sequence 2: delete ids 2, 3 and 99, and add a file B holding ids 2 and 3 again. The
        // delete is not older than B, so B keeps its rows.
        let byID = try table.writeFile([ParquetColumnSchema(name: "id", type: .int64, fieldID: 1)],
                                       rowGroups: [idChunk([2, 3, 99])], content: .equalityDeletes, equalityIDs: [1])
        let b = try table.writeFile(Self.columns, rowGroups: [IcebergTableScanTests.chunk(2 ... 3)])
        let second = try table.commit(data: [b], deletes: [byID])

        // Sequence 3: the table promotes qty int → long; a delete written with the old int
        // column deletes rows whose qty is null (5 and 10); another deletes (4, "n4") by two keys
        // and (6, "wrong"), which matches nothing.
        try table.evolve(to: IcebergSchema(fields: [Self.schema.fields[0], Self.schema.fields[1],
                                                    IcebergNestedField(id: 3, name: "qty", isRequired: false, type: .long)]))
        let byNullQty = try table.writeFile([ParquetColumnSchema(name: "qty", type: .int32, fieldID: 3)],
                                            rowGroups: [Chunk(columns: [Column(type: .int32, values: [.null])])],
                                            content: .equalityDeletes, equalityIDs: [3])
        let byTwoKeys = try table.writeFile(
            [ParquetColumnSchema(name: "id", type: .int64, fieldID: 1), ParquetColumnSchema(name: "name", type: .varchar, fieldID: 2)],
            rowGroups: [Chunk(columns: [Column(type: .int64, values: [.int64(4), .int64(6)]), Column(type: .varchar, values: [.string("n4"), .string("wrong")])])],
            content: .equalityDeletes, equalityIDs: [1, 2])
        try table.commit(deletes: [byNullQty, byTwoKeys])

        let plan = try table.scan.plan(fields: [1, 3])
        #expect(plan.counters.deleteFiles == 3 && plan.counters.deleteManifests == 2)
        let deletesByFile = Dictionary(uniqueKeysWithValues: plan.tasks.map { ($0.dataFile.filePath, Set($0.deletes.map(\.file.filePath))) })
        #expect(deletesByFile[a.filePath] == [byID.filePath, byNullQty.filePath, byTwoKeys.filePath])
        #expect(deletesByFile[b.filePath] == [byNullQty.filePath, byTwoKeys.filePath])

        var statistics = IcebergScanReadStatistics()
        let rows = try table.scan.rows(plan, statistics: &statistics)
        #expect(Self.ids(rows) == [1, 2, 3, 6, 7, 8, 9])
        #expect(statistics.rowsRead == 12 && statistics.rowsDeleted == 5)
        #expect(rows.allSatisfy { $0[1] != .null })

        // As of sequence 2 only the id delete existed.
        let asOfSecond = IcebergTableScan(metadata: table.metadata, fileIO: table.fileIO, snapshotID: second.snapshotID)
        #expect(Self.ids(try asOfSecond.rows(fields: [1])) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    }

    @Test func positionDeletesApplyToFilesOfTheSameOrAnOlderSequenceNumber() throws {
        let table = IcebergScanTestTable("position", schema: Self.schema)
        let a = try table.writeFile(Self.columns, rowGroups: [IcebergTableScanTests.chunk(10 ... 14), IcebergTableScanTests.chunk(15 ... 19)])
        try table.commit(data: [a])                                                   // sequence 1: rows 0–9 are ids 10–19
        let b = try table.writeFile(Self.columns, rowGroups: [IcebergTableScanTests.chunk(100 ... 104)])
        let first = try table.writePositionDeletes([(a.filePath, 7), (a.filePath, 1), (b.filePath, 0), ("/elsewhere.parquet", 3)])
        try table.commit(data: [b], deletes: [first])                                 // sequence 2: applies to B too
        let c = try table.writeFile(Self.columns, rowGroups: [IcebergTableScanTests.chunk(200 ... 202)])
        let second = try table.writePositionDeletes([(a.filePath, 2), (c.filePath, 0)])
        var onlyB = try table.writePositionDeletes([(b.filePath, 4)])
        onlyB.referencedDataFile = b.filePath
        try table.commit(data: [c], deletes: [second, onlyB])                         // sequence 3

        let plan = try table.scan.plan(fields: [1])
        let deletesByFile = Dictionary(uniqueKeysWithValues: plan.tasks.map { ($0.dataFile.filePath, Set($0.deletes.map(\.file.filePath))) })
        #expect(deletesByFile[a.filePath] == [first.filePath, second.filePath])
        #expect(deletesByFile[b.filePath] == [first.filePath, second.filePath, onlyB.filePath])
        #expect(deletesByFile[c.filePath] == [second.filePath])                        // `first` is older than C

        var statistics = IcebergScanReadStatistics()
        let scan = table.scan
        let ids = Self.ids(try scan.rows(plan, statistics: &statistics))
        #expect(ids == [10, 13, 14, 15, 16, 18, 19, 101, 102, 103, 201, 202])
        #expect(statistics.rowsDeleted == 6)
        // Each delete file was decoded once and kept for the other tasks.
        #expect(scan.deleteCache.positionDeletes(first.filePath)?.positions.count == 4)
    }

    @Test func partitionedDeletesStayInTheirPartition() throws {
        let schema = IcebergSchema(fields: Self.schema.fields + [IcebergNestedField(id: 4, name: "region", isRequired: false, type: .string)])
        let spec = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 4, fieldID: 1000, name: "region", transform: .identity)])
        let table = IcebergScanTestTable("partitioned-deletes", schema: schema, spec: spec)
        let columns = schema.fields.map { ParquetColumnSchema(name: $0.name, type: try! $0.type.sluiceType(), fieldID: Int32($0.id)) }
        func file(_ region: String) throws -> IcebergDataFile {
            var chunk = IcebergTableScanTests.chunk(1 ... 3)
            chunk.columns.append(Column(type: .varchar, repeating: .string(region), count: 3))
            return try table.writeFile(columns, rowGroups: [chunk], partition: [.string(region)])
        }
        let eu = try file("eu"), us = try file("us")
        try table.commit(data: [eu, us])
        let delete = try table.writeFile([ParquetColumnSchema(name: "id", type: .int64, fieldID: 1)], rowGroups: [idChunk([2])],
                                         partition: [.string("eu")], content: .equalityDeletes, equalityIDs: [1])
        let positions = try table.writePositionDeletes([(us.filePath, 0), (eu.filePath, 0)], partition: [.string("us")])
        try table.commit(deletes: [delete, positions])
        let rows = try table.scan.rows(fields: [4, 1])
        let pairs = Set(rows.map { "\($0[0])/\($0[1])" })
        // eu loses id 2 (equality); us loses row 0, id 1 (its position delete lives in us only).
        #expect(pairs == Set(["string(\"eu\")/int64(1)", "string(\"eu\")/int64(3)", "string(\"us\")/int64(2)", "string(\"us\")/int64(3)"]))
    }

    @Test func positionDeleteRowsAreFoundByPathSortedOrNot() {
        func rows(_ pairs: [(String, Int64)]) -> IcebergPositionDeleteRows {
            var paths = VarBytes()
            for (path, _) in pairs { paths.append(path) }
            return IcebergPositionDeleteRows(paths: paths, positions: pairs.map(\.1))
        }
        let sorted = rows([("a", 1), ("b", 0), ("b", 4), ("bb", 2), ("c", 9)])
        let unsorted = rows([("c", 9), ("b", 0), ("a", 1), ("b", 4)])
        #expect(sorted.isSortedByPath && !unsorted.isSortedByPath)
        for (deletes, expected) in [(sorted, [Int64(0), 4]), (unsorted, [0, 4])] {
            var found: [Int64] = []
            deletes.appendPositions(of: Array("b".utf8), to: &found)
            #expect(found == expected)
        }
        var none: [Int64] = []
        sorted.appendPositions(of: Array("ab".utf8), to: &none)
        #expect(none.isEmpty)
    }

    @Test func removingSortedPositionsFromARowGroup() {
        var keep = Bitmap(count: 5, value: true)
        // Rows 10–14 of the file; positions outside the group are ignored, duplicates count once.
        #expect(IcebergTableScan.removePositions([1, 10, 12, 12, 14, 15], from: &keep, firstRow: 10) == 3)
        #expect((0 ..< 5).map { keep[$0] } == [false, true, false, true, false])
    }

    @Test func theEqualitySetMatchesTypedKeysAndNulls() {
        let keys = [Column(type: .int64, values: [.int64(1), .null, .int64(3)]), Column(type: .varchar, values: [.string("a"), .string("b"), .null])]
        let set = IcebergEqualityDeleteSet(fieldIDs: [1, 2], keys: keys)
        let data = [
            Column(type: .int64, values: [.int64(1), .int64(1), .null, .int64(3), .int64(3), .null]),
            Column(type: .varchar, values: [.string("a"), .string("b"), .string("b"), .null, .string(""), .null]),
        ]
        var keep = Bitmap(count: 6, value: true)
        #expect(set.removeMatches(data, from: &keep) == 3)
        #expect((0 ..< 6).map { keep[$0] } == [false, true, false, false, true, true])
    }
}

/// Writes the position-delete table of ``IcebergScanDeleteTests`` for an outside reader when
/// `SLUICE_SCAN_INTEROP_DIR` is set (`Fixtures/check_with_pyiceberg.py` reads it back with
/// pyiceberg and compares with what this reader returns); otherwise does nothing.
@Suite struct IcebergScanInteropExport {
    @Test func exportATableWithDeletesForPyiceberg() throws {
        guard let directory = ProcessInfo.processInfo.environment["SLUICE_SCAN_INTEROP_DIR"] else { return }
        let table = IcebergScanTestTable("interop", schema: IcebergScanDeleteTests.schema)
        let a = try table.writeFile(IcebergScanDeleteTests.columns, rowGroups: [IcebergTableScanTests.chunk(10 ... 14), IcebergTableScanTests.chunk(15 ... 19)])
        try table.commit(data: [a])
        let b = try table.writeFile(IcebergScanDeleteTests.columns, rowGroups: [IcebergTableScanTests.chunk(100 ... 104)])
        try table.commit(data: [b], deletes: [try table.writePositionDeletes([(a.filePath, 7), (a.filePath, 1), (b.filePath, 0)])])
        let c = try table.writeFile(IcebergScanDeleteTests.columns, rowGroups: [IcebergTableScanTests.chunk(200 ... 202)])
        try table.commit(data: [c], deletes: [try table.writePositionDeletes([(a.filePath, 2), (c.filePath, 0)])])
        let ids = IcebergScanDeleteTests.ids(try table.scan.rows(fields: [1]))
        // Keep the files: copy the table directory out before the helper removes it.
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.copyItem(atPath: table.directory, toPath: directory)
        try Data(table.metadata.json.bytes).write(to: URL(fileURLWithPath: directory + "/metadata/v1.metadata.json"))
        try Data("\(table.directory)\n\(ids.map(String.init).joined(separator: ","))\n".utf8).write(to: URL(fileURLWithPath: directory + "/sluice.txt"))
    }
}
