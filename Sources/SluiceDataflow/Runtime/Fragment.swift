import Foundation
import Synchronization
import SluiceCore
import SluiceState

/// What a fragment tells the runtime when it has finished an epoch.
package protocol EpochCollector: AnyObject, Sendable {
    /// Fragment `fragmentID` finished `epoch`; `rows` is its view's new contents, or nil when
    /// the epoch changed nothing.
    func collect(epoch: UInt64, fragmentID: Int, rows: [Chunk]?)
}

/// Counters a fragment keeps for the system views; updated by its thread, read by anyone.
package final class FragmentStatistics: Sendable {
    package let rowsIn = Atomic<Int>(0)
    package let rowCount = Atomic<Int>(0)
    package let errors = Atomic<Int>(0)
    private let lastErrorText = Mutex<String?>(nil)
    private let operatorProfile = Mutex<[OperatorProfile]>([])

    package init() {}

    /// Time and rows per operator, as of the last finished epoch.
    package var profile: [OperatorProfile] { operatorProfile.withLock { $0 } }

    func record(_ profile: [OperatorProfile]) {
        operatorProfile.withLock { $0 = profile }
    }

    package var lastError: String? { lastErrorText.withLock { $0 } }

    func record(_ error: SluiceError, count: Int = 1) {
        errors.add(count, ordering: .relaxed)
        lastErrorText.withLock { $0 = error.message }
    }
}

/// One materialized view's operators, run on a thread of their own: the fragment reads its
/// upstreams' messages from one bounded queue, aligns their barriers, runs the operator graph,
/// keeps the view's rows and passes its changes on to the views that read it.
///
/// Everything but ``queue``, ``output`` and ``statistics`` is touched only by the fragment's
/// thread once it has started.
package final class Fragment: @unchecked Sendable {
    package let id: Int
    package let name: String
    package let queue: MessageQueue
    /// The view's change stream, for views over this view.
    package let output = ChangeDispatcher()
    package let statistics = FragmentStatistics()
    /// Relation ids read, in input order (empty: constant rows only; the runtime's ticker then
    /// delivers barriers as input 0).
    package let upstreams: [Int]
    package let planText: String

    private var graph: OperatorGraph
    private var materializer: Materializer
    private var backfill: [(upstream: Int, chunk: Chunk)]
    private weak var collector: (any EpochCollector)?
    private let finished = Atomic<Bool>(false)

    package init(
        id: Int, name: String, graph: OperatorGraph, planText: String, backfill: [(upstream: Int, chunk: Chunk)],
        collector: any EpochCollector, queueCapacity: Int = 64
    ) {
        self.id = id
        self.name = name
        self.graph = graph
        self.planText = planText
        self.upstreams = graph.upstreams
        self.materializer = Materializer(types: graph.outputTypes)
        self.backfill = backfill
        self.collector = collector
        self.queue = MessageQueue(capacity: queueCapacity)
    }

    /// Starts the fragment's thread.
    package func start() {
        let thread = Thread { [self] in run() }
        thread.name = "sluice-mv-\(id)"
        thread.start()
    }

    /// Stops the thread after the message it is working on.
    package func stop() {
        queue.close()
    }

    private func run() {
        let inputCount = max(upstreams.count, 1)
        var blocked = [Bool](repeating: false, count: inputCount)
        var blockedCount = 0
        var held = [[StreamMessage]](repeating: [], count: inputCount)
        do {
            try graph.start(into: emit)
            for (upstream, chunk) in backfill {
                statistics.rowsIn.add(chunk.count, ordering: .relaxed)
                try graph.process(
                    StreamChunk(ops: [ChangeOp](repeating: .insert, count: chunk.count), data: chunk), upstream: upstream, into: emit)
            }
        } catch {
            statistics.record(error)
        }
        backfill = []
        while true {
            let input: Int
            let message: StreamMessage
            if let ready = held.indices.first(where: { !blocked[$0] && !held[$0].isEmpty }) {
                input = ready
                message = held[ready].removeFirst()
            } else if let entry = queue.pop() {
                input = entry.input
                message = entry.message
            } else {
                return
            }
            if blocked[input] {
                held[input].append(message)
                continue
            }
            switch message {
            case .chunk(let chunk):
                statistics.rowsIn.add(chunk.count, ordering: .relaxed)
                do {
                    try graph.process(chunk, upstream: input, into: emit)
                } catch {
                    statistics.record(error)
                }
            case .barrier(let barrier):
                blocked[input] = true
                blockedCount += 1
                if blockedCount == inputCount {
                    finishEpoch(barrier)
                    blocked = [Bool](repeating: false, count: inputCount)
                    blockedCount = 0
                }
            case .watermark:
                break
            }
        }
    }

    private func finishEpoch(_ barrier: Barrier) {
        var state = StateWriter()
        do {
            try graph.finishEpoch(barrier, state: &state, into: emit)
        } catch {
            statistics.record(error)
        }
        let warnings = graph.takeWarnings()
        if let last = warnings.last { statistics.record(last, count: warnings.count) }
        let rows = materializer.publish()
        statistics.rowCount.store(materializer.rowCount, ordering: .relaxed)
        statistics.record(graph.profile)
        output.send(.barrier(barrier))
        collector?.collect(epoch: barrier.epoch, fragmentID: id, rows: rows)
    }

    private func emit(_ chunk: StreamChunk) {
        materializer.apply(chunk)
        output.send(.chunk(chunk))
    }
}
