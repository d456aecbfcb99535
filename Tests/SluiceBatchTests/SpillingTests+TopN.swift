import Foundation
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceBatch

/// ORDER BY … LIMIT as a bounded top-N, and sorts that spill rather than fail when the memory
/// is spent below them, against stable sorts in plain Swift.
extension SpillingTests {
    /// ORDER BY text DESC NULLS FIRST, bigint ASC (nulls last), then input order: the row
    /// numbers of `rows` in that order.
    func stableOrder(_ rows: [(Int64?, String?, Int64?)]) -> [Int64] {
        rows.sorted { a, b in
            if a.1 != b.1 {
                guard let x = a.1 else { return true }
                guard let y = b.1 else { return false }
                return x > y
            }
            if a.0 != b.0 {
                guard let x = a.0 else { return false }
                guard let y = b.0 else { return true }
                return x < y
            }
            return a.2! < b.2!
        }.map { $0.2! }
    }

    var textThenNumber: [SortKey] { [SortKey(column: 1, descending: true, nullsFirst: true), SortKey(column: 0)] }

    @Test(arguments: [(1, 0), (10, 0), (25, 5), (0, 3), (700, 1_500), (5_000, 0), (10, 29_995), (100, 40_000)])
    func aTopNGivesTheStableSortsRows(limit: Int, offset: Int) throws {
        // Few distinct keys: many ties, which keep their input order.
        let rows = randomRows(30_000, keys: 40, seed: 21)
        let (executor, memory) = executor([1: try table(rows)], limit: 1 << 30)
        let plan = BatchPlan.topN(input: scan(1), keys: textThenNumber, limit: limit, offset: offset)
        let got = try executor.run(plan).flatMap(\.rows).map { $0[2] }
        let expected = stableOrder(rows).dropFirst(offset).prefix(limit).map(Value.int64)
        #expect(got == Array(expected))
        #expect(memory.spilledBytes == 0)
    }

    /// A top-N holds its rows and a batch of candidates, not its input: ten rows of 30,000.
    @Test func aTopNHoldsOnlyItsRows() throws {
        let rows = randomRows(30_000, keys: 5_000, seed: 22)
        let (whole, wholeMemory) = executor([1: try table(rows)], limit: 1 << 30)
        _ = try whole.run(.sort(input: scan(1), keys: textThenNumber))
        let (top, topMemory) = executor([1: try table(rows)], limit: 1 << 30)
        let got = try top.run(.limit(input: .sort(input: scan(1), keys: textThenNumber), limit: 10, offset: 0)).flatMap(\.rows).map { $0[2] }
        #expect(got == stableOrder(rows).prefix(10).map(Value.int64))
        #expect(topMemory.peak < wholeMemory.peak / 10, "top-N peak \(topMemory.peak), whole sort \(wholeMemory.peak)")
    }

    /// When the rows a top-N keeps do not fit in the query's memory, it sorts whole, spilling.
    @Test func aTopNWhoseRowsDoNotFitSpillsAsAWholeSort() throws {
        let rows = randomRows(30_000, keys: 3_000, seed: 23)
        let (executor, memory) = executor([1: try table(rows)], limit: 100_000)
        let got = try executor.run(.topN(input: scan(1), keys: textThenNumber, limit: 20_000, offset: 1_000)).flatMap(\.rows).map { $0[2] }
        #expect(memory.spilledBytes > 0)
        #expect(got == stableOrder(rows).dropFirst(1_000).prefix(20_000).map(Value.int64))
    }

    /// GROUP BY k ORDER BY count DESC, k LIMIT 1 and the same ORDER BY without a limit, where
    /// the aggregate's groups take all the server's memory for queries: the top-N holds its one
    /// row within the operators' minimum and the sort spills in small runs; neither fails.
    @Test func aTopNAndASortAboveAnAggregateThatSpentTheServersMemoryRun() throws {
        let rows = randomRows(40_000, keys: 8_000, seed: 24)
        let server = ServerQueryMemory(limit: 60_000)
        func executor() throws -> (BatchExecutor, QueryMemory) {
            let memory = QueryMemory(limit: 200_000, spillDirectory: directory, server: server)
            return (BatchExecutor(tables: TestTables(stores: [1: try table(rows)]), context: EvaluationContext(), memory: memory), memory)
        }
        let grouped = BatchPlan.hashAggregate(
            input: .project(input: scan(1), expressions: [.column(0, .int64)]), groupCount: 1,
            aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)])
        let order = [SortKey(column: 1, descending: true), SortKey(column: 0)]
        var counts: [Int64?: Int64] = [:]
        for row in rows { counts[row.0, default: 0] += 1 }
        let expected = counts.sorted { a, b in
            if a.value != b.value { return a.value > b.value }
            guard let x = a.key else { return false }
            guard let y = b.key else { return true }
            return x < y
        }.map { "\([$0.key.map(Value.int64) ?? .null, .int64($0.value)])" }

        let (top, topMemory) = try executor()
        let first = try top.run(.limit(input: .sort(input: grouped, keys: order), limit: 1, offset: 0)).flatMap(\.rows).map { "\($0)" }
        #expect(topMemory.spilledBytes > 0)
        #expect(first == Array(expected.prefix(1)))

        let (whole, wholeMemory) = try executor()
        let sorted = try whole.run(.sort(input: grouped, keys: order)).flatMap(\.rows).map { "\($0)" }
        #expect(wholeMemory.spilledBytes > 0)
        #expect(sorted == expected)
        // Everything held was given back once the rows were read.
        #expect(topMemory.reserved == 0 && wholeMemory.reserved == 0 && server.inUse == 0)
    }

    /// Runs past the merge's width are merged in passes, and the order stays stable.
    @Test func aSortOfManyRunsMergesThemInPasses() throws {
        let rows = randomRows(30_000, keys: 300, seed: 25)
        let memory = QueryMemory(limit: 40_000, spillDirectory: directory)
        let chunks = try table(rows).snapshot().chunks
        var sort = ExternalSort(types: [.int64, .varchar, .int64], keys: textThenNumber, memory: memory, isCancelled: { false })
        sort.mergeWidth = 3
        let got = try sort.sort(ChunkStream.of(chunks)).drain().flatMap(\.rows).map { $0[2] }
        #expect(memory.spilledBytes > 30_000 * 10)
        #expect(got == stableOrder(rows).map(Value.int64))
    }

    /// A chunk's rows against a boundary row, a key column at a time, agree with the sort's
    /// row comparison for every column type, direction and null placement.
    @Test func rowsBeforeABoundaryAreTheRowsTheSortPutsBeforeIt() throws {
        var random = SplitMix64(seed: 26)
        let count = 3_000
        func maybe<T>(_ value: T) -> T? { random.next() % 7 == 0 ? nil : value }
        let chunk = Chunk(columns: [
            Column(type: .int32, values: (0 ..< count).map { _ in maybe(Int32(random.next() % 5)).map(Value.int32) ?? .null }),
            Column(type: .float64, values: (0 ..< count).map { _ in maybe([Double.nan, -1.5, 0, 2.25][Int(random.next() % 4)]).map(Value.float64) ?? .null }),
            strings((0 ..< count).map { _ in maybe(["", "a", "ab", "b", "ba"][Int(random.next() % 5)]) }),
            Column(type: .boolean, values: (0 ..< count).map { _ in maybe(random.next() % 2 == 0).map(Value.bool) ?? .null }),
            int64s((0 ..< count).map { _ in maybe(Int64(random.next() % 3) - 1) }),
            Column(type: .numeric, values: (0 ..< count).map { _ in maybe(SluiceCore.Decimal(Int64(random.next() % 4))).map(Value.decimal) ?? .null }),
        ])
        for trial in 0 ..< 40 {
            let columns = Array(0 ..< 6).shuffled(using: &random).prefix(Int(random.next() % 3) + 1)
            let keys = columns.map { SortKey(column: $0, descending: random.next() % 2 == 0, nullsFirst: random.next() % 2 == 0) }
            let boundaryRow = Int(random.next() % UInt64(count))
            let boundary = SortBoundary(row: chunk.slice(boundaryRow ..< boundaryRow + 1), keys: keys)
            let expected = (0 ..< count).filter { Sorter.compare(chunk, $0, chunk, boundaryRow, keys: keys) < 0 }
            #expect(boundary.rowsBefore(in: chunk) == expected, "trial \(trial), keys \(keys)")
        }
    }
}
