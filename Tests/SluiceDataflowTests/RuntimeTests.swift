import Foundation
import Synchronization
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState
import Testing

@testable import SluiceDataflow

/// Published view contents, as the runtime hands them over at each commit.
private final class Published: Sendable {
    let rows = Mutex<[Int: [Chunk]]>([:])
    let commits = Mutex<[UInt64]>([])

    func record(_ views: [Int: PublishedView], _ epoch: UInt64) {
        rows.withLock { $0.merge(views.mapValues { $0.pages.map(\.published) }) { $1 } }
        commits.withLock { $0.append(epoch) }
    }

    /// View `id`'s rows, sorted, as text.
    func view(_ id: Int) -> [[String]] {
        let chunks = rows.withLock { $0[id] } ?? []
        var result: [[String]] = []
        for chunk in chunks {
            for row in 0 ..< chunk.count { result.append(chunk.columns.map { $0.value(at: row).textForm }) }
        }
        return result.sorted { $0.lexicographicallyPrecedes($1) }
    }
}

private func scan(_ id: Int, _ types: [DataType]) -> StreamPlan {
    .scan(TableScan(tableID: id, tableName: "t\(id)", columns: Array(types.indices), columnTypes: types))
}

private func inserts(_ rows: [[Int64]]) -> StreamChunk {
    let columns = (0 ..< rows[0].count).map { index in Column(type: .int64, values: rows.map { .int64($0[index]) }) }
    return StreamChunk(ops: [ChangeOp](repeating: .insert, count: rows.count), data: Chunk(columns: columns))
}

private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
}

@Suite struct MessageQueueTests {
    @Test func aFullQueueHoldsItsProducerUntilTheConsumerTakesAChunk() async throws {
        let queue = MessageQueue(capacity: 2)
        let chunk = inserts([[1]])
        queue.push(.chunk(chunk), input: 0)
        queue.push(.chunk(chunk), input: 0)
        let pushed = Flag()
        let producer = Thread {
            queue.push(.chunk(chunk), input: 0)
            pushed.value.store(true, ordering: .sequentiallyConsistent)
        }
        producer.start()
        while queue.waitingProducers == 0 { await Task.yield() }
        let pushedEarly = pushed.value.load(ordering: .sequentiallyConsistent)
        #expect(!pushedEarly)
        // Barriers are never held back by a full queue.
        queue.push(.barrier(Barrier(epoch: 1)), input: 0)
        #expect(queue.pop() != nil)
        while !pushed.value.load(ordering: .sequentiallyConsistent) { await Task.yield() }
        var kinds: [String] = []
        for _ in 0 ..< 3 {
            switch queue.pop()?.message {
            case .chunk: kinds.append("chunk")
            case .barrier: kinds.append("barrier")
            default: kinds.append("other")
            }
        }
        #expect(kinds == ["chunk", "barrier", "chunk"])
        queue.close()
        #expect(queue.pop() == nil)
    }
}

@Suite struct StreamRuntimeTests {
    @Test func aViewStartsFromTheTableAndFollowsItsChanges() async throws {
        let published = Published()
        let runtime = StreamRuntime(barrierIntervalMilliseconds: 60_000) { published.record($0, $1) }
        defer { runtime.stop() }
        let plan = StreamPlan.hashAggregate(
            input: scan(1, [.int64, .int64]), groupCount: 1,
            aggregates: [AggregateCall(kind: .sum, argument: 1, resultType: .numeric)])
        let epoch = try runtime.createView(id: 10, name: "v", plan: plan, context: EvaluationContext()) { _ in
            [inserts([[1, 5], [2, 7], [1, 1]]).data]
        }
        await runtime.waitForCommit(epoch)
        #expect(published.view(10) == [["1", "6"], ["2", "7"]])

        runtime.withSource(1) { writer in
            #expect(writer.isRead)
            writer.emit(inserts([[2, 3], [3, 4]]))
            writer.emit(StreamChunk(ops: [.delete], data: inserts([[1, 5]]).data))
        }
        #expect(!runtime.isRead(2))
        await runtime.flush()
        #expect(published.view(10) == [["1", "1"], ["2", "10"], ["3", "4"]])
        // Commits are announced in epoch order.
        let commits = published.commits.withLock { $0 }
        #expect(commits == commits.sorted())
    }

    // The limits below catch a deadlock. They are generous because in a parallel run each
    // `Task.yield()` waits behind every other test ready on the shared pool: on two cores two
    // of these tests once used up a one-minute limit with nothing stuck.
    @Test(.timeLimit(.minutes(10)))
    func aStuckReaderHoldsUpOnlyTheWritersOfWhatItReads() async throws {
        let published = Published()
        let runtime = StreamRuntime(barrierIntervalMilliseconds: 60_000) { published.record($0, $1) }
        defer { runtime.stop() }
        let count = StreamPlan.hashAggregate(
            input: scan(2, [.int64]), groupCount: 0, aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)])
        await runtime.waitForCommit(try runtime.createView(id: 20, name: "n", plan: count, context: EvaluationContext()) { _ in [] })
        // A reader of table 1 that takes nothing: its queue is full after one chunk.
        let stuck = MessageQueue(capacity: 1)
        runtime.subscribe(stuck, to: 1, reader: 99)
        runtime.withSource(1) { writer in writer.emit(inserts([[1]])) }
        let written = Flag()
        let writer = Thread {
            runtime.withSource(1) { writer in writer.emit(inserts([[2]])) }
            written.value.store(true, ordering: .sequentiallyConsistent)
        }
        writer.start()
        while stuck.waitingProducers == 0 { await Task.yield() }
        // Table 2's writers, barriers and the view over table 2 go on meanwhile.
        for round in 0 ..< 5 {
            runtime.withSource(2) { writer in writer.emit(inserts([[Int64(round)]])) }
            await runtime.flush()
        }
        #expect(published.view(20) == [["5"]])
        let writtenEarly = written.value.load(ordering: .sequentiallyConsistent)
        #expect(!writtenEarly)
        // Once the reader takes its chunk, table 1's writer goes on, behind the barriers.
        var taken: [String] = []
        while taken.filter({ $0 == "chunk" }).count < 2 {
            guard let entry = stuck.popOrIdle() else {
                await Task.yield()
                continue
            }
            if case .chunk = entry.message { taken.append("chunk") } else { taken.append("barrier") }
        }
        #expect(taken == ["chunk"] + Array(repeating: "barrier", count: 5) + ["chunk"])
        while !written.value.load(ordering: .sequentiallyConsistent) { await Task.yield() }
    }

    /// Under a memory limit an epoch ends once its changes pass a 32nd of the limit, long before
    /// the barrier interval (ten minutes here) is up.
    @Test(.timeLimit(.minutes(10)))
    func underAMemoryLimitAnEpochIsCutBySize() async throws {
        let published = Published()
        let memory = StateMemory(limit: 32 << 20, spillDirectory: NSTemporaryDirectory())
        let runtime = StreamRuntime(barrierIntervalMilliseconds: 600_000, memory: memory) { published.record($0, $1) }
        runtime.start()
        defer { runtime.stop() }
        let count = StreamPlan.hashAggregate(
            input: scan(1, [.int64]), groupCount: 0, aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)])
        await runtime.waitForCommit(try runtime.createView(id: 30, name: "n", plan: count, context: EvaluationContext()) { _ in [] })
        #expect(published.view(30) == [["0"]])
        // 1 MiB of bigints (the limit's 32nd) is 128 chunks of 1,024 rows: the 128th ends the
        // epoch.
        let chunk = StreamChunk(
            ops: [ChangeOp](repeating: .insert, count: 1024),
            data: Chunk(columns: [Column(type: .int64, storage: .int64((0 ..< 1024).map(Int64.init)))]))
        let epoch = runtime.committedEpoch
        for _ in 0 ..< 127 { runtime.withSource(1) { writer in writer.emit(chunk) } }
        #expect(runtime.committedEpoch == epoch)
        runtime.withSource(1) { writer in writer.emit(chunk) }
        while published.view(30) != [["\(128 * 1024)"]] { await Task.yield() }
        #expect(runtime.committedEpoch == epoch + 1)
    }

    /// A source that reads a backlog and then finds nothing ready ends the epoch at once (the
    /// interval here is ten minutes); one that trickles a chunk at a time does not ask.
    @Test(.timeLimit(.minutes(1)))
    func aSourceThatRunsDryAfterABacklogShowsItsRowsAtOnce() async throws {
        let published = Published()
        let runtime = StreamRuntime(barrierIntervalMilliseconds: 600_000) { published.record($0, $1) }
        runtime.start()
        defer { runtime.stop() }
        let count = StreamPlan.hashAggregate(
            input: scan(1, [.int64]), groupCount: 0, aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)])
        await runtime.waitForCommit(try runtime.createView(id: 31, name: "n", plan: count, context: EvaluationContext()) { _ in [] })
        let asked = Atomic<Int>(0)
        let output = SourceOutput(isRead: { runtime.isRead(1) }) { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
            runtime.withSource(1) { writer in
                writer.emit(StreamChunk.inserts(chunk))
                advance()
            }
        }.callingWhenCaughtUp {
            asked.add(1, ordering: .sequentiallyConsistent)
            runtime.requestBarrier()
        }

        // A trickle: one chunk, then nothing ready, again and again.
        let trickle = ChunksReader(chunks: 1, rows: 100)
        let trickling = SourceDriver(name: "trickle", statistics: SourceStatistics(), readers: [trickle])
        trickling.start(output: output)
        while trickle.idleSteps.load(ordering: .sequentiallyConsistent) < 3 { await Task.yield() }
        trickling.stop()
        #expect(asked.load(ordering: .sequentiallyConsistent) == 0)

        // A backlog of ten chunks: the driver asks once it runs dry, and the view shows them.
        let backlog = ChunksReader(chunks: 10, rows: Chunk.preferredSize)
        let reading = SourceDriver(name: "backlog", statistics: SourceStatistics(), readers: [backlog])
        reading.start(output: output)
        defer { reading.stop() }
        while published.view(31) != [["\(100 + 10 * Chunk.preferredSize)"]] { await Task.yield() }
        #expect(asked.load(ordering: .sequentiallyConsistent) == 1)
    }

    @Test func aJoinAlignsBarriersFromBothTablesAndAViewOverAViewFollows() async throws {
        let published = Published()
        let runtime = StreamRuntime(barrierIntervalMilliseconds: 60_000) { published.record($0, $1) }
        defer { runtime.stop() }
        let join = StreamPlan.hashJoin(
            StreamHashJoinPlan(
                left: scan(1, [.int64, .int64]), right: scan(2, [.int64, .int64]), kind: .inner, leftKeys: [0], rightKeys: [0],
                residual: nil))
        await runtime.waitForCommit(try runtime.createView(id: 10, name: "j", plan: join, context: EvaluationContext()) { _ in [] })
        let count = StreamPlan.hashAggregate(
            input: scan(10, [.int64, .int64, .int64, .int64]), groupCount: 0, aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64)])
        await runtime.waitForCommit(try runtime.createView(id: 11, name: "n", plan: count, context: EvaluationContext()) { _ in [] })
        #expect(published.view(11) == [["0"]])
        for round in 0 ..< 20 {
            runtime.withSource(1) { writer in writer.emit(inserts([[Int64(round % 3), Int64(round)]])) }
            runtime.withSource(2) { writer in writer.emit(inserts([[Int64(round % 3), Int64(100 + round)]])) }
            if round % 4 == 0 { runtime.injectBarrier() }
        }
        await runtime.flush()
        // Keys 0, 1, 2 got 7, 7 and 6 rows on each side: 49 + 49 + 36 joined rows.
        #expect(published.view(10).count == 134)
        #expect(published.view(11) == [["134"]])

        runtime.dropView(id: 11)
        runtime.dropView(id: 10)
        #expect(!runtime.isRead(1))
        await runtime.flush()
    }

    @Test func viewOfConstantsGetsBarriersFromTheTicker() async throws {
        let published = Published()
        let runtime = StreamRuntime(barrierIntervalMilliseconds: 60_000) { published.record($0, $1) }
        defer { runtime.stop() }
        let plan = StreamPlan.values(rows: [[.literal(.int64(7), .int64)]], types: [.int64])
        await runtime.waitForCommit(try runtime.createView(id: 5, name: "c", plan: plan, context: EvaluationContext()) { _ in [] })
        #expect(published.view(5) == [["7"]])
    }
}

@Suite struct BackfillInVnodeOrderTests {
    /// Under a memory limit whose 32nd (1 MiB) is far below the snapshot, a grouping's and a
    /// join's backfill go through buckets on disk and many steps, and end with the same rows as
    /// the sums worked out here.
    @Test(.timeLimit(.minutes(10)))
    func aBigBackfillInVnodeOrderEndsWithEveryRow() async throws {
        let published = Published()
        let memory = StateMemory(limit: 32 << 20, spillDirectory: NSTemporaryDirectory())
        let runtime = StreamRuntime(barrierIntervalMilliseconds: 600_000, memory: memory) { published.record($0, $1) }
        runtime.start()
        defer { runtime.stop() }
        // 300,000 rows (id, k) with k = id % 1,000: 4.8 MB.
        let chunks = (0 ..< 300).map { index in
            let ids = (0 ..< 1000).map { Int64(index * 1000 + $0) }
            return Chunk(columns: [Column(type: .int64, storage: .int64(ids)), Column(type: .int64, storage: .int64(ids.map { $0 % 1000 }))])
        }
        let keys = (0 ..< 1000).map { Int64($0) }
        let other = [Chunk(columns: [Column(type: .int64, storage: .int64(keys)), Column(type: .int64, storage: .int64(keys.map { $0 * 3 }))])]
        let table = StreamPlan.scan(TableScan(tableID: 1, tableName: "t1", columns: [0, 1], columnTypes: [.int64, .int64]))
        let grouped = StreamPlan.hashAggregate(
            input: .project(input: table, predicate: nil, expressions: [.column(1, .int64), .column(0, .int64)]), groupCount: 1,
            aggregates: [AggregateCall(kind: .countStar, argument: nil, resultType: .int64), AggregateCall(kind: .max, argument: 1, resultType: .int64)])
        await runtime.waitForCommit(try runtime.createView(id: 40, name: "g", plan: grouped, context: EvaluationContext()) { _ in chunks })
        let rows = published.view(40)
        #expect(rows.count == 1000)
        #expect(rows.allSatisfy { $0[1] == "300" && Int64($0[2])! == 299_000 + Int64($0[0])! })

        let join = StreamPlan.hashJoin(
            StreamHashJoinPlan(
                left: table, right: scan(2, [.int64, .int64]), kind: .inner, leftKeys: [1], rightKeys: [0], residual: nil))
        await runtime.waitForCommit(try runtime.createView(id: 41, name: "j", plan: join, context: EvaluationContext()) { relation in
            relation == 1 ? chunks : other
        })
        let joined = published.view(41)
        #expect(joined.count == 300_000)
        #expect(joined.allSatisfy { Int64($0[0])! % 1000 == Int64($0[1])! && $0[2] == $0[1] && Int64($0[3])! == 3 * Int64($0[1])! })
    }
}

/// A source reader that delivers `chunks` chunks of `rows` bigints, one a step, then finds
/// nothing ready.
private final class ChunksReader: SourceReader, @unchecked Sendable {
    private var left: Int
    private let rows: Int
    let idleSteps = Atomic<Int>(0)

    init(chunks: Int, rows: Int) {
        left = chunks
        self.rows = rows
    }

    func step(_ context: SourceStepContext) throws(SluiceError) -> SourceStep {
        guard left > 0 else {
            idleSteps.add(1, ordering: .sequentiallyConsistent)
            return .idle(.milliseconds(1))
        }
        left -= 1
        context.deliver(Chunk(columns: [Column(type: .int64, storage: .int64((0 ..< rows).map(Int64.init)))])) {}
        return .progressed
    }
}
