import Foundation
import SluiceCore
import SluiceExpr
import SluicePlan

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
    package typealias Publish = @Sendable ([Int: [Chunk]], UInt64) -> Void

    private let sourceLock = NSRecursiveLock()
    /// Guards everything below it.
    private let condition = NSCondition()
    private var tableStreams: [Int: ChangeDispatcher] = [:]
    /// Delivers barriers to fragments that read no relation.
    private let ticker = ChangeDispatcher()
    private var fragments: [Int: Fragment] = [:]
    private var lastInjected: UInt64 = 0
    private var committed: UInt64 = 0
    private var inflight: [(epoch: UInt64, expected: Set<Int>, rows: [Int: [Chunk]])] = []
    private var waiters: [(epoch: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    private var stopped = false
    private var intervalMilliseconds: Int
    private let publish: Publish
    private let pool: WorkerPool

    /// - Parameter workerThreads: threads that run the views' operators (default: one per core).
    package init(
        barrierIntervalMilliseconds: Int = 1000, workerThreads: Int = ProcessInfo.processInfo.activeProcessorCount,
        publish: @escaping Publish
    ) {
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

    /// Closes the current epoch everywhere and returns it.
    @discardableResult
    package func injectBarrier() -> UInt64 {
        sourceLock.lock()
        defer { sourceLock.unlock() }
        let (epoch, streams) = condition.withLock { () -> (UInt64, [ChangeDispatcher]) in
            lastInjected += 1
            inflight.append((lastInjected, Set(fragments.keys), [:]))
            return (lastInjected, Array(tableStreams.values))
        }
        let barrier = Barrier(epoch: epoch)
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

    package func collect(epoch: UInt64, fragmentID: Int, rows: [Chunk]?) {
        condition.withLock {
            guard let index = inflight.firstIndex(where: { $0.epoch == epoch }) else { return }
            guard inflight[index].expected.remove(fragmentID) != nil else { return }
            if let rows { inflight[index].rows[fragmentID] = rows }
            commitReady()
        }
    }

    /// Commits, in order, every leading epoch all of whose fragments have reported. Called with
    /// `condition` held.
    private func commitReady() {
        while let first = inflight.first, first.expected.isEmpty {
            inflight.removeFirst()
            if !first.rows.isEmpty { publish(first.rows, first.epoch) }
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
    /// reads (`snapshot` gives them, called with the graph drained and the source lock held).
    /// Returns the epoch after which the view shows its first complete contents.
    package func createView(
        id: Int, name: String, plan: StreamPlan, context: EvaluationContext, snapshot: (Int) throws(SluiceError) -> [Chunk]
    ) throws(SluiceError) -> UInt64 {
        sourceLock.lock()
        defer { sourceLock.unlock() }
        let graph = try OperatorGraph(plan: plan, stateTableBase: id * 10_000, context: context)
        if condition.withLock({ !fragments.isEmpty }) { drain() }
        var backfill: [(upstream: Int, chunk: Chunk)] = []
        for (upstream, relation) in graph.upstreams.enumerated() {
            for chunk in try snapshot(relation) { backfill.append((upstream, chunk)) }
        }
        let fragment = Fragment(
            id: id, name: name, graph: graph, planText: plan.description, backfill: backfill, collector: self, pool: pool)
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
        return injectBarrier()
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
