import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceBatch

/// Tables for tests: id → store.
struct TestTables: TableProvider {
    var stores: [Int: TableStore]
    func store(for tableID: Int) -> TableStore? { stores[tableID] }
}

func int64s(_ values: [Int64?]) -> Column { Column(type: .int64, values: values.map { $0.map(Value.int64) ?? .null }) }
func strings(_ values: [String?]) -> Column { Column(type: .varchar, values: values.map { $0.map(Value.string) ?? .null }) }

func run(_ plan: BatchPlan, tables: [Int: TableStore] = [:]) throws -> [[Value]] {
    let executor = BatchExecutor(tables: TestTables(stores: tables), context: EvaluationContext())
    return try executor.runToChunk(plan).rows
}

func values(_ rows: [[Value]], _ types: [DataType]) -> BatchPlan {
    .values(rows: rows.map { row in zip(row, types).map { ScalarExpr.literal($0.0, $0.1) } }, types: types)
}

@Suite struct HashAggregateTests {
    @Test func groupsBigintKeysIncludingNullAndFoldsEveryAggregate() throws {
        let input = values(
            [[.int64(1), .int64(10)], [.int64(2), .int64(5)], [.int64(1), .null], [.null, .int64(7)], [.int64(1), .int64(-3)]],
            [.int64, .int64])
        let plan = BatchPlan.hashAggregate(
            input: input, groupCount: 1,
            aggregates: [
                AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
                AggregateCall(kind: .count, argument: 1, resultType: .int64),
                AggregateCall(kind: .sum, argument: 1, resultType: .numeric),
                AggregateCall(kind: .min, argument: 1, resultType: .int64),
                AggregateCall(kind: .max, argument: 1, resultType: .int64),
            ])
        let rows = try run(plan)
        // Groups appear in first-seen order: 1, 2, NULL.
        #expect(rows == [
            [.int64(1), .int64(3), .int64(2), .decimal(Decimal(Int64(7))), .int64(-3), .int64(10)],
            [.int64(2), .int64(1), .int64(1), .decimal(Decimal(Int64(5))), .int64(5), .int64(5)],
            [.null, .int64(1), .int64(1), .decimal(Decimal(Int64(7))), .int64(7), .int64(7)],
        ])
    }

    @Test func globalAggregateOverNoRowsGivesOneRow() throws {
        let empty = BatchPlan.filter(input: values([[.int64(1)]], [.int64]), predicate: .literal(.bool(false), .boolean))
        let plan = BatchPlan.hashAggregate(
            input: empty, groupCount: 0,
            aggregates: [
                AggregateCall(kind: .countStar, argument: nil, resultType: .int64),
                AggregateCall(kind: .sum, argument: 0, resultType: .numeric),
                AggregateCall(kind: .max, argument: 0, resultType: .int64),
            ])
        #expect(try run(plan) == [[.int64(0), .null, .null]])
    }

    @Test func averageOfBigintsUsesPostgresScale() throws {
        let plan = BatchPlan.hashAggregate(
            input: values([[.int64(1)], [.int64(2)]], [.int64]), groupCount: 0,
            aggregates: [AggregateCall(kind: .avg, argument: 0, resultType: .numeric)])
        let result = try run(plan)[0][0]
        // PostgreSQL: SELECT avg(x) FROM (VALUES (1::bigint), (2)) v(x) → 1.5000000000000000
        #expect(result.textForm == "1.5000000000000000")
    }

    @Test func distinctAndFilterApplyPerGroup() throws {
        let input = values(
            [
                [.string("a"), .int64(1), .bool(true)], [.string("a"), .int64(1), .bool(true)],
                [.string("a"), .int64(2), .bool(false)], [.string("b"), .int64(3), .null],
            ], [.varchar, .int64, .boolean])
        let plan = BatchPlan.hashAggregate(
            input: input, groupCount: 1,
            aggregates: [
                AggregateCall(kind: .count, argument: 1, distinct: true, resultType: .int64),
                AggregateCall(kind: .countStar, argument: nil, filter: 2, resultType: .int64),
            ])
        #expect(try run(plan) == [[.string("a"), .int64(2), .int64(2)], [.string("b"), .int64(1), .int64(0)]])
    }

    @Test func manyKeysGrowTheTable() throws {
        var keys: [Int64?] = []
        for index in 0 ..< 5000 { keys.append(Int64(index % 2500)) }
        let chunk = Chunk(columns: [int64s(keys)])
        let store = TableStore(types: [.int64], primaryKey: [])
        try store.insert(chunk)
        let plan = BatchPlan.hashAggregate(
            input: .scan(TableScan(tableID: 1, tableName: "t", columns: [0], columnTypes: [.int64])), groupCount: 1,
            aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)])
        let rows = try run(plan, tables: [1: store])
        #expect(rows.count == 2500)
        #expect(rows.allSatisfy { $0[1] == .int64(2) })
    }
}

@Suite struct JoinTests {
    let left = values([[.int64(1), .string("a")], [.int64(2), .string("b")], [.null, .string("n")]], [.int64, .varchar])
    let right = values([[.int64(1), .string("x")], [.int64(1), .string("y")], [.int64(3), .string("z")]], [.int64, .varchar])

    func join(_ kind: JoinKind) throws -> Set<[Value]> {
        Set(try run(.hashJoin(HashJoin(left: left, right: right, kind: kind, leftKeys: [0], rightKeys: [0], residual: nil))))
    }

    @Test func innerJoinMatchesEqualKeysAndNeverNulls() throws {
        #expect(try join(.inner) == [
            [.int64(1), .string("a"), .int64(1), .string("x")], [.int64(1), .string("a"), .int64(1), .string("y")],
        ])
    }

    @Test func outerJoinsPadUnmatchedRowsWithNulls() throws {
        let matched: Set<[Value]> = [
            [.int64(1), .string("a"), .int64(1), .string("x")], [.int64(1), .string("a"), .int64(1), .string("y")],
        ]
        let leftOnly: Set<[Value]> = [[.int64(2), .string("b"), .null, .null], [.null, .string("n"), .null, .null]]
        let rightOnly: Set<[Value]> = [[.null, .null, .int64(3), .string("z")]]
        #expect(try join(.left) == matched.union(leftOnly))
        #expect(try join(.right) == matched.union(rightOnly))
        #expect(try join(.full) == matched.union(leftOnly).union(rightOnly))
    }

    @Test func semiAndAntiJoinsKeepLeftRowsOnce() throws {
        #expect(try join(.semi) == [[.int64(1), .string("a")]])
        #expect(try join(.anti) == [[.int64(2), .string("b")], [.null, .string("n")]])
    }

    @Test func residualDecidesOuterPadding() throws {
        // LEFT JOIN … ON l.k = r.k AND r.v = 'y': 'a' keeps only its 'y' match.
        let residual = ScalarExpr.call(.comparison(.equal, .varchar), [.column(3, .varchar), .literal(.string("y"), .varchar)])
        let rows = Set(try run(.hashJoin(HashJoin(left: left, right: right, kind: .left, leftKeys: [0], rightKeys: [0], residual: residual))))
        #expect(rows == [
            [.int64(1), .string("a"), .int64(1), .string("y")], [.int64(2), .string("b"), .null, .null],
            [.null, .string("n"), .null, .null],
        ])
    }
}

@Suite struct SortLimitSetTests {
    @Test func sortPutsNullsLastAscendingAndFirstDescending() throws {
        let input = values([[.int64(2)], [.null], [.int64(1)]], [.int64])
        #expect(try run(.sort(input: input, keys: [SortKey(column: 0)])) == [[.int64(1)], [.int64(2)], [.null]])
        #expect(try run(.sort(input: input, keys: [SortKey(column: 0, descending: true)])) == [[.null], [.int64(2)], [.int64(1)]])
        #expect(try run(.sort(input: input, keys: [SortKey(column: 0, nullsFirst: true)])) == [[.null], [.int64(1)], [.int64(2)]])
    }

    @Test func limitAndOffsetCrossChunkBoundaries() throws {
        let chunks = [Chunk(columns: [int64s([1, 2, 3])]), Chunk(columns: [int64s([4, 5])])]
        let limited = try ChunkStream.of(chunks).limited(2, offset: 2).drain()
        #expect(Chunk.concatenate(limited, types: [.int64]).rows == [[.int64(3)], [.int64(4)]])
    }

    /// A LIMIT takes no chunk from under it once it has its rows.
    @Test func limitStopsPullingOnceItHasItsRows() throws {
        var pulled = 0
        let source = ChunkStream { () throws(SluiceError) -> Chunk? in
            pulled += 1
            return Chunk(columns: [int64s([Int64(pulled), Int64(pulled)])])
        }
        let limited = try source.limited(3, offset: 1).drain()
        #expect(Chunk.concatenate(limited, types: [.int64]).rows == [[.int64(1)], [.int64(2)], [.int64(2)]])
        #expect(pulled == 2)
    }

    /// The streamed inner hash join gives the materialized join's rows, with keys that fan out
    /// past a chunk (a key matching 1,500 build rows) and null keys on both sides.
    @Test func aStreamedInnerHashJoinEqualsTheWholeJoin() throws {
        var random = SplitMix64(seed: 9)
        let probe = (0 ..< 2500).map { _ in random.next() % 10 == 0 ? nil : Int64(random.next() % 20) }
        let build = (0 ..< 1500).map { _ in Int64(3) } + (0 ..< 700).map { _ in random.next() % 10 == 0 ? nil : Int64(random.next() % 20) }
        let left = BatchPlan.values(rows: probe.map { [ScalarExpr.literal($0.map(Value.int64) ?? .null, .int64)] }, types: [.int64])
        let right = BatchPlan.values(rows: build.map { [ScalarExpr.literal($0.map(Value.int64) ?? .null, .int64)] }, types: [.int64])
        let less = ScalarExpr.call(.comparison(.lessOrEqual, .int64), [.column(0, .int64), .literal(.int64(10), .int64)])
        for residual in [nil, less] {
            let executor = BatchExecutor(tables: TestTables(stores: [:]), context: EvaluationContext())
            let streamed = try executor.run(.hashJoin(HashJoin(left: left, right: right, kind: .inner, leftKeys: [0], rightKeys: [0], residual: residual)))
            #expect(streamed.allSatisfy { $0.count <= Chunk.preferredSize && $0.count > 0 })
            // Every pair, by nested loops over the values.
            var expected: [String] = []
            for case let p? in probe {
                for case let b? in build where p == b && (residual == nil || p <= 10) { expected.append("\([Value.int64(p), .int64(b)])") }
            }
            let rows = { (chunks: [Chunk]) in chunks.flatMap(\.rows).map { "\($0)" }.sorted() }
            #expect(rows(streamed) == expected.sorted() && !expected.isEmpty)
        }
    }

    /// The streamed inner nested-loop join gives the materialized join's rows, in chunks of at
    /// most a chunk's preferred size, with and without a predicate, for probe and build sides of
    /// sizes around the chunk size.
    @Test func aStreamedInnerNestedLoopJoinEqualsTheWholeJoin() throws {
        var random = SplitMix64(seed: 7)
        for (probeCount, buildCount) in [(0, 5), (5, 0), (3, 700), (1500, 2), (40, 1100)] {
            let probe = (0 ..< probeCount).map { _ in Int64(random.next() % 50) }
            let build = (0 ..< buildCount).map { _ in Int64(random.next() % 50) }
            let probeChunks = stride(from: 0, to: probe.count, by: 600).map { Chunk(columns: [int64s(Array(probe[$0 ..< min(probe.count, $0 + 600)]))]) }
            let buildChunk = Chunk(columns: [int64s(build)])
            let less = ScalarExpr.call(.comparison(.less, .int64), [.column(0, .int64), .column(1, .int64)])
            for predicate in [nil, less] {
                let streamed = try JoinExecutor(context: EvaluationContext()).join(
                    probe: ChunkStream.of(probeChunks), build: buildChunk, table: nil, probeKeys: [], kind: .inner, residual: predicate,
                    leftTypes: [.int64]).drain()
                #expect(streamed.allSatisfy { $0.count <= Chunk.preferredSize && $0.count > 0 })
                var expected: [String] = []
                for p in probe {
                    for b in build where predicate == nil || p < b { expected.append("\([Value.int64(p), .int64(b)])") }
                }
                let rows = { (chunks: [Chunk]) in chunks.flatMap(\.rows).map { "\($0)" }.sorted() }
                #expect(rows(streamed) == expected.sorted(), "\(probeCount) x \(buildCount), predicate: \(predicate != nil)")
            }
        }
    }

    @Test func setOperationsFollowSQLMultisetRules() throws {
        let a = values([[.int64(1)], [.int64(1)], [.int64(2)], [.null]], [.int64])
        let b = values([[.int64(1)], [.null], [.int64(3)]], [.int64])
        #expect(Set(try run(.union(inputs: [a, b], distinct: true))) == [[.int64(1)], [.int64(2)], [.int64(3)], [.null]])
        #expect(try run(.union(inputs: [a, b], distinct: false)).count == 7)
        #expect(try run(.setOperation(left: a, right: b, kind: .intersect, all: true)) == [[.int64(1)], [.null]])
        #expect(try run(.setOperation(left: a, right: b, kind: .except, all: true)) == [[.int64(1)], [.int64(2)]])
        #expect(try run(.setOperation(left: a, right: b, kind: .except, all: false)) == [[.int64(2)]])
    }

    @Test func maxOneRowRejectsTwoRows() throws {
        #expect(throws: SluiceError.self) { try run(.maxOneRow(input: values([[.int64(1)], [.int64(2)]], [.int64]))) }
    }
}

@Suite struct GroupTableTests {
    @Test func nullGroupFirstSeenInALaterChunkAndTheSmallestKeyStayApart() throws {
        // UNION ALL keeps its inputs' chunks apart, so the aggregate sees three chunks.
        let chunks = [[Value.int64(1), .int64(2)], [.null, .int64(1), .int64(.min), .null], [.null, .int64(.min), .int64(2)]]
        let input = BatchPlan.union(inputs: chunks.map { values($0.map { [$0] }, [.int64]) }, distinct: false)
        let plan = BatchPlan.hashAggregate(
            input: input, groupCount: 1, aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)])
        #expect(try run(plan) == [
            [.int64(1), .int64(2)], [.int64(2), .int64(2)], [.null, .int64(3)], [.int64(.min), .int64(2)],
        ])
    }
}
