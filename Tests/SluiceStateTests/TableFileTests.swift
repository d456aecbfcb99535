import Foundation
import SluiceCore
import SluiceState
import Testing

/// Tables recovered from a checkpoint file and read in at their first use: the file is checked
/// whole when it is opened (so reading it in later cannot fail), and a table left on disk
/// applies the changes given meanwhile, in order, as a table read in at once would.
@Suite struct TableFileTests {
    static let types: [DataType] = [.int64, .varchar]

    static func chunk(_ ids: [Int64], _ notes: [String?]) -> Chunk {
        Chunk(columns: [
            Column(type: .int64, values: ids.map(Value.int64)),
            Column(type: .varchar, values: notes.map { $0.map(Value.string) ?? .null }),
        ])
    }

    /// A table file of `chunks` in a new directory; returns its path.
    static func write(_ chunks: [Chunk]) throws -> String {
        let directory = NSTemporaryDirectory() + "sluice-table-file-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var bytes = TableFile.header
        for chunk in chunks { ChunkCodec.encode(chunk, into: &bytes) }
        try Files.writeChecksummed(bytes, to: "\(directory)/table.chunks")
        return "\(directory)/table.chunks"
    }

    static func rows(_ store: TableStore) -> [[Value]] {
        store.snapshot().chunks.flatMap(\.rows).sorted { $0.description < $1.description }
    }

    /// The same history through a store read in at once and one left on disk: equal rows after
    /// it, and the store on disk counts its rows without reading them while only appends came.
    @Test(arguments: [[Int](), [0]])
    func aStoreLeftOnDiskAppliesItsChangesAsOneReadInAtOnce(primaryKey: [Int]) throws {
        let stored = [Self.chunk([1, 2, 3], ["a", nil, "c"]), Self.chunk([4, 5], ["d", "e"])]
        let path = try Self.write(stored)
        defer { try? FileManager.default.removeItem(atPath: Files.directory(of: path)) }
        let eager = TableStore(types: Self.types, primaryKey: primaryKey)
        for chunk in stored { try eager.insert(chunk) }
        let lazy = TableStore(types: Self.types, primaryKey: primaryKey)
        let file = try TableFile.open(path, types: Self.types)
        #expect(file.rowCount == 5)
        lazy.restore(from: file)
        #expect(lazy.rowCount == 5)
        let changes: [(ChangeOp, Chunk)] = [
            (.insert, Self.chunk([6, 2], ["f", "B"])), (.delete, Self.chunk([3], ["c"])), (.insert, Self.chunk([3], ["C"])),
        ]
        for (op, rows) in changes {
            try lazy.replay(op, rows)
            try eager.replay(op, rows)
        }
        if primaryKey.isEmpty {
            // Appends and one delete: the count needs the rows now.
            try lazy.insert(Self.chunk([7], ["g"]))
            try eager.insert(Self.chunk([7], ["g"]))
        } else {
            #expect(try lazy.insert(Self.chunk([1], ["A"])).replaced?.rows == [[.int64(1), .string("a")]])
            try eager.insert(Self.chunk([1], ["A"]))
        }
        #expect(lazy.rowCount == eager.rowCount)
        #expect(Self.rows(lazy) == Self.rows(eager))
        #expect(Self.rows(lazy).count == (primaryKey.isEmpty ? 8 : 6))
    }

    @Test func appendsToAStoreWithoutAKeyAreCountedWithoutReadingIt() throws {
        let path = try Self.write([Self.chunk([1, 2], ["a", "b"])])
        defer { try? FileManager.default.removeItem(atPath: Files.directory(of: path)) }
        let store = TableStore(types: Self.types, primaryKey: [])
        store.restore(from: try TableFile.open(path, types: Self.types))
        try store.replay(.insert, Self.chunk([3], ["c"]))
        try store.insert(Self.chunk([4, 5], ["d", "e"]))
        #expect(store.rowCount == 5)
        #expect(Self.rows(store).map { $0[0] } == [1, 2, 3, 4, 5].map { Value.int64($0) })
    }

    /// Every prefix and every single flipped byte of a stored chunk: `check` accepts exactly
    /// what `decode` decodes, and moves the offset as far.
    @Test func checkAcceptsExactlyWhatDecodeDecodes() throws {
        let structType = DataType.structure([StructField(name: "a", type: .int32), StructField(name: "b", type: .varchar)])
        let types: [DataType] = [.boolean, .int16, .int64, .float64, .numeric, .varchar, .interval, structType, .list(.int32)]
        let rows: [[Value]] = [
            [.bool(true), .int16(-2), .int64(-4), .float64(-2.25), .decimal(Decimal(mantissa: 12345, scale: 2)), .string("héllo"),
             .interval(Interval(months: 1, days: 2, microseconds: 3)), .structure([.int32(7), .string("x")]), .list([.int32(1), .int32(2)])],
            types.map { _ in .null },
        ]
        let chunk = Chunk(columns: types.indices.map { index in Column(type: types[index], values: rows.map { $0[index] }) })
        var bytes: [UInt8] = []
        ChunkCodec.encode(chunk, into: &bytes)
        var variants = (0 ..< bytes.count).map { Array(bytes.prefix($0)) }
        for index in bytes.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var flipped = bytes
                flipped[index] ^= flip
                variants.append(flipped)
            }
        }
        for variant in variants {
            var checkedOffset = 0
            var decodedOffset = 0
            let checked = variant.withUnsafeBytes { try? ChunkCodec.check($0, offset: &checkedOffset, types: types) }
            let decoded = try? ChunkCodec.decode(variant, offset: &decodedOffset, types: types)
            #expect((checked != nil) == (decoded != nil), "\(variant.count) bytes")
            if let checked, let decoded {
                #expect(checked == decoded.count && checkedOffset == decodedOffset)
            }
        }
    }

    /// A table written to ten times its memory budget, a chunk and a row at a time: its commits
    /// evict its coldest pages, so the pages in memory stay near the budget, and every row
    /// reads back (evicted pages read from the spill file), upserts finding evicted keys.
    @Test func aTableLargerThanItsBudgetEvictsPagesAndReadsBackWhole() throws {
        let directory = NSTemporaryDirectory() + "sluice-table-spill-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let memory = StateMemory(limit: 1 << 20, spillDirectory: directory)
        let store = TableStore(types: Self.types, primaryKey: [0], memory: memory)
        let note = String(repeating: "n", count: 100)
        var peak = 0
        for start in stride(from: Int64(0), to: 100_000, by: 1000) {
            let ids = Array(start ..< start + 1000)
            try store.insert(Self.chunk(ids, ids.map { _ in note }))
            _ = store.rowCount  // commits
            peak = max(peak, memory.residentBytes)
        }
        #expect(memory.evictedPages > 0)
        #expect(peak < 4 << 20, "pages in memory peaked at \(peak) bytes against a 1 MiB budget")
        // An upsert of evicted keys replaces them.
        let replaced = try store.insert(Self.chunk([5, 50_005], ["five", "fifty"])).replaced
        #expect(replaced?.rows == [[.int64(5), .string(note)], [.int64(50_005), .string(note)]])
        let rows = store.snapshot().chunks.flatMap(\.rows)
        #expect(rows.count == 100_000)
        #expect(Set(rows.map { $0[0] }) == Set((0 ..< 100_000).map { Value.int64(Int64($0)) }))
        #expect(rows.first { $0[0] == .int64(50_005) }?[1] == .string("fifty"))
    }

    @Test func aDamagedFileIsRefusedWhenOpenedNamingItsPath() throws {
        let path = try Self.write([Self.chunk([1, 2], ["a", "b"])])
        defer { try? FileManager.default.removeItem(atPath: Files.directory(of: path)) }
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[TableFile.header.count + 3] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try TableFile.open(path, types: Self.types)
            Issue.record("a damaged file opened")
        } catch {
            #expect(error.code == .dataCorrupted && error.message.contains(path))
        }
    }
}
