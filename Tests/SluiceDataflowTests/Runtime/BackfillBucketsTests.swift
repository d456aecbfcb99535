import Foundation
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceDataflow

@Suite struct BackfillBucketsTests {
    /// `chunks` chunks of 1,000 rows (vnode, id), the vnodes scattered.
    private static func rows(chunks: Int) -> [(chunk: Chunk, vnodes: [UInt16])] {
        (0 ..< chunks).map { index in
            let ids = (0 ..< 1000).map { Int64(index * 1000 + $0) }
            let vnodes = ids.map { UInt16(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 7) % UInt16(VirtualNode.count) }
            let chunk = Chunk(columns: [
                Column(type: .int64, storage: .int64(vnodes.map(Int64.init))), Column(type: .int64, storage: .int64(ids)),
            ])
            return (chunk, vnodes)
        }
    }

    /// Every row comes back once, in vnode order, whether the runs stay in memory or spill.
    @Test(arguments: [1 << 30, 40_000, 1])
    func rowsComeBackOnceInVnodeOrder(runBytes: Int) throws {
        let buckets = BackfillBuckets(runBytes: runBytes, spillDirectory: NSTemporaryDirectory())
        let input = Self.rows(chunks: 30)
        for (chunk, vnodes) in input { try buckets.add(chunk, vnodes: vnodes) }
        var vnodes: [Int64] = []
        var ids: [Int64] = []
        try buckets.forEachChunk { (chunk: Chunk) throws(SluiceError) in
            guard case .int64(let v) = chunk.columns[0].storage, case .int64(let i) = chunk.columns[1].storage else {
                Issue.record("columns changed type")
                return
            }
            vnodes += v
            ids += i
        }
        #expect(vnodes.count == 30_000)
        #expect(zip(vnodes, vnodes.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(ids.sorted() == (0 ..< 30_000).map(Int64.init))
        #expect(Set(vnodes).count > 200)
    }

    @Test func nothingAddedComesBackAsNothing() throws {
        let buckets = BackfillBuckets(runBytes: 1, spillDirectory: NSTemporaryDirectory())
        var calls = 0
        try buckets.forEachChunk { (_: Chunk) throws(SluiceError) in calls += 1 }
        #expect(calls == 0)
    }

    /// The graph finds the aggregate above a scan and a filter, and the join's sides; the
    /// vnodes it gives are the ones the aggregate keys its groups by.
    @Test func theGraphFeedsTheFirstKeyedOperator() throws {
        let scan = StreamPlan.scan(TableScan(tableID: 1, tableName: "t", columns: [0, 1], columnTypes: [.int64, .int64]))
        let aggregate = StreamPlan.hashAggregate(
            input: scan, groupCount: 1, aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)])
        let graph = try OperatorGraph(plan: aggregate, stateTableBase: 10_000, context: EvaluationContext())
        let point = try #require(graph.backfillPoint(upstream: 0))
        let chunk = Chunk(columns: [Column(type: .int64, storage: .int64([1, 2, 1, 7])), Column(type: .int64, storage: .int64([0, 0, 0, 0]))])
        let vnodes = point.vnodes(chunk)
        #expect(vnodes[0] == vnodes[2])
        #expect(vnodes.allSatisfy { Int($0) < VirtualNode.count })

        let global = StreamPlan.hashAggregate(
            input: scan, groupCount: 0, aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)])
        #expect(try OperatorGraph(plan: global, stateTableBase: 10_000, context: EvaluationContext()).backfillPoint(upstream: 0) == nil)

        let join = StreamPlan.hashJoin(
            StreamHashJoinPlan(
                left: scan, right: .scan(TableScan(tableID: 2, tableName: "u", columns: [0, 1], columnTypes: [.int64, .int64])),
                kind: .inner, leftKeys: [1], rightKeys: [0], residual: nil))
        let joinGraph = try OperatorGraph(plan: join, stateTableBase: 10_000, context: EvaluationContext())
        #expect(joinGraph.backfillPoint(upstream: 0) != nil)
        #expect(joinGraph.backfillPoint(upstream: 1) != nil)
    }
}
