import Foundation
import SluiceCore
import SluiceExpr
import SluicePlan
import Testing

@testable import SluiceBatch

/// The window evaluator reads a partition a chunk at a time, with readers that move on their
/// own (the frame's bounds, the rows entering and leaving an aggregate, peers and sessions
/// ahead). However the partition is cut into chunks, and whether it is held in memory or read
/// back from a spill file, every call gives the values it gives over the partition as one chunk
/// (the form the SQL suites check against PostgreSQL's and DuckDB's answers).
@Suite struct OverWindowTests {
    /// The calls: every kind of frame bound and function, over (key, value) rows.
    static func calls(descending: Bool) -> [WindowCall] {
        func frame(_ units: WindowFrameBounds.Units, _ start: WindowFrameBounds.Bound, _ end: WindowFrameBounds.Bound) -> WindowFrameBounds {
            WindowFrameBounds(units: units, start: start, end: end)
        }
        let two = Value.int64(2)
        var frames: [WindowFrameBounds] = [
            .standard,
            frame(.rows, .preceding(two), .following(.int64(3))),
            frame(.rows, .following(.int64(1)), .following(.int64(4))),
            frame(.rows, .unboundedPreceding, .preceding(.int64(1))),
            frame(.rows, .currentRow, .unboundedFollowing),
            frame(.range, .preceding(two), .following(two)),
            frame(.range, .currentRow, .following(.int64(5))),
            frame(.range, .preceding(.int64(4)), .currentRow),
            frame(.range, .unboundedPreceding, .unboundedFollowing),
        ]
        if !descending { frames.append(frame(.session, .preceding(.int64(3)), .following(.int64(3)))) }
        var calls: [WindowCall] = [
            WindowCall(function: .ranking(.rowNumber), argument: nil, frame: .standard, resultType: .int64),
            WindowCall(function: .ranking(.rank), argument: nil, frame: .standard, resultType: .int64),
            WindowCall(function: .ranking(.denseRank), argument: nil, frame: .standard, resultType: .int64),
            WindowCall(function: .lag, argument: 1, offset: 3, frame: .standard, resultType: .int64),
            WindowCall(function: .lead, argument: 1, offset: 2, defaultValue: 0, frame: .standard, resultType: .int64),
        ]
        for frame in frames {
            calls += [
                WindowCall(function: .aggregate(.sum), argument: 1, frame: frame, resultType: .numeric),
                WindowCall(function: .aggregate(.countStar), argument: nil, frame: frame, resultType: .int64),
                WindowCall(function: .aggregate(.max), argument: 1, frame: frame, resultType: .int64),
                WindowCall(function: .firstValue, argument: 1, frame: frame, resultType: .int64),
                WindowCall(function: .lastValue, argument: 0, frame: frame, resultType: .int64),
            ]
        }
        return calls
    }

    /// A partition of `count` rows sorted by a key with ties and NULLs, and a value with NULLs.
    static func partition(_ count: Int, order: SortKey, seed: UInt64) -> Chunk {
        var random = SplitMix64(seed: seed)
        var keys = (0 ..< count).map { _ in random.next() % 9 == 0 ? nil : Int64(random.next() % UInt64(count / 2 + 1)) }
        keys.sort { a, b in
            switch (a, b) {
            case (nil, nil): return false
            case (nil, _): return order.nullsFirst
            case (_, nil): return !order.nullsFirst
            case (let a?, let b?): return order.descending ? a > b : a < b
            }
        }
        let values = (0 ..< count).map { _ in random.next() % 7 == 0 ? nil : Int64(random.next() % 1_000) - 500 }
        return Chunk(columns: [int64s(keys), int64s(values)])
    }

    /// `rows` cut into chunks of 1 to `longest` rows.
    static func cut(_ rows: Chunk, longest: Int, seed: UInt64) -> [Chunk] {
        var random = SplitMix64(seed: seed)
        var chunks: [Chunk] = []
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + 1 + Int(random.next() % UInt64(longest)))
            chunks.append(rows.slice(start ..< end))
            start = end
        }
        return chunks
    }

    static let orders = [
        SortKey(column: 0), SortKey(column: 0, nullsFirst: true), SortKey(column: 0, descending: true),
        SortKey(column: 0, descending: true, nullsFirst: false),
    ]

    @Test(arguments: orders.indices)
    func anyCutOfThePartitionGivesTheValuesOfTheWhole(order: Int) throws {
        let key = Self.orders[order]
        let calls = Self.calls(descending: key.descending)
        for (seed, count) in [(1, 1), (2, 7), (3, 300), (4, 2_000)] as [(UInt64, Int)] {
            let rows = Self.partition(count, order: key, seed: seed)
            let whole = try OverWindowEvaluation.evaluate(calls, over: rows, order: [key], context: EvaluationContext())
            for longest in [1, 5, 64] {
                var evaluator = OverWindowEvaluator(
                    calls, over: PartitionRows(Self.cut(rows, longest: longest, seed: seed), types: rows.types), order: [key], context: EvaluationContext())
                var parts: [[Column]] = []
                while let (_, values) = try evaluator.next() { parts.append(values) }
                for (index, call) in calls.enumerated() {
                    let cut = Column.concatenate(parts.map { $0[index] }, type: call.resultType)
                    let differ = (0 ..< count).first { cut.value(at: $0) != whole[index].value(at: $0) }
                    #expect(
                        differ == nil,
                        "\(call.explainText) over \(count) rows in chunks of at most \(longest): row \(differ ?? 0) is \(cut.value(at: differ ?? 0)), not \(whole[index].value(at: differ ?? 0))")
                }
            }
        }
    }

    /// The batch operator past the query's memory: the partitions go to a spill file, and the
    /// rows with their values are those evaluated in memory.
    @Test func partitionsLargerThanTheQueryMemoryAreEvaluatedFromDisk() throws {
        let key = SortKey(column: 1)
        let calls = Self.calls(descending: false).map { call in
            // (Over the partition and order columns after the partition column in front.)
            var call = call
            call.argument = call.argument.map { $0 + 1 }
            call.defaultValue = call.defaultValue.map { $0 + 1 }
            return call
        }
        var chunks: [Chunk] = []
        for partition in 0 ..< 3 {
            let rows = Self.partition([5_000, 1, 20_000][partition], order: SortKey(column: 0), seed: UInt64(partition + 10))
            chunks += Self.cut(Chunk(columns: [int64s([Int64?](repeating: Int64(partition), count: rows.count))] + rows.columns), longest: 1_024, seed: 5)
        }
        let directory = NSTemporaryDirectory() + "sluice-window-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func run(limit: Int) throws -> ([[Value]], QueryMemory) {
            let memory = QueryMemory(limit: limit, spillDirectory: directory)
            let executor = BatchExecutor(tables: TestTables(stores: [:]), context: EvaluationContext(), memory: memory)
            let stream = try executor.overWindow(ChunkStream.of(chunks), types: [.int64, .int64, .int64], partitionColumns: [0], order: [key], calls: calls)
            return (try stream.drain().flatMap(\.rows), memory)
        }
        let (inMemory, roomy) = try run(limit: 1 << 30)
        let (fromDisk, tight) = try run(limit: 50_000)
        #expect(roomy.spilledBytes == 0)
        #expect(tight.spilledBytes > 0)
        #expect(fromDisk.count == 25_001)
        #expect(fromDisk.map { "\($0)" } == inMemory.map { "\($0)" })
        #expect(tight.reserved == 0)
    }
}
