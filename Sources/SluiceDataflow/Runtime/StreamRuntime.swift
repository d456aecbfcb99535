import Foundation
import Synchronization
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Where a checkpoint barrier cut the inputs: the write-ahead log's position and each source's
/// positions, read under the source lock as the barrier is injected.
package struct CheckpointCut: Sendable {
    package var log: LogPosition
    package var positions: [Int: [Int32: Int64]]

    package init(log: LogPosition, positions: [Int: [Int32: Int64]]) {
        self.log = log
        self.positions = positions
    }
}

/// One view's piece of a checkpoint: its state tables' sections, encoded by the checkpoint's
/// writer (off the fragment's thread).
package struct CheckpointPiece: Sendable {
    package var state: FragmentCheckpoint

    package var view: Int { state.view }
    package var isBase: Bool { state.isBase }
}

/// A checkpoint epoch every view has finished: what to write.
package struct EpochCheckpoint: Sendable {
    package var epoch: UInt64
    package var cut: CheckpointCut
    /// Every running view's piece, by view id.
    package var pieces: [CheckpointPiece]
}

/// How the runtime takes checkpoints: every `frequency` barriers (RisingWave's
/// `checkpoint_frequency`), cut by `cut`, handed to `write` in epoch order. While `isBusy` says
/// the writer is behind, a due checkpoint waits for a later barrier (the views keep their
/// changes meanwhile), so checkpoints never pile up in memory ahead of the disk.
package struct CheckpointHooks: Sendable {
    package var frequency: Int
    package var cut: @Sendable () -> CheckpointCut
    package var write: @Sendable (EpochCheckpoint) -> Void
    package var isBusy: @Sendable () -> Bool

    package init(
        frequency: Int, cut: @escaping @Sendable () -> CheckpointCut, write: @escaping @Sendable (EpochCheckpoint) -> Void,
        isBusy: @escaping @Sendable () -> Bool = { false }
    ) {
        self.frequency = max(1, frequency)
        self.cut = cut
        self.write = write
        self.isBusy = isBusy
    }
}

/// Runs the stream graphs of every materialized view: injects barriers, collects them back,
/// and publishes each completed epoch to readers all at once.
///
/// **Sources.** Table writes enter through ``withSources(_:)``, which holds the source lock:
/// the caller changes the table's stored rows and emits the matching change chunk under the
/// same lock, so a view's backfill snapshot and its change stream never miss or repeat a row.
///
/// **Barriers.** ``injectBarrier()`` (every `barrierInterval`, on FLUSH, and after DDL) sends a
/// barrier for a new epoch into every table's change stream under the source lock, so it cuts
/// all of them at one point. Fragments align it over their inputs, finish the epoch and report
/// their view's rows; when every fragment has reported epoch `e` (and all before it), the
/// runtime hands all those views' rows to `publish` in one call and wakes whoever waits for `e`.
///
/// **Graph changes.** Creating a view first drains the graph (a barrier, waited for, with the
/// source lock held so nothing new enters), then subscribes the new fragment and gives it the
/// current rows of its inputs to start from.
package final class StreamRuntime: EpochCollector, @unchecked Sendable {
    /// Receives the rows of every view an epoch changed, keyed by view id, with the epoch.
    package typealias Publish = @Sendable ([Int: [StatePage]], UInt64) -> Void

    private let sourceLock = NSRecursiveLock()
    /// Guards everything below it.
    private let condition = NSCondition()
    private var tableStreams: [Int: ChangeDispatcher] = [:]
    /// Delivers barriers to fragments that read no relation.
    private let ticker = ChangeDispatcher()
    private var fragments: [Int: Fragment] = [:]
    private var lastInjected: UInt64 = 0
    private var committed: UInt64 = 0
    private var inflight: [Inflight] = []
    private var checkpointHooks: CheckpointHooks?
    private var barriersSinceCheckpoint = 0
    private var checkpointsPaused = false
    /// Raised when a checkpoint was lost (a failed write): every view then writes a base next.
    package let baseGeneration = Atomic<Int>(0)

    /// An injected epoch not yet finished by every view.
    private struct Inflight {
        var epoch: UInt64
        var expected: Set<Int>
        var rows: [Int: [StatePage]] = [:]
        /// Set for a checkpoint barrier.
        var cut: CheckpointCut?
        var pieces: [CheckpointPiece] = []
    }
    private var waiters: [(epoch: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    private var stopped = false
    private var intervalMilliseconds: Int
    private let publish: Publish
    private let pool: WorkerPool
    /// The budget every view's pages count against (`--memory-limit`); nil: no limit.
    package let memory: StateMemory?

    /// - Parameter workerThreads: threads that run the views' operators (default: one per core).
    package init(
        barrierIntervalMilliseconds: Int = 1000, workerThreads: Int = ProcessInfo.processInfo.activeProcessorCount,
        memory: StateMemory? = nil, publish: @escaping Publish
    ) {
        self.memory = memory
        self.intervalMilliseconds = max(1, barrierIntervalMilliseconds)
        self.publish = publish
        self.pool = WorkerPool(threads: workerThreads)
    }

    // MARK: Sources

    /// Writes table changes into the streams; valid only inside ``withSources(_:)``.
    package struct SourceWriter {
        fileprivate let runtime: StreamRuntime

        /// True when some view reads table `id`, so its changes are worth building.
        package func isRead(_ id: Int) -> Bool {
            runtime.condition.withLock { runtime.tableStreams[id] }?.hasSubscribers ?? false
        }

        /// Sends `chunk` as table `id`'s next changes (waiting while a reader's queue is full).
        package func emit(_ chunk: StreamChunk, table id: Int) {
            guard chunk.count > 0, let stream = runtime.condition.withLock({ runtime.tableStreams[id] }) else { return }
            stream.send(.chunk(chunk))
        }
    }

    /// True when some view reads relation `id` (a table or a source).
    package func isRead(_ id: Int) -> Bool {
        condition.withLock { tableStreams[id] }?.hasSubscribers ?? false
    }

    /// Runs `body` with the source lock held: table writes and their change chunks go together.
    package func withSources<T, E: Error>(_ body: (SourceWriter) throws(E) -> T) throws(E) -> T {
        sourceLock.lock()
        defer { sourceLock.unlock() }
        return try body(SourceWriter(runtime: self))
    }

    // MARK: Barriers

    /// Starts the thread that injects a barrier every barrier interval.
    package func start() {
        let thread = Thread { [self] in
            while true {
                condition.lock()
                let deadline = Date(timeIntervalSinceNow: Double(intervalMilliseconds) / 1000)
                while !stopped && Date() < deadline { _ = condition.wait(until: deadline) }
                let isStopped = stopped
                let idle = fragments.isEmpty
                condition.unlock()
                if isStopped { return }
                if !idle { injectBarrier() }
            }
        }
        thread.name = "sluice-barriers"
        thread.start()
    }

    /// The barrier interval in milliseconds.
    package var barrierIntervalMilliseconds: Int {
        get { condition.withLock { intervalMilliseconds } }
        set { condition.withLock { intervalMilliseconds = max(1, newValue) } }
    }

    /// Starts taking checkpoints of the views' state (before any view is created). With
    /// `paused`, views keep their changes but no barrier is a checkpoint until
    /// ``resumeCheckpoints()``: while recovery brings views back to where the inputs stand.
    package func enableCheckpoints(_ hooks: CheckpointHooks, paused: Bool = false) {
        condition.withLock {
            checkpointHooks = hooks
            checkpointsPaused = paused
        }
    }

    /// Lets barriers be checkpoints again.
    package func resumeCheckpoints() {
        condition.withLock { checkpointsPaused = false }
    }

    /// Whether views keep their changes for checkpoints.
    package var isCheckpointing: Bool { condition.withLock { checkpointHooks != nil } }

    /// Makes every view write its whole state at the next checkpoint (after one was lost).
    package func requireBases() {
        baseGeneration.add(1, ordering: .relaxed)
    }

    /// Closes the current epoch everywhere and returns it. The barrier is a checkpoint every
    /// `checkpoint_frequency` barriers, or with `checkpoint`, when checkpoints are enabled.
    @discardableResult
    package func injectBarrier(checkpoint: Bool = false) -> UInt64 {
        sourceLock.lock()
        defer { sourceLock.unlock() }
        let hooks = condition.withLock { () -> CheckpointHooks? in
            guard let hooks = checkpointHooks, !checkpointsPaused else { return nil }
            barriersSinceCheckpoint += 1
            guard checkpoint || (barriersSinceCheckpoint >= hooks.frequency && !hooks.isBusy()) else { return nil }
            barriersSinceCheckpoint = 0
            return hooks
        }
        // Nothing enters the streams while the source lock is held: the cut matches the barrier.
        let cut = hooks?.cut()
        let (epoch, streams) = condition.withLock { () -> (UInt64, [ChangeDispatcher]) in
            lastInjected += 1
            inflight.append(Inflight(epoch: lastInjected, expected: Set(fragments.keys), cut: cut))
            return (lastInjected, Array(tableStreams.values))
        }
        let barrier = Barrier(epoch: epoch, isCheckpoint: cut != nil)
        for stream in streams { stream.send(.barrier(barrier)) }
        ticker.send(.barrier(barrier))
        condition.withLock { commitReady() }
        return epoch
    }

    /// The last epoch whose changes every view shows.
    package var committedEpoch: UInt64 { condition.withLock { committed } }

    /// Returns once `epoch` is committed.
    package func waitForCommit(_ epoch: UInt64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.withLock {
                if committed >= epoch || stopped {
                    continuation.resume()
                } else {
                    waiters.append((epoch, continuation))
                }
            }
        }
    }

    /// Injects a barrier and waits until it is committed: every earlier write is then visible
    /// in every view.
    package func flush() async {
        await waitForCommit(injectBarrier())
    }

    package func collect(epoch: UInt64, fragmentID: Int, rows: [StatePage]?, checkpoint: CheckpointPiece?) {
        condition.withLock {
            guard let index = inflight.firstIndex(where: { $0.epoch == epoch }) else { return }
            guard inflight[index].expected.remove(fragmentID) != nil else { return }
            if let rows { inflight[index].rows[fragmentID] = rows }
            if let checkpoint { inflight[index].pieces.append(checkpoint) }
            commitReady()
        }
    }

    package var requiredBaseGeneration: Int { baseGeneration.load(ordering: .relaxed) }

    /// Commits, in order, every leading epoch all of whose fragments have reported. Called with
    /// `condition` held.
    private func commitReady() {
        while let first = inflight.first, first.expected.isEmpty {
            inflight.removeFirst()
            if !first.rows.isEmpty { publish(first.rows, first.epoch) }
            if let cut = first.cut, let hooks = checkpointHooks {
                hooks.write(EpochCheckpoint(epoch: first.epoch, cut: cut, pieces: first.pieces.sorted { $0.view < $1.view }))
            }
            committed = first.epoch
            condition.broadcast()
            var remaining: [(epoch: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
            for waiter in waiters {
                if waiter.epoch <= committed { waiter.continuation.resume() } else { remaining.append(waiter) }
            }
            waiters = remaining
        }
    }

    /// Injects a barrier and blocks the calling thread until it is committed. Called with the
    /// source lock held, so nothing new is in flight afterwards.
    private func drain() {
        let epoch = injectBarrier()
        condition.lock()
        while committed < epoch && !stopped { condition.wait() }
        condition.unlock()
    }

    // MARK: Views

    /// Starts maintaining view `id` by `plan`, starting from the current rows of the relations it
    /// reads (`snapshot` gives them, called with the graph drained and the source lock held) or,
    /// with `restoring`, from the state a checkpoint holds (its inputs then go on from that
    /// checkpoint's cut). Returns the epoch after which the view shows its first complete
    /// contents; that barrier is a checkpoint, so the view is in the next one.
    package func createView(
        id: Int, name: String, plan: StreamPlan, context: EvaluationContext, restoring: RestoredTables? = nil,
        snapshot: (Int) throws(SluiceError) -> [Chunk]
    ) throws(SluiceError) -> UInt64 {
        sourceLock.lock()
        defer { sourceLock.unlock() }
        let graph = try OperatorGraph(plan: plan, stateTableBase: id * 10_000, context: context)
        if condition.withLock({ !fragments.isEmpty }) { drain() }
        var backfill: [(upstream: Int, chunk: Chunk)] = []
        if restoring == nil {
            for (upstream, relation) in graph.upstreams.enumerated() {
                for chunk in try snapshot(relation) { backfill.append((upstream, chunk)) }
            }
        }
        let fragment = try Fragment(
            id: id, name: name, graph: graph, planText: plan.description, backfill: backfill, collector: self, pool: pool,
            checkpointing: isCheckpointing, restoring: restoring, memory: memory)
        condition.withLock {
            if graph.upstreams.isEmpty { ticker.subscribe(fragmentID: id, queue: fragment.queue, input: 0) }
            for (upstream, relation) in graph.upstreams.enumerated() {
                let stream: ChangeDispatcher
                if let view = fragments[relation] {
                    stream = view.output
                } else if let table = tableStreams[relation] {
                    stream = table
                } else {
                    stream = ChangeDispatcher()
                    tableStreams[relation] = stream
                }
                stream.subscribe(fragmentID: id, queue: fragment.queue, input: upstream)
            }
            fragments[id] = fragment
        }
        fragment.start()
        return injectBarrier(checkpoint: true)
    }

    /// Stops maintaining view `id` and frees its state. Views over it must be dropped first.
    package func dropView(id: Int) {
        sourceLock.lock()
        defer { sourceLock.unlock() }
        condition.withLock {
            guard let fragment = fragments.removeValue(forKey: id) else { return }
            ticker.unsubscribe(fragmentID: id)
            for relation in fragment.upstreams {
                if let view = fragments[relation] {
                    view.output.unsubscribe(fragmentID: id)
                } else if let table = tableStreams[relation] {
                    table.unsubscribe(fragmentID: id)
                    if !table.hasSubscribers { tableStreams.removeValue(forKey: relation) }
                }
            }
            fragment.stop()
            for index in inflight.indices {
                inflight[index].expected.remove(id)
                inflight[index].rows.removeValue(forKey: id)
                inflight[index].pieces.removeAll { $0.view == id }
            }
            commitReady()
        }
    }

    /// The running views, by id.
    package var views: [Fragment] {
        condition.withLock { fragments.values.sorted { $0.id < $1.id } }
    }

    /// Stops every fragment, the workers and the barrier thread; wakes all waiters.
    package func stop() {
        pool.stop()
        condition.withLock {
            stopped = true
            for fragment in fragments.values { fragment.stop() }
            fragments.removeAll()
            for waiter in waiters { waiter.continuation.resume() }
            waiters = []
            condition.broadcast()
        }
    }
}
