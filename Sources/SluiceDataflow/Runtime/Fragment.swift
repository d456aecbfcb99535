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
    /// Bytes of state the fragment holds: its operators' and its view's pages, as of the last
    /// finished epoch.
    package let stateBytes = Atomic<Int>(0)
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

/// One materialized view's operators: the fragment reads its upstreams' messages from one
/// bounded queue, aligns their barriers, runs the operator graph, keeps the view's rows and
/// passes its changes on to the views that read it. It runs on the ``WorkerPool``, a slice of
/// messages at a time.
///
/// Everything but ``queue``, ``output``, ``statistics`` and the run state is touched only inside
/// ``runSlice()``, which the run state keeps to one thread at a time.
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

    private enum RunState {
        case idle
        case queued
        case running
        /// Woken while running: runs again when the current slice ends.
        case runningAgain
    }

    /// Messages one slice handles at most before the worker moves on.
    static let sliceMessages = 32

    private let runState = Mutex(RunState.idle)
    private let pool: WorkerPool
    private var graph: OperatorGraph
    private var materializer: Materializer
    private var backfill: [(upstream: Int, chunk: Chunk)]
    private var started = false
    private weak var collector: (any EpochCollector)?
    private var blocked: [Bool]
    private var blockedCount = 0
    /// Messages from inputs whose barrier came early, kept until the others catch up.
    private var held: [[StreamMessage]]

    package init(
        id: Int, name: String, graph: OperatorGraph, planText: String, backfill: [(upstream: Int, chunk: Chunk)],
        collector: any EpochCollector, pool: WorkerPool, queueCapacity: Int = 64
    ) {
        self.id = id
        self.name = name
        self.graph = graph
        self.planText = planText
        self.upstreams = graph.upstreams
        self.materializer = Materializer(types: graph.outputTypes, identity: graph.outputIdentity)
        self.backfill = backfill
        self.collector = collector
        self.pool = pool
        self.queue = MessageQueue(capacity: queueCapacity)
        let inputCount = max(graph.upstreams.count, 1)
        self.blocked = [Bool](repeating: false, count: inputCount)
        self.held = [[StreamMessage]](repeating: [], count: inputCount)
        queue.schedule = { [weak self] in self?.wake() }
    }

    /// Starts the fragment: it backfills, then handles messages as they come.
    package func start() {
        wake()
    }

    /// Stops the fragment after the slice it is running.
    package func stop() {
        queue.close()
    }

    /// Puts the fragment in the pool's line unless it is there or running already.
    func wake() {
        let enqueue = runState.withLock { state -> Bool in
            switch state {
            case .idle:
                state = .queued
                return true
            case .running:
                state = .runningAgain
                return false
            case .queued, .runningAgain:
                return false
            }
        }
        if enqueue { pool.enqueue(self) }
    }

    /// Handles up to ``sliceMessages`` messages on the calling worker.
    func runSlice() {
        runState.withLock { $0 = .running }
        let more = handleMessages()
        let again = runState.withLock { state -> Bool in
            if more || state == .runningAgain {
                state = .queued
                return true
            }
            state = .idle
            return false
        }
        if again { pool.enqueue(self) }
    }

    /// Returns true when there may be more to do right away.
    private func handleMessages() -> Bool {
        if queue.isClosed { return false }
        if !started {
            started = true
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
        }
        for _ in 0 ..< Self.sliceMessages {
            // A full reader: give the worker back; its room wakes us.
            if !output.hasRoom(orCall: { [weak self] in self?.wake() }) { return false }
            let input: Int
            let message: StreamMessage
            if let ready = held.indices.first(where: { !blocked[$0] && !held[$0].isEmpty }) {
                input = ready
                message = held[ready].removeFirst()
            } else if let entry = queue.popOrIdle() {
                input = entry.input
                message = entry.message
            } else {
                return false
            }
            handle(message, from: input)
        }
        return true
    }

    private func handle(_ message: StreamMessage, from input: Int) {
        if blocked[input] {
            held[input].append(message)
            return
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
            if blockedCount == blocked.count {
                finishEpoch(barrier)
                blocked = [Bool](repeating: false, count: blocked.count)
                blockedCount = 0
            }
        case .watermark:
            break
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
        let profile = graph.profile
        statistics.record(profile)
        statistics.stateBytes.store(profile.reduce(materializer.stateBytes) { $0 + $1.stateBytes }, ordering: .relaxed)
        output.sendWithoutWaiting(.barrier(barrier))
        collector?.collect(epoch: barrier.epoch, fragmentID: id, rows: rows)
    }

    private func emit(_ chunk: StreamChunk) {
        materializer.apply(chunk)
        output.sendWithoutWaiting(.chunk(chunk))
    }
}
