import Foundation
import Synchronization
import SluiceCore
import SluiceState

/// What a fragment tells the runtime when it has finished an epoch.
package protocol EpochCollector: AnyObject, Sendable {
    /// Fragment `fragmentID` finished `epoch`; `rows` is its view's new contents, or nil when
    /// the epoch changed nothing; `checkpoint` its state for a checkpoint barrier.
    func collect(epoch: UInt64, fragmentID: Int, rows: PublishedView?, checkpoint: CheckpointPiece?)
    /// Raised when a checkpoint was lost: a fragment whose base is older writes a new one.
    var requiredBaseGeneration: Int { get }
}

/// Counters a fragment keeps for the system views; updated by its thread, read by anyone.
package final class FragmentStatistics: Sendable {
    package let rowsIn = Atomic<Int>(0)
    /// Changes the fragment's view emitted (inserts, deletes and both halves of updates).
    package let rowsOut = Atomic<Int>(0)
    package let rowCount = Atomic<Int>(0)
    /// Bytes of state the fragment holds: its operators' and its view's pages, as of the last
    /// finished epoch.
    package let stateBytes = Atomic<Int>(0)
    package let errors = Atomic<Int>(0)
    /// The backfill: rows of the inputs' snapshot to run through the graph, and rows done.
    package let backfillRows = Atomic<Int>(0)
    package let backfilledRows = Atomic<Int>(0)
    /// When the fragment was made (microseconds since 1970): when its backfill started.
    package let createdAt = Atomic<Int64>(Int64(Date().timeIntervalSince1970 * 1_000_000))
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
    /// Has the view's epochs keep their changes (for its indexes) from the next epoch on (called
    /// by anyone).
    package func setKeepsChanges(_ keeps: Bool) {
        (terminal as? MaterializeOperator)?.keepsChanges.store(keeps, ordering: .releasing)
    }
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
    /// What the graph's output becomes: the view's rows, or the sink's writes.
    private let terminal: any TerminalOperator
    private var backfill: [(upstream: Int, snapshot: BackfillSnapshot)]
    /// Why the backfill stopped short (a source's history could not be read), for the CREATE
    /// that made the view to report.
    package let backfillFailure = Mutex<SluiceError?>(nil)
    private var backfillProcessingFailed = false
    /// The time the backfill's own epoch ends carry (``finishBackfillStep()``).
    private let backfillTime: Int64
    /// Bytes of backfill after which the fragment ends an epoch of its own (under a memory
    /// limit: a 32nd of it, as the runtime cuts written epochs); nil: never.
    private let backfillStepBytes: Int?
    /// Where a backfill in vnode order puts its buckets (the memory limit's spill directory).
    private let backfillSpillDirectory: String?
    /// Bytes of rows the fragment emitted, in all: a backfill step counts what the view takes
    /// as well as what it reads (a join's output may be many times its input).
    private var emittedBytes: Int { terminal.emittedBytes }
    /// Bytes the backfill ran since its last step, and ``emittedBytes`` at that step.
    private var stepRead = 0
    private var stepEmittedAt = 0
    private var started = false
    private weak var collector: (any EpochCollector)?
    private var blocked: [Bool]
    private var blockedCount = 0
    /// Messages from inputs whose barrier came early, kept until the others catch up.
    private var held: [[StreamMessage]]
    /// Checkpoints: whether they are taken, and the view's chain since its last base.
    private let checkpointing: Bool
    private var chain = CheckpointChain()

    /// With `checkpointing`, the fragment writes its state at checkpoint barriers; with
    /// `restoring` (each state table's contents, by id), it starts from a checkpoint's state
    /// instead of `backfill`.
    package init(
        id: Int, name: String, graph: OperatorGraph, planText: String, backfill: [(upstream: Int, snapshot: BackfillSnapshot)],
        backfillTime: Int64 = .min, collector: any EpochCollector, pool: WorkerPool, queueCapacity: Int = 64, checkpointing: Bool = false,
        restoring: RestoredTables? = nil, memory: StateMemory? = nil, sink: SinkCommitter? = nil
    ) throws(SluiceError) {
        self.id = id
        self.name = name
        self.planText = planText
        self.upstreams = graph.upstreams
        // Set up before they move in: both are fresh, so nothing they hold is copied.
        var graph = graph
        if let memory { graph.useMemory(memory) }
        if checkpointing { graph.enableCheckpoints() }
        let terminal: any TerminalOperator
        if let sink {
            terminal = SinkOperator(committer: sink, memory: memory, checkpointing: checkpointing, statistics: statistics)
        } else {
            terminal = MaterializeOperator(
                types: graph.outputTypes, identity: graph.outputIdentity, memory: memory, checkpointing: checkpointing, output: output,
                statistics: statistics)
        }
        if let restoring { try Self.restore(&graph, terminal, from: restoring) }
        self.graph = graph
        self.terminal = terminal
        self.backfill = backfill
        self.backfillTime = backfillTime
        self.backfillStepBytes = memory.map { max($0.limit / 32, 1 << 20) }
        self.backfillSpillDirectory = memory?.spillDirectory
        statistics.backfillRows.store(backfill.reduce(0) { $0 + $1.snapshot.rowCount }, ordering: .relaxed)
        self.collector = collector
        self.pool = pool
        self.queue = MessageQueue(capacity: queueCapacity)
        let inputCount = max(graph.upstreams.count, 1)
        self.blocked = [Bool](repeating: false, count: inputCount)
        self.held = [[StreamMessage]](repeating: [], count: inputCount)
        self.checkpointing = checkpointing
        queue.schedule = { [weak self] in self?.wake() }
        if let restoring {
            chain = CheckpointChain(restoredBytes: restoring.byteCount, generation: collector.requiredBaseGeneration)
            started = true
        }
    }

    /// Loads a checkpoint's state into the operators and the terminal (the view's rows, a
    /// sink's prepared epochs), the two at once (on two threads): each merges its tables'
    /// chains on its own.
    private static func restore(
        _ graph: inout OperatorGraph, _ terminal: any TerminalOperator, from tables: RestoredTables
    ) throws(SluiceError) {
        let failures = Mutex<[SluiceError]>([])
        withUnsafeMutablePointer(to: &graph) { graph in
            // Each thread changes only its own value.
            nonisolated(unsafe) let graph = graph
            nonisolated(unsafe) let terminal = terminal
            DispatchQueue.concurrentPerform(iterations: 2) { part in
                do throws(SluiceError) {
                    if part == 0 { try graph.pointee.restore(tables) } else { try terminal.restore(tables) }
                } catch {
                    failures.withLock { $0.append(error) }
                }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw failure }
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
                try processingBackfill { () throws(SluiceError) in try graph.start(into: emit) }
                stepEmittedAt = emittedBytes
                for (upstream, snapshot) in backfill {
                    if let limit = backfillStepBytes, let directory = backfillSpillDirectory, snapshot.mayHoldMany,
                        let point = graph.backfillPoint(upstream: upstream)
                    {
                        try backfillInVnodeOrder(snapshot, at: point, runBytes: limit, spillDirectory: directory)
                        continue
                    }
                    var readRows = 0
                    try snapshot.forEach { (chunk: Chunk) throws(SluiceError) in
                        statistics.rowsIn.add(chunk.count, ordering: .relaxed)
                        try processingBackfill { () throws(SluiceError) in
                            try graph.process(StreamChunk.inserts(chunk), upstream: upstream, into: emit)
                            statistics.backfilledRows.add(chunk.count, ordering: .relaxed)
                            readRows += chunk.count
                            try advanceBackfill(by: chunk.byteCount)
                        }
                    }
                    // (A source's row count was an estimate: the rows read are the count.)
                    if readRows != snapshot.rowCount { statistics.backfillRows.add(readRows - snapshot.rowCount, ordering: .relaxed) }
                }
            } catch {
                statistics.record(error)
                // The source's history could not be read: the CREATE reports it. (A failure of
                // the view's own work is recorded as at any other time.)
                if !backfillProcessingFailed { backfillFailure.withLock { $0 = error } }
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
                try graph.process(chunk, upstream: input, into: emit, watermarks: emit)
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
        case .watermark(let watermark):
            do {
                try graph.advance(watermark, upstream: input, into: emit, watermarks: emit)
            } catch {
                statistics.record(error)
            }
        }
    }

    /// Backfills one input whose rows go, through operators that keep no state, to an operator
    /// whose state is keyed by their vnodes (a grouping, a join side): the snapshot is read
    /// whole first, each row run as far as that operator and put in its vnode's bucket
    /// (``BackfillBuckets``, on disk past a step's bytes), then the buckets go on in vnode
    /// order, with a step (``finishBackfillStep()``) as rows and output pass ``backfillStepBytes``. So each step reads and
    /// rewrites a range of the operator's state (and of the view's, when it is keyed alike),
    /// where rows in the table's order would touch pages all over it in every step. Half of the
    /// progress shown is the read, half the run.
    private func backfillInVnodeOrder(
        _ snapshot: BackfillSnapshot, at point: BackfillPoint, runBytes: Int, spillDirectory: String
    ) throws(SluiceError) {
        let buckets = BackfillBuckets(runBytes: runBytes, spillDirectory: spillDirectory)
        var readProgress = 0
        var readRows = 0
        var reachedRows = 0
        try snapshot.forEach { (chunk: Chunk) throws(SluiceError) in
            statistics.rowsIn.add(chunk.count, ordering: .relaxed)
            try processingBackfill { () throws(SluiceError) in
                for reached in try graph.process(StreamChunk.inserts(chunk), below: point) {
                    if reached.ops.allSatisfy({ $0 == .insert }) {
                        try buckets.add(reached.data, vnodes: point.vnodes(reached.data))
                        reachedRows += reached.count
                    } else {
                        try graph.process(reached, at: point, into: emit, watermarks: emit)
                    }
                }
            }
            statistics.backfilledRows.add(chunk.count / 2, ordering: .relaxed)
            readProgress += chunk.count / 2
            readRows += chunk.count
        }
        // (A source's row count was an estimate: the rows read are the count.)
        if readRows != snapshot.rowCount { statistics.backfillRows.add(readRows - snapshot.rowCount, ordering: .relaxed) }
        let runProgress = readRows - readProgress
        try processingBackfill { () throws(SluiceError) in try forEachBucketedChunk(buckets, point: point, runProgress: runProgress, reachedRows: reachedRows) }
    }

    /// The rest of ``backfillInVnodeOrder(_:at:runBytes:spillDirectory:)``: the buckets' rows
    /// through the graph, in vnode order.
    private func forEachBucketedChunk(_ buckets: BackfillBuckets, point: BackfillPoint, runProgress: Int, reachedRows: Int) throws(SluiceError) {
        var ranRows = 0
        try buckets.forEachChunk { (rows: Chunk) throws(SluiceError) in
            try graph.process(StreamChunk.inserts(rows), at: point, into: emit, watermarks: emit)
            let before = reachedRows > 0 ? runProgress * ranRows / reachedRows : 0
            ranRows += rows.count
            let after = reachedRows > 0 ? runProgress * ranRows / reachedRows : 0
            statistics.backfilledRows.add(after - before, ordering: .relaxed)
            try advanceBackfill(by: rows.byteCount)
        }
        if reachedRows == 0 { statistics.backfilledRows.add(runProgress, ordering: .relaxed) }
    }

    /// Runs `body`, the backfill's own work on rows read; a failure of it is the view's, not
    /// the reading's (``backfillFailure``).
    private func processingBackfill(_ body: () throws(SluiceError) -> Void) throws(SluiceError) {
        do {
            try body()
        } catch {
            backfillProcessingFailed = true
            throw error
        }
    }

    /// Counts `bytes` more of backfilled rows run through the graph; once they and what the
    /// view took since the last step pass ``backfillStepBytes``, ends a step.
    private func advanceBackfill(by bytes: Int) throws(SluiceError) {
        guard let limit = backfillStepBytes else { return }
        stepRead += bytes
        guard stepRead + emittedBytes - stepEmittedAt >= limit else { return }
        try finishBackfillStep()
        stepRead = 0
        stepEmittedAt = emittedBytes
    }

    /// Ends an epoch of the backfill's own, seen by no one else: the operators write what the
    /// rows so far changed into their state tables and pass their output on, and the view's
    /// table takes it, so that every table commits (evicting past the memory limit) as it
    /// would at a barrier. A large backfill so goes through the state a 32nd of the memory
    /// limit at a time (RisingWave's backfill is chunked likewise), instead of holding all of
    /// it as one epoch's changes. Nothing is published or checkpointed: the view shows its
    /// rows at the first real barrier after the backfill, as before. (Views that keep their
    /// changes for an index never take this path: a view has no index while it backfills.)
    private func finishBackfillStep() throws(SluiceError) {
        guard terminal.takesBackfillSteps else { return }
        try Failpoints.hit("backfill-step")
        var state = StateWriter(mode: .none)
        try graph.finishEpoch(Barrier(epoch: 0, isCheckpoint: false, timestamp: backfillTime), state: &state, into: emit, watermarks: emit)
        terminal.finishBackfillStep()
    }

    private func finishEpoch(_ barrier: Barrier) {
        var mode = StateWriter.Mode.none
        let generation = collector?.requiredBaseGeneration ?? 0
        if checkpointing && barrier.isCheckpoint {
            mode = chain.needsBase(stateBytes: statistics.stateBytes.load(ordering: .relaxed), generation: generation) ? .everything : .changes
        }
        var state = StateWriter(mode: mode)
        var failed = false
        do {
            try graph.finishEpoch(barrier, state: &state, into: emit, watermarks: emit)
        } catch {
            statistics.record(error)
            failed = true
        }
        let warnings = graph.takeWarnings()
        if let last = warnings.last { statistics.record(last, count: warnings.count) }
        let (rows, ok) = terminal.finishEpoch(barrier, checkpointing: checkpointing)
        if !ok { failed = true }
        statistics.rowCount.store(terminal.rowCount, ordering: .relaxed)
        let profile = graph.profile
        statistics.record(profile)
        statistics.stateBytes.store(profile.reduce(terminal.stateBytes) { $0 + $1.stateBytes }, ordering: .relaxed)
        var piece: CheckpointPiece?
        if mode != .none {
            for image in terminal.checkpoint(everything: mode == .everything) { state.add(image) }
            if failed {
                // An operator stopped short of its sections: this view sits the checkpoint out and
                // writes a base at the next one.
                chain.invalidate()
            } else {
                piece = CheckpointPiece(
                    state: FragmentCheckpoint(view: id, isBase: mode == .everything, sections: state.sections, pagedTables: state.pagedTables))
                chain.wrote(isBase: mode == .everything, bytes: state.byteCount, generation: generation)
            }
        }
        output.sendWithoutWaiting(.barrier(barrier))
        collector?.collect(epoch: barrier.epoch, fragmentID: id, rows: rows, checkpoint: piece)
        // Without checkpoints nothing is durable: an epoch may commit as soon as it is prepared.
        if !checkpointing { terminal.durable(epoch: barrier.epoch) }
    }

    /// The sink's committer, for a sink's fragment.
    package var sinkCommitter: SinkCommitter? { (terminal as? SinkOperator)?.committer }

    private func emit(_ chunk: StreamChunk) {
        terminal.take(chunk)
    }

    /// Passes the view's watermark on to the views that read it.
    private func emit(_ watermark: Watermark) {
        output.sendWithoutWaiting(.watermark(watermark))
    }
}
