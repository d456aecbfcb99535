import SluiceCore
import SluiceState
import Testing

@Suite struct TableStoreTests {
    @Test func insertWithPrimaryKeyReplacesTheOldRow() throws {
        let store = TableStore(types: [.int64, .varchar], primaryKey: [0])
        try store.insert(Chunk(columns: [int64s([1, 2]), strings(["a", "b"])]))
        try store.insert(Chunk(columns: [int64s([2, 3, 3]), strings(["B", "c", "C"])]))
        let rows = Set(Chunk.concatenate(store.snapshot().chunks, types: store.types).rows)
        #expect(rows == [[.int64(1), .string("a")], [.int64(2), .string("B")], [.int64(3), .string("C")]])
        #expect(store.rowCount == 3)
    }

    @Test func upsertReportsTheRowsItReplaced() throws {
        let store = TableStore(types: [.int64, .int64], primaryKey: [0])
        try store.insert(Chunk(columns: [int64s([1, 2]), int64s([10, 20])]))
        let result = try store.insert(Chunk(columns: [int64s([2, 3, 3]), int64s([21, 30, 31])]))
        #expect(result.inserted.rows == [[.int64(2), .int64(21)], [.int64(3), .int64(31)]])
        #expect(result.replaced?.rows == [[.int64(2), .int64(20)]])
    }

    /// Upserts and deletes by key, in batches of many sizes over keys spread across pages: the
    /// rows each upsert replaced and each delete removed (found among writes not yet committed
    /// as well as committed ones) and, read now and then, the rows and their count agree with a
    /// dictionary.
    @Test(arguments: [UInt64(9), 10])
    func upsertsAndDeletesAgreeWithAModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let store = TableStore(types: [.int64, .int64], primaryKey: [0])
        var model: [Int64: Int64] = [:]
        for step in 0 ..< 600 {
            let size = random.next() % 4 == 0 ? Int(random.next() % 3000) : Int(1 + random.next() % 12)
            let keys = (0 ..< size).map { _ in Int64(random.next() % 5000) }
            if random.next() % 3 == 0 {
                let removed = store.delete(keysOf: Chunk(columns: [int64s(keys), int64s(keys.map { _ in 0 })]))
                let expected = Set(keys.compactMap { key in model[key].map { [Value.int64(key), .int64($0)] } })
                #expect(Set(removed?.rows ?? []) == expected && (removed?.count ?? 0) == expected.count, "step \(step)")
                for key in keys { model[key] = nil }
            } else {
                let values = keys.indices.map { Int64(step * 10_000 + $0) }
                let result = try store.insert(Chunk(columns: [int64s(keys), int64s(values)]))
                let expected = Set(Set(keys).compactMap { key in model[key].map { [Value.int64(key), .int64($0)] } })
                #expect(Set(result.replaced?.rows ?? []) == expected && (result.replaced?.count ?? 0) == expected.count, "step \(step)")
                for (key, value) in zip(keys, values) { model[key] = value }
            }
            guard step % 7 == 0 || step == 599 else { continue }
            let rows = store.snapshot().chunks.flatMap(\.rows)
            #expect(rows.count == model.count && store.rowCount == model.count, "step \(step)")
            #expect(Set(rows) == Set(model.map { [Value.int64($0.key), .int64($0.value)] }), "step \(step)")
        }
    }

    /// A table without a key takes chunks of every size (large ones become pages as they are,
    /// small ones wait to commit), removals of equal rows and rewrites: its rows, in insertion
    /// order, agree with an array.
    @Test func aBagOfRowsAgreesWithAModel() throws {
        var random = SplitMix64(seed: 11)
        let store = TableStore(types: [.int64], primaryKey: [])
        var model: [Int64] = []
        for step in 0 ..< 300 {
            switch random.next() % 5 {
            case 0:
                let doomed = (0 ..< Int(1 + random.next() % 4)).map { _ in Int64(random.next() % 50) }
                let removed = store.removeRows(equalTo: Chunk(columns: [int64s(doomed)]))
                var expected = 0
                for value in doomed {
                    if let index = model.firstIndex(of: value) {
                        model.remove(at: index)
                        expected += 1
                    }
                }
                #expect(removed == expected, "step \(step)")
            case 1:
                let limit = Int64(random.next() % 50)
                let result = try store.rewrite { (chunk: Chunk) throws(SluiceError) -> (removed: Bitmap?, reinserted: Chunk?) in
                    guard case .int64(let values) = chunk.columns[0].storage else { return (nil, nil) }
                    return (Bitmap(bits: values.map { $0 < limit }), nil)
                }
                #expect(result.removed.reduce(0) { $0 + $1.count } == model.filter { $0 < limit }.count, "step \(step)")
                model.removeAll { $0 < limit }
            default:
                let count = random.next() % 3 == 0 ? Int(500 + random.next() % 1500) : Int(1 + random.next() % 20)
                let values = (0 ..< count).map { _ in Int64(random.next() % 50) }
                try store.insert(Chunk(columns: [int64s(values)]))
                model += values
            }
            guard step % 5 == 0 || step == 299 else { continue }
            #expect(store.snapshot().chunks.flatMap(\.rows) == model.map { [Value.int64($0)] }, "step \(step)")
            #expect(store.rowCount == model.count, "step \(step)")
        }
    }

    @Test func nullPrimaryKeyIsRejected() {
        let store = TableStore(types: [.int64], primaryKey: [0])
        #expect(throws: SluiceError.self) { try store.insert(Chunk(columns: [int64s([nil])])) }
    }

    @Test func rewriteRemovesAndReinsertsRows() throws {
        let store = TableStore(types: [.int64], primaryKey: [])
        try store.insert(Chunk(columns: [int64s([1, 2, 3])]))
        let result = try store.rewrite { (chunk: Chunk) throws(SluiceError) -> (removed: Bitmap?, reinserted: Chunk?) in
            (Bitmap(bits: [false, true, true]), Chunk(columns: [int64s([20, 30])]))
        }
        #expect(result.removed.flatMap(\.rows) == [[.int64(2)], [.int64(3)]])
        #expect(result.inserted.map(\.count) == [2])
        #expect(result.replaced.isEmpty)
        #expect(Set(Chunk.concatenate(store.snapshot().chunks, types: [.int64]).rows) == [[.int64(1)], [.int64(20)], [.int64(30)]])
    }

    @Test func chunkCodecRoundTripsEveryLayout() throws {
        let structType = DataType.structure([StructField(name: "a", type: .int32), StructField(name: "b", type: .varchar)])
        let types: [DataType] = [.boolean, .int16, .int32, .int64, .float32, .float64, .numeric, .varchar, .date, .timestamp, .interval, structType]
        let rows: [[Value]] = [
            [.bool(true), .int16(-2), .int32(3), .int64(-4), .float32(1.5), .float64(-2.25), .decimal(Decimal(mantissa: 12345, scale: 2)),
             .string("héllo"), .date(19000), .timestamp(1_700_000_000_000_000), .interval(Interval(months: 1, days: 2, microseconds: 3)),
             .structure([.int32(7), .string("x")])],
            types.map { _ in .null },
        ]
        let chunk = Chunk(columns: types.indices.map { index in Column(type: types[index], values: rows.map { $0[index] }) })
        var bytes: [UInt8] = []
        ChunkCodec.encode(chunk, into: &bytes)
        ChunkCodec.encode(chunk, into: &bytes)
        var offset = 0
        let first = try ChunkCodec.decode(bytes, offset: &offset, types: types)
        let second = try ChunkCodec.decode(bytes, offset: &offset, types: types)
        #expect(first.rows == rows)
        #expect(second.rows == rows)
        #expect(offset == bytes.count)
        var truncatedOffset = 0
        #expect(throws: SluiceError.self) { try ChunkCodec.decode(Array(bytes.prefix(20)), offset: &truncatedOffset, types: types) }
    }
}
