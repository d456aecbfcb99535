import Foundation
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceBatch

/// Sorts, aggregates and joins under a query memory limit far below their data: they spill to
/// disk and give the answers that plain Swift loops over the same values give.
@Suite struct SpillingTests {
    let directory: String = {
        let path = NSTemporaryDirectory() + "sluice-spill-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// A table of `rows` (bigint, varchar, bigint), stored a chunk of 700 rows at a time.
    func table(_ rows: [(Int64?, String?, Int64?)]) throws -> TableStore {
        let store = TableStore(types: [.int64, .varchar, .int64], primaryKey: [])
        for start in stride(from: 0, to: rows.count, by: 700) {
            let part = rows[start ..< min(rows.count, start + 700)]
            try store.insert(Chunk(columns: [int64s(part.map(\.0)), strings(part.map(\.1)), int64s(part.map(\.2))]))
        }
        return store
    }

    func scan(_ id: Int) -> BatchPlan {
        .scan(TableScan(tableID: id, tableName: "t\(id)", columns: [0, 1, 2], columnTypes: [.int64, .varchar, .int64]))
    }

    func executor(_ stores: [Int: TableStore], limit: Int) -> (BatchExecutor, QueryMemory) {
        let memory = QueryMemory(limit: limit, spillDirectory: directory)
        return (BatchExecutor(tables: TestTables(stores: stores), context: EvaluationContext(), memory: memory), memory)
    }

    func randomRows(_ count: Int, keys: UInt64, seed: UInt64) -> [(Int64?, String?, Int64?)] {
        var random = SplitMix64(seed: seed)
        return (0 ..< count).map { index in
            let key = random.next() % 17 == 0 ? nil : Int64(random.next() % keys)
            let text = random.next() % 13 == 0 ? nil : "k\(random.next() % keys)"
            return (key, text, Int64(index))
        }
    }

    @Test func aSortOfMoreRowsThanTheLimitHoldsSpillsItsRunsAndMergesThemStably() throws {
        let rows = randomRows(30_000, keys: 500, seed: 1)
        let (executor, memory) = executor([1: try table(rows)], limit: 200_000)
        // ORDER BY the text descending, nulls first, then the bigint ascending, nulls last.
        let keys = [SortKey(column: 1, descending: true, nullsFirst: true), SortKey(column: 0)]
        let sorted = try executor.run(.sort(input: scan(1), keys: keys))
        #expect(memory.spilledBytes > 0)
        #expect(sorted.allSatisfy { $0.count <= Chunk.preferredSize })
        // Swift's sort is not stable: the row number breaks ties, as a stable sort keeps them.
        let expected = stableOrder(rows)
        let got = sorted.flatMap(\.rows)
        #expect(got.count == expected.count)
        #expect(got.map { $0[2] } == expected.map { Value.int64($0) })
    }

    /// ORDER BY … LIMIT … OFFSET keeps only the rows it needs, and gives the whole sort's rows.
    @Test func aTopNSortGivesTheWholeSortsFirstRows() throws {
        let rows = randomRows(30_000, keys: 50, seed: 6)
        let (executor, memory) = executor([1: try table(rows)], limit: 1 << 30)
        let keys = [SortKey(column: 1, descending: true, nullsFirst: true), SortKey(column: 0, descending: true)]
        let whole = try executor.run(.sort(input: scan(1), keys: keys)).flatMap(\.rows)
        let wholePeak = memory.peak
        let (topExecutor, topMemory) = self.executor([1: try table(rows)], limit: 1 << 30)
        let top = try topExecutor.run(.limit(input: .sort(input: scan(1), keys: keys), limit: 25, offset: 5)).flatMap(\.rows)
        #expect(top.map { "\($0)" } == whole[5 ..< 30].map { "\($0)" })
        #expect(topMemory.peak < wholePeak / 2)
    }

    /// Integer and boolean keys sort on normalized words: every direction and null placement,
    /// bigint keys with and without nulls, against Swift's comparisons of the values.
    @Test(arguments: [false, true])
    func integerAndBooleanKeysSortAsTheirValuesDo(descending: Bool) throws {
        var random = SplitMix64(seed: descending ? 11 : 12)
        let count = 5_000
        let small = (0 ..< count).map { _ in random.next() % 9 == 0 ? nil : Int32(truncatingIfNeeded: random.next() % 7) - 3 }
        let wide = (0 ..< count).map { _ in random.next() % 5 == 0 ? nil : Int64(bitPattern: random.next()) >> Int64(random.next() % 60) }
        let flags = (0 ..< count).map { _ in random.next() % 4 == 0 ? nil : random.next() % 2 == 0 }
        let dense = (0 ..< count).map { _ in Int64(random.next() % 3) }
        let chunk = Chunk(columns: [
            Column(type: .int32, values: small.map { $0.map(Value.int32) ?? .null }), int64s(wide),
            Column(type: .boolean, values: flags.map { $0.map(Value.bool) ?? .null }), int64s(dense),
        ])
        for nullsFirst in [false, true] {
            let keys = [0, 2, 3, 1].map { SortKey(column: $0, descending: descending, nullsFirst: nullsFirst) }
            #expect(NormalizedKeys(chunk, keys: keys) != nil)
            let order = Sorter.permutation(of: chunk, keys: keys)
            func compare<T: Comparable>(_ x: T?, _ y: T?) -> Int {
                switch (x, y) {
                case (nil, nil): return 0
                case (nil, _): return nullsFirst ? -1 : 1
                case (_, nil): return nullsFirst ? 1 : -1
                case (let x?, let y?): return x == y ? 0 : ((x < y) != descending ? -1 : 1)
                }
            }
            let expected = (0 ..< count).sorted { a, b in
                for order in [compare(small[a], small[b]), compare(flags[a].map { $0 ? 1 : 0 }, flags[b].map { $0 ? 1 : 0 }), compare(dense[a], dense[b]), compare(wide[a], wide[b])] where order != 0 {
                    return order < 0
                }
                return a < b
            }
            #expect(order == expected, "nulls first: \(nullsFirst)")
        }
    }

    @Test func anAggregateOfMoreGroupsThanTheLimitHoldsSpillsPartitionsAndSplitsThemAgain() throws {
        let rows = randomRows(40_000, keys: 6_000, seed: 2)
        let (executor, memory) = executor([1: try table(rows)], limit: 20_000)
        // GROUP BY (text, bigint): count(*), sum(row), count(DISTINCT row % 7).
        let input = BatchPlan.project(
            input: scan(1),
            expressions: [
                .column(1, .varchar), .column(0, .int64), .column(2, .int64),
                .call(ScalarFunction.arithmetic(.modulo, .int64)!, [.column(2, .int64), .literal(.int64(7), .int64)]),
            ])
        let plan = BatchPlan.hashAggregate(
            input: input, groupCount: 2,
            aggregates: [
                AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
                AggregateCall(kind: .sum, argument: 2, resultType: .numeric),
                AggregateCall(kind: .count, argument: 3, distinct: true, resultType: .int64),
            ])
        let got = try executor.run(plan).flatMap(\.rows).map { "\($0)" }.sorted()
        #expect(memory.spilledBytes > 0)
        struct Key: Hashable {
            let text: String?
            let number: Int64?
        }
        var groups: [Key: (count: Int64, sum: Int64, residues: Set<Int64>)] = [:]
        for row in rows {
            groups[Key(text: row.1, number: row.0), default: (0, 0, [])].count += 1
            groups[Key(text: row.1, number: row.0)]!.sum += row.2!
            groups[Key(text: row.1, number: row.0)]!.residues.insert(row.2! % 7)
        }
        let expected = groups.map { key, value in
            "\([key.text.map(Value.string) ?? .null, key.number.map(Value.int64) ?? .null, .int64(value.count), .decimal(Decimal(value.sum)), .int64(Int64(value.residues.count))])"
        }.sorted()
        #expect(got.count == expected.count && got == expected)
    }

    @Test(arguments: [JoinKind.inner, .left, .right, .full, .semi, .anti])
    func aHashJoinWhoseBuildSideIsLargerThanTheLimitJoinsPartitionByPartition(kind: JoinKind) throws {
        // ON l.key = r.key AND l.row < r.row
        let residual = ScalarExpr.call(.comparison(.less, .int64), [.column(2, .int64), .column(5, .int64)])
        try checkJoin(kind: kind, sizes: (9_000, 12_000), limit: 60_000) { left, right in
            .hashJoin(HashJoin(left: left, right: right, kind: kind, leftKeys: [0], rightKeys: [0], residual: residual))
        }
    }

    /// The same join as a nested loop whose condition is all residual: the inner side goes to
    /// disk and is read once for each block of outer rows the limit holds.
    @Test(arguments: [JoinKind.inner, .left, .right, .full, .semi, .anti])
    func aNestedLoopWhoseInnerSideIsLargerThanTheLimitJoinsABlockAtATime(kind: JoinKind) throws {
        let condition = ScalarExpr.and([
            .call(.comparison(.equal, .int64), [.column(0, .int64), .column(3, .int64)]),
            .call(.comparison(.less, .int64), [.column(2, .int64), .column(5, .int64)]),
        ])
        try checkJoin(kind: kind, sizes: (2_500, 3_000), limit: 30_000) { left, right in
            .nestedLoopJoin(left: left, right: right, kind: kind, predicate: condition)
        }
    }

    /// `plan` over random tables of `sizes` rows joins them ON l.key = r.key AND l.row < r.row,
    /// spilling under `limit`: its rows are those of Swift loops over the same values.
    func checkJoin(kind: JoinKind, sizes: (Int, Int), limit: Int, plan: (BatchPlan, BatchPlan) -> BatchPlan) throws {
        let left = randomRows(sizes.0, keys: UInt64(sizes.0 / 3), seed: 3)
        let right = randomRows(sizes.1, keys: UInt64(sizes.1 / 3), seed: 4)
        let (executor, memory) = executor([1: try table(left), 2: try table(right)], limit: limit)
        let got = try executor.run(plan(scan(1), scan(2))).flatMap(\.rows).map { "\($0)" }.sorted()
        #expect(memory.spilledBytes > 0)
        #expect(memory.reserved == 0)
        func values(_ row: (Int64?, String?, Int64?)?) -> [Value] {
            guard let row else { return [.null, .null, .null] }
            return [row.0.map(Value.int64) ?? .null, row.1.map(Value.string) ?? .null, row.2.map(Value.int64) ?? .null]
        }
        var expected: [String] = []
        var rightMatched = Set<Int64>()
        let rightByKey = Dictionary(grouping: right.filter { $0.0 != nil }, by: { $0.0! })
        for l in left {
            let matches = l.0.map { key in (rightByKey[key] ?? []).filter { r in l.2! < r.2! } } ?? []
            for r in matches { rightMatched.insert(r.2!) }
            switch kind {
            case .inner, .right: expected += matches.map { "\(values(l) + values($0))" }
            case .left, .full: expected += matches.isEmpty ? ["\(values(l) + values(nil))"] : matches.map { "\(values(l) + values($0))" }
            case .semi: if !matches.isEmpty { expected.append("\(values(l))") }
            case .anti: if matches.isEmpty { expected.append("\(values(l))") }
            }
        }
        if kind == .right || kind == .full {
            for r in right where !rightMatched.contains(r.2!) { expected.append("\(values(nil) + values(r))") }
        }
        expected.sort()
        #expect(got.count == expected.count)
        #expect(got == expected)
    }

    /// UNION's duplicates go as GROUP BY every column's do, spilling too; nulls are one value.
    @Test func aUnionOfMoreDistinctRowsThanTheLimitHoldsSpills() throws {
        let left = randomRows(8_000, keys: 900, seed: 7).map { ($0.0, $0.1, Int64?.none) }
        let right = randomRows(8_000, keys: 900, seed: 8).map { ($0.0, $0.1, Int64?.none) }
        let (executor, memory) = executor([1: try table(left), 2: try table(right)], limit: 20_000)
        let got = try executor.run(.union(inputs: [scan(1), scan(2)], distinct: true)).flatMap(\.rows).map { "\($0)" }.sorted()
        #expect(memory.spilledBytes > 0)
        let expected = Set((left + right).map { row in
            "\([row.0.map(Value.int64) ?? .null, row.1.map(Value.string) ?? .null, Value.null])"
        }).sorted()
        #expect(got == expected)
    }

    /// One key with more rows than the limit holds cannot be split: after the partitions run
    /// out of hash bits (rather than splitting forever), its rows are joined by the block
    /// nested loop, every pair tried, and the join still answers.
    @Test func aBuildSideOfOneKeyLargerThanTheLimitIsJoinedByTheBlockNestedLoop() throws {
        let rows: [(Int64?, String?, Int64?)] = (0 ..< 1_500).map { ($0 % 100 == 0 ? 8 : 7, "same", Int64($0)) }
        let (executor, memory) = executor([1: try table(rows), 2: try table(rows)], limit: 30_000)
        // ON l.key = r.key AND l.row <= r.row: 1,485 rows of key 7 and 15 of key 8.
        let residual = ScalarExpr.call(.comparison(.lessOrEqual, .int64), [.column(2, .int64), .column(5, .int64)])
        let plan = BatchPlan.hashJoin(HashJoin(left: scan(1), right: scan(2), kind: .inner, leftKeys: [0], rightKeys: [0], residual: residual))
        let count = try executor.run(.hashAggregate(input: plan, groupCount: 0, aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)]))
        let expected: Int64 = 1_485 * 1_486 / 2 + 15 * 16 / 2
        #expect(count.flatMap(\.rows) == [[Value.int64(expected)]])
        #expect(memory.spilledBytes > 0)
    }

    /// Without a spill directory the operators fail with 53200 naming themselves, as before.
    @Test func withoutASpillDirectoryTheOperatorsFailWith53200() throws {
        let rows = randomRows(5_000, keys: 5_000, seed: 5)
        let memory = QueryMemory(limit: 20_000)
        let executor = BatchExecutor(tables: TestTables(stores: [1: try table(rows)]), context: EvaluationContext(), memory: memory)
        #expect(throws: SluiceError.self) { try executor.run(.sort(input: scan(1), keys: [SortKey(column: 0)])) }
    }
}
