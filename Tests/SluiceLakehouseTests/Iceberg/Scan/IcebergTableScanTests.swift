import Synchronization
import SluiceCore
import SluiceFormats
import Testing
@testable import SluiceLakehouse

@Suite struct IcebergTableScanTests {
    static let schema = IcebergSchema(fields: [
        IcebergNestedField(id: 1, name: "id", isRequired: false, type: .long),
        IcebergNestedField(id: 2, name: "name", isRequired: false, type: .string),
        IcebergNestedField(id: 3, name: "qty", isRequired: false, type: .int),
    ])

    static func columns(_ schema: IcebergSchema = schema) -> [ParquetColumnSchema] {
        schema.fields.map { ParquetColumnSchema(name: $0.name, type: try! $0.type.sluiceType(), fieldID: Int32($0.id)) }
    }

    /// Rows `ids` with name "n<id>" and qty id % 5 (null when id is a multiple of 5).
    static func chunk(_ ids: ClosedRange<Int64>) -> Chunk {
        Chunk(columns: [
            Column(type: .int64, values: ids.map { .int64($0) }),
            Column(type: .varchar, values: ids.map { .string("n\($0)") }),
            Column(type: .int32, values: ids.map { $0 % 5 == 0 ? .null : .int32(Int32($0 % 5)) }),
        ])
    }

    static func expectedRow(_ id: Int64) -> [Value] {
        [.int64(id), .string("n\(id)"), id % 5 == 0 ? .null : .int32(Int32(id % 5))]
    }

    @Test func everyRowOfEveryFileAndRowGroupComesBack() throws {
        let table = IcebergScanTestTable("all-rows", schema: Self.schema)
        #expect(try table.scan.plan(fields: [1, 2, 3]).tasks.isEmpty)
        let first = try table.writeFile(Self.columns(), rowGroups: [Self.chunk(1 ... 4), Self.chunk(5 ... 9)])
        try table.commit(data: [first])
        let second = try table.writeFile(Self.columns(), rowGroups: [Self.chunk(10 ... 12)])
        let third = try table.writeFile(Self.columns(), rowGroups: [Self.chunk(13 ... 20), Self.chunk(21 ... 22), Self.chunk(23 ... 30)])
        try table.commit(data: [second, third])

        let plan = try table.scan.plan(fields: [1, 2, 3])
        #expect(plan.tasks.count == 3)
        #expect(plan.counters.dataManifests == 2 && plan.counters.dataFiles == 3 && plan.counters.dataFilesPruned == 0)
        #expect(plan.columns == [StructField(name: "id", type: .int64), StructField(name: "name", type: .varchar), StructField(name: "qty", type: .int32)])
        var statistics = IcebergScanReadStatistics()
        let rows = try table.scan.rows(plan, statistics: &statistics)
        #expect(sortedByID(rows) == (1 ... 30).map(Self.expectedRow))
        #expect(statistics.rowGroups == 6 && statistics.rowGroupsPruned == 0 && statistics.rowsRead == 30)

        // Each row group is one chunk.
        let chunks = try table.scan.read(plan.tasks.first { $0.dataFile.filePath == third.filePath }!, fields: [1])
        #expect(chunks.map(\.count) == [8, 2, 8])
    }

    @Test func projectionFindsColumnsByFieldIDAcrossRenamesPromotionsAndAddedColumns() throws {
        let table = IcebergScanTestTable("evolution", schema: Self.schema)
        let old = try table.writeFile(Self.columns(), rowGroups: [Self.chunk(1 ... 3)])
        try table.commit(data: [old])
        // Rename `name` to `label`, promote `qty` int → long, add `price` (a decimal) and
        // `score` (a float promoted later is not possible, so a double from the start).
        let evolved = IcebergSchema(fields: [
            IcebergNestedField(id: 1, name: "id", isRequired: false, type: .long),
            IcebergNestedField(id: 2, name: "label", isRequired: false, type: .string),
            IcebergNestedField(id: 3, name: "qty", isRequired: false, type: .long),
            IcebergNestedField(id: 4, name: "price", isRequired: false, type: .decimal(precision: 12, scale: 2)),
        ])
        try table.evolve(to: evolved)
        // The new file writes `price` as decimal(9, 2), which the table has widened to (12, 2).
        let newColumns = [
            ParquetColumnSchema(name: "id", type: .int64, fieldID: 1),
            ParquetColumnSchema(name: "label", type: .varchar, fieldID: 2),
            ParquetColumnSchema(name: "qty", type: .int64, fieldID: 3),
            ParquetColumnSchema(name: "price", type: .decimal(precision: 9, scale: 2), fieldID: 4),
        ]
        let new = try table.writeFile(newColumns, rowGroups: [Chunk(columns: [
            Column(type: .int64, values: [.int64(4)]), Column(type: .varchar, values: [.string("four")]),
            Column(type: .int64, values: [.int64(40)]), Column(type: .decimal(precision: 9, scale: 2), values: [.decimal(Decimal(mantissa: 1999, scale: 2))]),
        ])])
        try table.commit(data: [new])

        let plan = try table.scan.plan(fields: [4, 2, 3, 1])
        #expect(plan.columns.map(\.name) == ["price", "label", "qty", "id"])
        #expect(plan.columns.map(\.type) == [.decimal(precision: 12, scale: 2), .varchar, .int64, .int64])
        var statistics = IcebergScanReadStatistics()
        var chunks: [Chunk] = []
        for task in plan.tasks { chunks += try table.scan.read(task, fields: plan.fields, statistics: &statistics) }
        for chunk in chunks { #expect(chunk.types == plan.columns.map(\.type)) }
        let rows = chunks.flatMap(\.rows).sorted { "\($0[3])" < "\($1[3])" }
        #expect(rows == [
            [.null, .string("n1"), .int64(1), .int64(1)],
            [.null, .string("n2"), .int64(2), .int64(2)],
            [.null, .string("n3"), .int64(3), .int64(3)],
            [.decimal(Decimal(mantissa: 1999, scale: 2)), .string("four"), .int64(40), .int64(4)],
        ])
        // A projection of nothing still counts rows.
        let counted = try plan.tasks.flatMap { try table.scan.read($0, fields: []) }.reduce(0) { $0 + $1.count }
        #expect(counted == 4)
    }

    @Test func unknownFieldsAndSnapshotsAreErrors() throws {
        let table = IcebergScanTestTable("errors", schema: Self.schema)
        try table.commit(data: [try table.writeFile(Self.columns(), rowGroups: [Self.chunk(1 ... 2)])])
        #expect(throws: SluiceError.self) { try table.scan.plan(fields: [9]) }
        #expect((try? table.scan.plan(fields: [9])) == nil)
        do {
            _ = try IcebergTableScan(metadata: table.metadata, fileIO: table.fileIO, snapshotID: 42).plan(fields: [1])
            Issue.record("a missing snapshot should fail")
        } catch {
            #expect(error.code == .invalidParameterValue)
        }
        do {
            _ = try table.scan.plan(fields: [9])
            Issue.record("an unknown field should fail")
        } catch {
            #expect(error.code == .undefinedColumn)
        }
    }

    @Test func deletedManifestEntriesAreDroppedAndOlderSnapshotsStillReadThem() throws {
        let table = IcebergScanTestTable("removed", schema: Self.schema)
        let first = try table.writeFile(Self.columns(), rowGroups: [Self.chunk(1 ... 5)])
        let second = try table.writeFile(Self.columns(), rowGroups: [Self.chunk(6 ... 8)])
        let before = try table.commit(data: [first, second])
        try table.removeFiles([first.filePath])

        let plan = try table.scan.plan(fields: [1])
        #expect(plan.tasks.map(\.dataFile.filePath) == [second.filePath])
        #expect(plan.tasks.first?.dataSequenceNumber == 1)
        #expect(sortedByID(try table.scan.rows(fields: [1])) == (6 ... 8).map { [.int64($0)] })

        let timeTravel = IcebergTableScan(metadata: table.metadata, fileIO: table.fileIO, snapshotID: before.snapshotID)
        #expect(sortedByID(try timeTravel.rows(fields: [1])) == (1 ... 8).map { [.int64($0)] })
    }

    @Test func nestedStructColumnsAreConformedByFieldID() throws {
        let point = IcebergType.structure(IcebergStructType(fields: [
            IcebergNestedField(id: 3, name: "x", isRequired: false, type: .int),
            IcebergNestedField(id: 4, name: "y", isRequired: false, type: .int),
        ]))
        let schema = IcebergSchema(fields: [
            IcebergNestedField(id: 1, name: "id", isRequired: false, type: .long),
            IcebergNestedField(id: 2, name: "point", isRequired: false, type: point),
        ])
        let table = IcebergScanTestTable("nested", schema: schema)
        // The file's struct has only `x` (id 3): `y` was added later.
        let fileStruct = DataType.structure([StructField(name: "x", type: .int32)])
        let columns = [
            ParquetColumnSchema(name: "id", type: .int64, fieldID: 1),
            ParquetColumnSchema(name: "point", type: fileStruct, nullable: true, fieldID: 2,
                                children: [ParquetColumnSchema(name: "x", type: .int32, fieldID: 3)]),
        ]
        let file = try table.writeFile(columns, rowGroups: [Chunk(columns: [
            Column(type: .int64, values: [.int64(1), .int64(2)]),
            Column(type: fileStruct, values: [.structure([.int32(7)]), .null]),
        ])])
        try table.commit(data: [file])
        let rows = sortedByID(try table.scan.rows(fields: [1, 2]))
        #expect(rows == [[.int64(1), .structure([.int32(7), .null])], [.int64(2), .null]])
    }

    @Test func dataFilesAreReadByRangeNeverWhole() throws {
        let table = IcebergScanTestTable("ranges", schema: Self.schema)
        let file = try table.writeFile(Self.columns(), rowGroups: [Self.chunk(1 ... 50), Self.chunk(51 ... 60)])
        let counting = CountingFileIO(base: table.fileIO)
        // Without prefetching: the footer length, the magic, the footer, then one read per column chunk.
        let plain = try ParquetReader(input: FileIOParquetInput(fileIO: counting, location: file.filePath, size: Int(file.fileSizeInBytes)))
        #expect(counting.counts == (whole: 0, ranged: 3))
        _ = try plain.readRowGroup(1, columns: [0, 2])
        #expect(counting.counts == (whole: 0, ranged: 5))
        // With the tail prefetched the footer costs nothing more; this small file fits in it whole.
        let prefetched = try ParquetReader(input: FileIOParquetInput(fileIO: counting, location: file.filePath, size: Int(file.fileSizeInBytes),
                                                                     prefetchingTail: FileIOParquetInput.defaultTailBytes))
        _ = try prefetched.readRowGroup(0)
        #expect(counting.counts == (whole: 0, ranged: 6))
    }
}

/// Counts whole-object and ranged reads.
final class CountingFileIO: FileIO {
    let base: any FileIO
    private let state = Mutex((whole: 0, ranged: 0))

    init(base: any FileIO) { self.base = base }

    var counts: (whole: Int, ranged: Int) { state.withLock { $0 } }

    func write(_ location: String, _ bytes: [UInt8]) throws(SluiceError) { try base.write(location, bytes) }
    func read(_ location: String) throws(SluiceError) -> [UInt8] {
        state.withLock { $0.whole += 1 }
        return try base.read(location)
    }
    func read(_ location: String, range: Range<Int>) throws(SluiceError) -> [UInt8] {
        state.withLock { $0.ranged += 1 }
        return try base.read(location, range: range)
    }
    func size(_ location: String) throws(SluiceError) -> Int? { try base.size(location) }
    func delete(_ location: String) throws(SluiceError) { try base.delete(location) }
    func list(prefix: String) throws(SluiceError) -> [FileEntry] { try base.list(prefix: prefix) }
    func output(_ location: String) throws(SluiceError) -> any FileOutput { try base.output(location) }
}
