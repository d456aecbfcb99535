import SluiceCore
import Testing

@testable import SluiceState

/// Lookups in a ``TableIndex`` against a filter over every row, for each key order.
@Suite struct TableIndexTests {
    /// Rows (a, b) with a in -5...5 or NULL and b in 0..<4, some duplicated.
    func rows(seed: UInt64) -> Chunk {
        var random = SplitMix64(seed: seed)
        var a: [Value] = []
        var b: [Value] = []
        for _ in 0 ..< 1200 {
            let value = Int64(random.next() % 12) - 5
            a.append(value == 6 ? .null : .int64(value))
            b.append(.int32(Int32(random.next() % 4)))
        }
        return Chunk(columns: [Column(type: .int64, values: a), Column(type: .int32, values: b)])
    }

    func pairs(_ chunks: some Sequence<Chunk>) -> [String] {
        chunks.flatMap { chunk in
            (0 ..< chunk.count).map { row in
                chunk.columns.map { $0.isNull(row) ? "NULL" : "\($0.value(at: row))" }.joined(separator: " ")
            }
        }.sorted()
    }

    @Test(arguments: [(false, false), (true, true), (false, true), (true, false)])
    func rangesMatchAFilterInEveryKeyOrder(descending: Bool, nullsFirst: Bool) {
        let data = rows(seed: descending ? 7 : 8)
        let index = TableIndex(types: [.int64, .int32], keys: [SortKey(column: 0, descending: descending, nullsFirst: nullsFirst), SortKey(column: 1)])
        let store = TableStore(types: [.int64, .int32], primaryKey: [])
        _ = try? store.insert(data)
        index.rebuild(from: store)
        // Take some rows back out, as a write would.
        let removed = data.gather(Array(0 ..< 200))
        index.apply([(op: .delete, rows: removed)])
        let remaining = data.gather(Array(200 ..< data.count))
        #expect(index.rowCount == remaining.count)

        func expected(_ keep: (Value, Value) -> Bool) -> [String] {
            pairs([remaining.gather((0 ..< remaining.count).filter { keep(remaining.columns[0].value(at: $0), remaining.columns[1].value(at: $0)) })])
        }
        func number(_ value: Value) -> Int64? { if case .int64(let v) = value { v } else { nil } }
        for low in -6 ... 6 {
            for high in low - 1 ... 6 {
                for (lowInclusive, highInclusive) in [(true, true), (false, true), (true, false), (false, false)] {
                    let found = index.rows(
                        prefix: [], lower: TableIndex.Bound(value: .int64(Int64(low)), inclusive: lowInclusive),
                        upper: TableIndex.Bound(value: .int64(Int64(high)), inclusive: highInclusive))
                    let want = expected { a, _ in
                        guard let a = number(a) else { return false }
                        return (lowInclusive ? a >= low : a > low) && (highInclusive ? a <= high : a < high)
                    }
                    #expect(pairs(found) == want, "\(low) \(high) \(lowInclusive) \(highInclusive)")
                }
            }
            let equal = index.rows(prefix: [.int64(Int64(low))], lower: nil, upper: TableIndex.Bound(value: .int32(1), inclusive: true))
            #expect(pairs(equal) == expected { a, b in number(a) == Int64(low) && (b == .int32(0) || b == .int32(1)) })
        }
        // An open bound may give NULLs too; the rows with a value are all there.
        let open = pairs(index.rows(prefix: [], lower: TableIndex.Bound(value: .int64(2), inclusive: true), upper: nil)).filter { !$0.hasPrefix("NULL") }
        #expect(open == expected { a, _ in (number(a) ?? .min) >= 2 }.filter { !$0.hasPrefix("NULL") })
    }
}
