import Foundation
import Synchronization
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Where a checkpoint barrier cut the inputs: the write-ahead log's position and each source's
/// positions, read as the barrier is injected, with no write in progress.
package struct CheckpointCut: Sendable {
    package var log: LogPosition
    package var positions: [Int: [Int32: Int64]]
    /// Every table's piece, taken at the cut.
    package var tables: [CheckpointPiece]
    /// The catalog's version at the cut (its next relation id): relations from it on came after.
    package var catalogVersion: Int?

    package init(log: LogPosition, positions: [Int: [Int32: Int64]], tables: [CheckpointPiece] = []) {
        self.log = log
        self.positions = positions
        self.tables = tables
    }
}

/// One view's piece of a checkpoint: its state tables' sections, encoded by the checkpoint's
/// writer (off the fragment's thread).
package struct CheckpointPiece: Sendable {
    package var state: FragmentCheckpoint

    package init(state: FragmentCheckpoint) {
        self.state = state
    }

    package var view: Int { state.view }
    package var isBase: Bool { state.isBase }
}

/// A checkpoint epoch every view has finished: what to write.
package struct EpochCheckpoint: Sendable {
    package var epoch: UInt64
    package var cut: CheckpointCut
    /// Every table's piece, then every running view's, each by id.
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
/// **Sources.** A table's or source's changes enter through ``withSource(_:_:)``: the caller
/// changes the table's stored rows (or moves its connector's position) and emits the matching
/// change chunks in one step, in that relation's order, so a view's backfill snapshot and its
/// change stream never miss or repeat a row. A writer first waits until the relation's readers
/// have room, holding nothing: a slow view slows the writers of what it reads, and nothing else.
///
/// **Barriers.** ``injectBarrier()`` (every `barrierInterval`, on FLUSH, and after DDL) sends a
/// barrier for a new epoch into every relation's change stream. Under a memory limit an epoch
/// is also cut by size: once the changes written since the last barrier pass a 32nd of the
/// limit, the next barrier goes at once, because committing an epoch takes several times its
/// changes in memory (staged, sorted, paged, kept for the checkpoint). Writers pass the runtime's gate
/// together and a barrier passes it alone (``CutGate``), so the barrier cuts every stream at one
/// point, and that point is the checkpoint's cut (log and source positions). It never waits for
/// a reader: barriers always fit in a queue. Fragments align it over their inputs, finish the
/// epoch and report their view's rows; when every fragment has reported epoch `e` (and all
/// before it), the runtime hands all those views' rows to `publish` in one call and wakes
/// whoever waits for `e`.
///
/// **Graph changes.** Creating a view first drains the graph (a barrier, waited for, with the
/// gate closed to writers so nothing new enters), then subscribes the new fragment and gives it
/// the current rows of its inputs to start from.
package final class StreamRuntime: EpochCollector, @unchecked Sendable {
    /// Receives the rows of every view an epoch changed, keyed by view id, with the epoch.
    package typealias Publish = @Sendable ([Int: PublishedView], UInt64) -> Void

    private let gate = CutGate()
    /// Where each table's, view's and source's current rows are, for backfills.
    private let relationRows = Mutex<[Int: RelationRows]>([:])
    /// Guards everything below it.
    private let condition = NSCondition()
    /// Broadcast when a view subscribes to a relation (``waitUntilRead(_:timeout:)``).
    private let readersChanged = NSCondition()
    /// The tables and sources written so far, by id.
    private var inputs: [Int: RelationInput] = [:]
    /// Delivers barriers to fragments that read no relation.
    private let ticker = ChangeDispatcher()
    private var fragments: [Int: Fragment] = [:]
    private var lastInjected: UInt64 = 0
    private var committed: UInt64 = 0
    private var inflight: [Inflight] = []
    private var checkpointHooks: CheckpointHooks?
    private var barriersSinceCheckpoint = 0
    private var checkpointsPaused = false
    /// Statements applying their changes in several steps (``holdCheckpoints()``): while any
    /// is, no barrier is a checkpoint, so none holds a part of such a statement.
    private var checkpointHolds = 0
    private var releaseWaiters: [CheckedContinuation<Void, Never>] = []
    /// Raised when a checkpoint was lost (a failed write): every view then writes a base next.
    package let baseGeneration = Atomic<Int>(0)

    /// An injected epoch not yet finished by every view.
    private struct Inflight {
        var epoch: UInt64
        var expected: Set<Int>
        var rows: [Int: PublishedView] = [:]
        /// Set for a checkpoint barrier.
        var cut: CheckpointCut?
        var pieces: [CheckpointPiece] = []
        /// When the barrier was injected, for its latency.
        var injectedAt = ContinuousClock.now
    }
    /// The latest barriers' latencies, from injection until every fragment reported (oldest
    /// first, at most ``keptBarrierLatencies``).
    private var latencies: [BarrierLatency] = []
    package static let keptBarrierLatencies = 256

    /// The latest barriers' latencies, oldest first.
    package var barrierLatencies: [BarrierLatency] { condition.withLock { latencies } }
    private var waiters: [(epoch: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    private var stopped = false
    /// An epoch's changes grew past `epochByteLimit`: the barrier thread injects one now.
    private var epochIsFull = false
    /// A source ran dry after a backlog (``requestBarrier()``): the barrier thread injects one
    /// as soon as ``requestedBarrierSpacing`` has passed since the last it injected early.
    private var barrierRequested = false
    private var lastRequestedAt = ContinuousClock.now - .seconds(3600)
    /// A table or source was written since the last checkpoint barrier: with checkpoints, the
    /// barrier thread injects barriers (checkpoints of the tables) even when no view runs.
    private let writtenSinceBarrier = Atomic<Bool>(false)
    /// Bytes of changes written since the last barrier, and the most an epoch takes before
    /// one is injected early (nil: no limit).
    private let epochBytes = Atomic<Int>(0)
    private let epochByteLimit: Int?
    private var intervalMilliseconds: Int
    private let publish: Publish
    private let pool: WorkerPool
    /// The workers, for sources' readers to run work ahead on (``SourceOutput/background``).
    package var backgroundJobs: any BackgroundJobs { pool }
    /// The time barriers carry (``Barrier/timestamp``), in microseconds since 1970-01-01 UTC.
    private let clock: @Sendable () -> Int64
    /// The last barrier's time: the next one's is never less.
    private var lastTimestamp: Int64 = .min
    /// The budget every view's pages count against (`--memory-limit`); nil: no limit.
    package let memory: StateMemory?

    /// - Parameters:
    ///   - workerThreads: threads that run the views' operators (default: one per core).
    ///   - clock: the time each barrier carries (default: the system's clock).
    package init(
        barrierIntervalMilliseconds: Int = 1000, workerThreads: Int = ProcessInfo.processInfo.activeProcessorCount,
        memory: StateMemory? = nil, clock: @escaping @Sendable () -> Int64 = StreamRuntime.systemClock, publish: @escaping Publish
    ) {
        self.memory = memory
        self.clock = clock
        self.epochByteLimit = memory.map { max($0.limit / 32, 1 << 20) }
        self.intervalMilliseconds = max(1, barrierIntervalMilliseconds)
        self.publish = publish
        self.pool = WorkerPool(threads: workerThreads)
    }

    // MARK: Sources

    /// Writes one relation's changes into its stream; valid only inside ``withSource(_:_:)``.
    package struct SourceWriter {
        fileprivate let input: RelationInput
        fileprivate let runtime: StreamRuntime

        /// True when some view reads the relation, so its changes are worth building.
        package var isRead: Bool { input.stream.hasSubscribers }

        /// The relation's columns its readers read now (nil: all): a chunk emitted in this step
        /// must have these (the others may be NULL).
        package var readColumns: Set<Int>? { input.stream.readColumns }

        /// Sends `chunk` as the relation's next changes.
        package func emit(_ chunk: StreamChunk) {
            guard chunk.count > 0 else { return }
            input.stream.sendWithoutWaiting(.chunk(chunk))
            runtime.count(chunk)
        }

        /// Sends the relation's event-time progress, after the changes it follows.
        package func emit(_ watermark: Watermark) {
            input.stream.sendWithoutWaiting(.watermark(watermark))
        }
    }

    /// Counts an emitted chunk toward the epoch's size; wakes the barrier thread when the epoch
    /// is full.
    private func count(_ chunk: StreamChunk) {
        guard let epochByteLimit else { return }
        let bytes = chunk.data.byteCount
        let total = epochBytes.add(bytes, ordering: .relaxed).newValue
        if total >= epochByteLimit && total - bytes < epochByteLimit {
            condition.withLock {
                epochIsFull = true
                condition.broadcast()
            }
        }
    }

    /// True when some view reads relation `id` (a table or a source).
    package func isRead(_ id: Int) -> Bool {
        condition.withLock { inputs[id] }?.stream.hasSubscribers ?? false
    }

    /// Why view (or sink) `id`'s backfill stopped short, if it did.
    package func backfillFailure(view id: Int) -> SluiceError? {
        condition.withLock { fragments[id] }?.backfillFailure.withLock { $0 }
    }

    /// Blocks until some view reads relation `id`, or `timeout` passes.
    package func waitUntilRead(_ id: Int, timeout: Duration) {
        let deadline = Date(timeIntervalSinceNow: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        readersChanged.lock()
        defer { readersChanged.unlock() }
        while !isRead(id) {
            guard readersChanged.wait(until: deadline) else { return }
        }
    }

    /// Wakes the sources waiting for a reader (a view subscribed to something).
    private func announceReaders() {
        readersChanged.lock()
        readersChanged.broadcast()
        readersChanged.unlock()
    }

    /// The columns of relation `id` (a table or a source) that its readers read now, together;
    /// nil when they read all of them. May widen at any moment (a view is made): a writer
    /// checks again in its step (``SourceWriter/readColumns``).
    package func readColumns(_ id: Int) -> Set<Int>? {
        condition.withLock { inputs[id] }?.stream.readColumns
    }

    /// Runs `body`, which changes relation `id` (a table's rows, a source's position) and emits
    /// the matching changes, as one step in the relation's order and inside one epoch. Waits
    /// first, holding nothing, while a reader of the relation has no room. Must not be nested.
    package func withSource<T, E: Error>(_ id: Int, _ body: (SourceWriter) throws(E) -> T) throws(E) -> T {
        let input = self.input(id)
        input.stream.waitForRoom()
        writtenSinceBarrier.store(true, ordering: .relaxed)
        return try gate.withShared { () throws(E) -> T in
            input.lock.lock()
            defer { input.lock.unlock() }
            return try body(SourceWriter(input: input, runtime: self))
        }
    }

    /// Runs `body` with no write in progress and none starting: for what must see every table
    /// and source at one point (a table checkpoint's snapshot and log position).
    package func withWritesPaused<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        try gate.withExclusive(body)
    }

    private func input(_ id: Int) -> RelationInput {
        condition.withLock { inputLocked(id) }
    }

    /// Relation `id`'s input, made on first use. Called with `condition` held.
    private func inputLocked(_ id: Int) -> RelationInput {
        if let input = inputs[id] { return input }
        let input = RelationInput()
        inputs[id] = input
        return input
    }

    // MARK: Barriers

    /// The system's clock, in microseconds since 1970-01-01 UTC.
    package static let systemClock: @Sendable () -> Int64 = {
        Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// Starts the thread that injects a barrier every barrier interval.
    package func start() {
        let thread = Thread { [self] in
            while true {
                condition.lock()
                let deadline = Date(timeIntervalSinceNow: Double(intervalMilliseconds) / 1000)
                while !stopped && !epochIsFull && Date() < deadline {
                    let spacing = min(Duration.milliseconds(intervalMilliseconds / 4), Self.requestedBarrierSpacing)
                    let early = Date(timeIntervalSinceNow: (lastRequestedAt + spacing - .now).inSeconds)
                    if barrierRequested && Date() >= early {
                        lastRequestedAt = .now
                        break
                    }
                    _ = condition.wait(until: barrierRequested ? min(early, deadline) : deadline)
                }
                epochIsFull = false
                barrierRequested = false
                let isStopped = stopped
                let idle = fragments.isEmpty && (checkpointHooks == nil || !writtenSinceBarrier.load(ordering: .relaxed))
                condition.unlock()
                if isStopped { return }
                if !idle { injectBarrier() }
            }
        }
        thread.name = "sluice-barriers"
        thread.start()
    }

    /// The least time between two barriers injected early by ``requestBarrier()`` (or a quarter
    /// of the interval, when that is shorter): sources that keep running dry cannot add more
    /// than twenty barriers a second.
    package static let requestedBarrierSpacing = Duration.milliseconds(50)

    /// Asks for the next barrier now rather than at the end of the interval (though not sooner
    /// than ``requestedBarrierSpacing`` after the last one asked for): a source that has read all there was
    /// after a backlog (a folder of files, a topic's history) shows its rows in the views at once.
    package func requestBarrier() {
        condition.withLock {
            barrierRequested = true
            condition.broadcast()
        }
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

    /// Numbers the next epochs after `epoch` (a restored checkpoint's), before any barrier: epochs
    /// then only grow across restarts, so a sink's commits, tagged with their epoch, stay in order.
    package func continueEpochs(after epoch: UInt64) {
        condition.withLock {
            lastInjected = max(lastInjected, epoch)
            committed = max(committed, epoch)
        }
    }

    /// Lets barriers be checkpoints again.
    package func resumeCheckpoints() {
        condition.withLock { checkpointsPaused = false }
    }

    /// Keeps barriers from being checkpoints until ``releaseCheckpoints()``: a statement that
    /// applies its changes over several epochs holds them, so that a checkpoint, which recovery
    /// starts from, never holds part of it (its log records are replayed only once it has
    /// committed). Barriers still end epochs meanwhile, so views keep their memory bounded.
    package func holdCheckpoints() {
        condition.withLock { checkpointHolds += 1 }
    }

    /// Ends a ``holdCheckpoints()``.
    package func releaseCheckpoints() {
        let waiters = condition.withLock { () -> [CheckedContinuation<Void, Never>] in
            checkpointHolds -= 1
            guard checkpointHolds == 0 else { return [] }
            defer { releaseWaiters = [] }
            return releaseWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no statement holds checkpoints back.
    package func waitForCheckpointsReleased() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.withLock {
                if checkpointHolds == 0 || stopped {
                    continuation.resume()
                } else {
                    releaseWaiters.append(continuation)
                }
            }
        }
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
        gate.withExclusive { injectBarrierExclusively(checkpoint: checkpoint) }
    }

    /// ``injectBarrier(checkpoint:)`` with the gate held exclusively.
    private func injectBarrierExclusively(checkpoint: Bool) -> UInt64 {
        let hooks = condition.withLock { () -> CheckpointHooks? in
            guard let hooks = checkpointHooks, !checkpointsPaused, checkpointHolds == 0 else { return nil }
            barriersSinceCheckpoint += 1
            guard checkpoint || (barriersSinceCheckpoint >= hooks.frequency && !hooks.isBusy()) else { return nil }
            barriersSinceCheckpoint = 0
            return hooks
        }
        // No write is in progress while the gate is held: the cut matches the barrier.
        epochBytes.store(0, ordering: .relaxed)
        // (What was written is in a checkpoint once one is cut.)
        if hooks != nil { writtenSinceBarrier.store(false, ordering: .relaxed) }
        let cut = hooks?.cut()
        let now = clock()
        let (epoch, timestamp, streams) = condition.withLock { () -> (UInt64, Int64, [ChangeDispatcher]) in
            lastInjected += 1
            lastTimestamp = max(lastTimestamp, now)
            inflight.append(Inflight(epoch: lastInjected, expected: Set(fragments.keys), cut: cut))
            return (lastInjected, lastTimestamp, inputs.values.map(\.stream))
        }
        let barrier = Barrier(epoch: epoch, isCheckpoint: cut != nil, timestamp: timestamp)
        for stream in streams { stream.sendWithoutWaiting(.barrier(barrier)) }
        ticker.sendWithoutWaiting(.barrier(barrier))
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

    /// Blocks the calling thread (never one of Swift concurrency's) until `epoch` is committed.
    package func waitForCommitBlocking(_ epoch: UInt64) {
        condition.lock()
        while committed < epoch && !stopped { condition.wait() }
        condition.unlock()
    }

    /// Injects a barrier and waits until it is committed: every earlier write is then visible
    /// in every view.
    package func flush() async {
        await waitForCommit(injectBarrier())
    }

    package func collect(epoch: UInt64, fragmentID: Int, rows: PublishedView?, checkpoint: CheckpointPiece?) {
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
            let latency = ContinuousClock.now - first.injectedAt
            latencies.append(BarrierLatency(epoch: first.epoch, isCheckpoint: first.cut != nil, nanoseconds: latency.nanoseconds))
            if latencies.count > Self.keptBarrierLatencies { latencies.removeFirst(latencies.count - Self.keptBarrierLatencies) }
            if !first.rows.isEmpty { publish(first.rows, first.epoch) }
            if let cut = first.cut, let hooks = checkpointHooks {
                hooks.write(EpochCheckpoint(epoch: first.epoch, cut: cut, pieces: cut.tables + first.pieces.sorted { $0.view < $1.view }))
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
    /// gate held exclusively, so nothing new is in flight afterwards.
    private func drain() {
        let epoch = injectBarrierExclusively(checkpoint: false)
        condition.lock()
        while committed < epoch && !stopped { condition.wait() }
        condition.unlock()
    }

    // MARK: Views

    /// Starts maintaining view `id` by `plan`, starting from the current rows of the relations it
    /// reads (here `snapshot` gives them, called with the graph drained and writes paused; a
    /// server's runtime reads them itself, ``createView(id:name:plan:context:restoring:sink:)``) or,
    /// with `restoring`, from the state a checkpoint holds (its inputs then go on from that
    /// checkpoint's cut). Returns the epoch after which the view shows its first complete
    /// contents; that barrier is a checkpoint, so the view is in the next one.
    package func createView(
        id: Int, name: String, plan: StreamPlan, context: EvaluationContext, restoring: RestoredTables? = nil, sink: SinkCommitter? = nil,
        snapshot: (Int) throws(SluiceError) -> [Chunk]
    ) throws(SluiceError) -> UInt64 {
        try gate.withExclusive { () throws(SluiceError) -> UInt64 in
            try createViewExclusively(
                id: id, name: name, plan: plan, context: context, restoring: restoring, sink: sink,
                snapshot: { (relation) throws(SluiceError) in BackfillSnapshot(try snapshot(relation)) })
        }
    }

    /// ``createView(id:name:plan:context:restoring:sink:snapshot:)`` with each input's rows as the
    /// runtime has them (``setRows(_:for:)``), read as the backfill reaches them.
    package func createView(
        id: Int, name: String, plan: StreamPlan, context: EvaluationContext, restoring: RestoredTables? = nil, sink: SinkCommitter? = nil
    ) throws(SluiceError) -> UInt64 {
        try gate.withExclusive { () throws(SluiceError) -> UInt64 in
            let read = plan.scannedColumns
            return try createViewExclusively(
                id: id, name: name, plan: plan, context: context, restoring: restoring, sink: sink,
                snapshot: { (relation) throws(SluiceError) in try self.rows(of: relation, columns: read[relation] ?? []) })
        }
    }

    /// Where relation `id`'s current rows are, for the backfills of views that read it.
    package func setRows(_ rows: RelationRows, for id: Int) {
        relationRows.withLock { $0[id] = rows }
    }

    /// Forgets relation `id`'s rows (it was dropped).
    package func removeRows(for id: Int) {
        relationRows.withLock { _ = $0.removeValue(forKey: id) }
    }

    private func rows(of id: Int, columns: Set<Int>) throws(SluiceError) -> BackfillSnapshot {
        guard let rows = relationRows.withLock({ $0[id] }) else { throw SluiceError(.undefinedTable, "relation \(id) does not exist") }
        return try rows.snapshot(columns: columns)
    }

    private func createViewExclusively(
        id: Int, name: String, plan: StreamPlan, context: EvaluationContext, restoring: RestoredTables?, sink: SinkCommitter?,
        snapshot: (Int) throws(SluiceError) -> BackfillSnapshot
    ) throws(SluiceError) -> UInt64 {
        // The terminal node says what the changes become; a sink's comes with its committer.
        if (plan.node is SinkNode) != (sink != nil) {
            throw SluiceError.internalError("view \(name)'s plan and its sink disagree on whether it is a sink")
        }
        let graph = try OperatorGraph(plan: plan.body, stateTableBase: id * 10_000, context: context)
        if condition.withLock({ !fragments.isEmpty }) { drain() }
        var backfill: [(upstream: Int, snapshot: BackfillSnapshot)] = []
        if restoring == nil {
            for (upstream, relation) in graph.upstreams.enumerated() {
                backfill.append((upstream, try snapshot(relation)))
            }
        }
        // The time the backfill's own epoch ends carry: the last barrier's, so that the next
        // barrier's is never less (the first one's when none was injected yet).
        let backfillTime = condition.withLock { () -> Int64 in
            if lastTimestamp == .min { lastTimestamp = clock() }
            return lastTimestamp
        }
        let fragment = try Fragment(
            id: id, name: name, graph: graph, planText: plan.description, backfill: backfill, backfillTime: backfillTime,
            collector: self, pool: pool,
            checkpointing: isCheckpointing, restoring: restoring, memory: memory, sink: sink)
        condition.withLock {
            if graph.upstreams.isEmpty { ticker.subscribe(fragmentID: id, queue: fragment.queue, input: 0) }
            let read = plan.scannedColumns
            for (upstream, relation) in graph.upstreams.enumerated() {
                if let view = fragments[relation] {
                    view.output.subscribe(fragmentID: id, queue: fragment.queue, input: upstream)
                } else {
                    // A table's or source's reader says which columns it reads, so a source
                    // can leave the others undecoded.
                    inputLocked(relation).stream.subscribe(fragmentID: id, queue: fragment.queue, input: upstream, columns: read[relation] ?? [])
                }
            }
            fragments[id] = fragment
        }
        announceReaders()
        fragment.start()
        return injectBarrierExclusively(checkpoint: true)
    }

    /// Subscribes `queue` (a reader outside the graph, with id `reader`) to table or source
    /// `relation`'s change stream. Its barriers are not collected: the reader never holds up
    /// an epoch, only, when its queue is full, the writers of `relation`.
    package func subscribe(_ queue: MessageQueue, to relation: Int, reader: Int) {
        condition.withLock { inputLocked(relation).stream.subscribe(fragmentID: reader, queue: queue, input: 0) }
        announceReaders()
    }

    /// Stops maintaining view `id` and frees its state. Views over it must be dropped first.
    package func dropView(id: Int) {
        let dropped = gate.withExclusive { condition.withLock { () -> Fragment? in
            guard let fragment = fragments.removeValue(forKey: id) else { return nil }
            ticker.unsubscribe(fragmentID: id)
            for relation in fragment.upstreams {
                if let view = fragments[relation] {
                    view.output.unsubscribe(fragmentID: id)
                } else {
                    inputs[relation]?.stream.unsubscribe(fragmentID: id)
                }
            }
            fragment.stop()
            for index in inflight.indices {
                inflight[index].expected.remove(id)
                inflight[index].rows.removeValue(forKey: id)
                inflight[index].pieces.removeAll { $0.view == id }
            }
            commitReady()
            return fragment
        } }
        // A sink's committer may be talking to its target: closed with no lock held.
        dropped?.sinkCommitter?.close()
    }

    /// The checkpoint of `epoch` is durable: sinks may commit what it holds, unless their state
    /// was left out of it (`leftOut`: a chain broken by an earlier failed checkpoint).
    package func checkpointWritten(epoch: UInt64, leftOut: [Int] = []) {
        let sinks = condition.withLock { fragments.values.filter { !leftOut.contains($0.id) }.compactMap(\.sinkCommitter) }
        for sink in sinks { sink.durable(epoch: epoch) }
    }

    /// The running views, by id.
    package var views: [Fragment] {
        condition.withLock { fragments.values.sorted { $0.id < $1.id } }
    }

    /// Whether view `id` hands each epoch's changes to its indexes from the next epoch on.
    package func setKeepsChanges(_ keeps: Bool, view id: Int) {
        condition.withLock { fragments[id] }?.setKeepsChanges(keeps)
    }

    /// Stops every fragment, the workers and the barrier thread; wakes all waiters.
    package func stop() {
        pool.stop()
        let sinks = condition.withLock { () -> [SinkCommitter] in
            stopped = true
            let sinks = fragments.values.compactMap(\.sinkCommitter)
            for fragment in fragments.values { fragment.stop() }
            fragments.removeAll()
            for waiter in waiters { waiter.continuation.resume() }
            waiters = []
            for waiter in releaseWaiters { waiter.resume() }
            releaseWaiters = []
            condition.broadcast()
            return sinks
        }
        for sink in sinks { sink.close() }
    }
}

/// How long one barrier took to pass every fragment: from injection until the last reported.
package struct BarrierLatency: Sendable, Equatable {
    package var epoch: UInt64
    package var isCheckpoint: Bool
    package var nanoseconds: Int64
}
