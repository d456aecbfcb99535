import Testing

@testable import SluiceCore

/// A gather across several chunks picks the same values as laying them end to end and gathering
/// from the whole, for every physical layout, with NULLs in some sources and not others: from a
/// few sources, and from many picked a row at a time (which lays the flat layouts end to end
/// first).
@Suite struct GatherAcrossTests {
    @Test(arguments: [(4, 40), (40, 400)])
    func gatherAcrossChunksEqualsGatherFromTheirConcatenation(sourceCount: Int, pickCount: Int) {
        let types: [DataType] = [
            .int64, .varchar, .boolean, .float64, .decimal(precision: nil, scale: nil), .interval, .int32, .list(.int64),
            .structure([StructField(name: "a", type: .int64), StructField(name: "b", type: .varchar)]),
        ]
        var random = SplitMix64(seed: 9)
        func value(_ type: DataType, _ i: Int) -> Value {
            switch type {
            case .int64: .int64(Int64(i) * 7)
            case .varchar: .string(String(repeating: "x", count: i % 5) + "\(i)")
            case .boolean: .bool(i % 2 == 0)
            case .float64: .float64(Double(i) / 3)
            case .decimal: .decimal(Decimal(mantissa: Int128(i), scale: Int16(i % 3)))
            case .interval: .interval(Interval(months: Int32(i), days: 1, microseconds: 2))
            case .int32: .int32(Int32(i))
            case .list: .list([.int64(Int64(i)), .null])
            default: .structure([.int64(Int64(i)), .string("s\(i)")])
            }
        }
        var chunks: [Chunk] = []
        var start = 0
        for source in 0 ..< sourceCount {
            let count = Int(random.next() % 6) + 1
            chunks.append(Chunk(columns: types.map { type in
                Column(type: type, values: (start ..< start + count).map { i in
                    source % 3 == 1 && i % 2 == 1 ? .null : value(type, i)
                })
            }, count: count))
            start += count
        }
        var picks: [(source: Int32, row: Int32)] = []
        var flat: [Int] = []
        let offsets = chunks.indices.map { index in chunks[..<index].reduce(0) { $0 + $1.count } }
        for _ in 0 ..< pickCount {
            let source = Int(random.next() % UInt64(chunks.count))
            let row = Int(random.next() % UInt64(chunks[source].count))
            picks.append((Int32(source), Int32(row)))
            flat.append(offsets[source] + row)
        }
        let across = Chunk.gather(from: chunks, picks: picks, types: types)
        let expected = Chunk.concatenate(chunks, types: types).gather(flat)
        #expect(across.count == picks.count)
        #expect((0 ..< across.count).allSatisfy { across.row($0) == expected.row($0) })
        // And both are the picked rows, read from their sources value by value.
        #expect(picks.indices.allSatisfy { expected.row($0) == chunks[Int(picks[$0].source)].row(Int(picks[$0].row)) })
    }

    /// A slice copies runs of each layout; it holds the same rows as picking them one by one,
    /// at every start and end (bit offsets within and across validity words included).
    @Test func aSliceHoldsTheRowsOfItsRangeInEveryLayout() {
        let types: [DataType] = [
            .int64, .varchar, .boolean, .float64, .decimal(precision: nil, scale: nil), .interval, .int32, .list(.int64),
            .structure([StructField(name: "a", type: .int64), StructField(name: "b", type: .varchar)]),
        ]
        func value(_ type: DataType, _ i: Int) -> Value {
            if i % 3 == 1 || i % 7 == 0 { return .null }
            switch type {
            case .int64: return .int64(Int64(i) * 7)
            case .varchar: return .string(String(repeating: "y", count: i % 4) + "\(i)")
            case .boolean: return .bool(i % 2 == 0)
            case .float64: return .float64(Double(i) / 3)
            case .decimal: return .decimal(Decimal(mantissa: Int128(i), scale: Int16(i % 3)))
            case .interval: return .interval(Interval(months: Int32(i), days: 1, microseconds: 2))
            case .int32: return .int32(Int32(i))
            case .list: return .list([.int64(Int64(i)), .null])
            default: return .structure([.int64(Int64(i)), .string("s\(i)")])
            }
        }
        let count = 200
        let chunk = Chunk(columns: types.map { type in Column(type: type, values: (0 ..< count).map { value(type, $0) }) }, count: count)
        for range in [0 ..< 0, 0 ..< 1, 0 ..< 64, 1 ..< 65, 63 ..< 129, 64 ..< 200, 5 ..< 6, 70 ..< 199, 0 ..< 200] {
            let slice = chunk.slice(range)
            #expect(slice.count == range.count)
            #expect(slice.columns.allSatisfy { $0.count == range.count })
            #expect((0 ..< range.count).allSatisfy { slice.row($0) == chunk.row(range.lowerBound + $0) }, "rows \(range)")
        }
    }
}
