import Synchronization
import SluiceCore
import SluicePlan
import SluiceState

/// The last operator of a fragment, which the root of its plan names (``MaterializeNode``,
/// ``SinkNode``): what the fragment's changes become. The fragment runs its operator graph into
/// it a chunk at a time, and at each barrier has it finish the epoch and write its state into
/// the checkpoint beside the graph's.
///
/// Touched only by the fragment's thread.
protocol TerminalOperator: AnyObject {
    /// Takes a chunk of the graph's output.
    func take(_ chunk: StreamChunk)
    /// Ends an epoch of the backfill's own: what it took is committed to its state, nothing
    /// is published or prepared.
    func finishBackfillStep()
    /// Whether the backfill may end epochs of its own (not while a view keeps each epoch's
    /// changes for its indexes).
    var takesBackfillSteps: Bool { get }
    /// Ends the epoch of `barrier`: what it publishes (a view's rows), and false when the
    /// epoch failed and the fragment must sit the checkpoint out.
    func finishEpoch(_ barrier: Barrier, checkpointing: Bool) -> (rows: PublishedView?, ok: Bool)
    /// Its state tables' images for a checkpoint.
    func checkpoint(everything: Bool) -> [FragmentCheckpoint.PagedImage]
    /// Takes its state from a checkpoint's tables.
    func restore(_ tables: RestoredTables) throws(SluiceError)
    /// The epoch is as durable as it will get (no checkpoints are taken).
    func durable(epoch: UInt64)
    var stateBytes: Int { get }
    var rowCount: Int { get }
    /// Bytes of rows it took, in all (a backfill step counts what a view takes).
    var emittedBytes: Int { get }
}

/// A materialized view's rows (``Materializer``): each chunk staged into the view's table and
/// passed on to the views that read it; published at each barrier.
final class MaterializeOperator: TerminalOperator, @unchecked Sendable {
    private var materializer: Materializer
    private let output: ChangeDispatcher
    private let statistics: FragmentStatistics
    /// Whether the view has indexes, which take each epoch's changes (set by anyone; read at
    /// each barrier).
    let keepsChanges = Atomic<Bool>(false)
    /// Bytes of rows passed on, in all (a backfill step counts them).
    private(set) var emittedBytes = 0

    init(
        types: [DataType], identity: Materializer.RowIdentity, memory: StateMemory?, checkpointing: Bool, output: ChangeDispatcher,
        statistics: FragmentStatistics
    ) {
        materializer = Materializer(types: types, identity: identity, memory: memory)
        materializer.tracksChanges = checkpointing
        self.output = output
        self.statistics = statistics
    }

    func take(_ chunk: StreamChunk) {
        statistics.rowsOut.add(chunk.count, ordering: .relaxed)
        emittedBytes &+= chunk.data.byteCount
        materializer.apply(chunk)
        output.sendWithoutWaiting(.chunk(chunk))
    }

    func finishBackfillStep() {
        materializer.commitUnpublished()
    }

    var takesBackfillSteps: Bool { !materializer.keepsChanges }

    func finishEpoch(_ barrier: Barrier, checkpointing: Bool) -> (rows: PublishedView?, ok: Bool) {
        materializer.keepsChanges = keepsChanges.load(ordering: .acquiring)
        return (materializer.publish(), true)
    }

    func checkpoint(everything: Bool) -> [FragmentCheckpoint.PagedImage] {
        [materializer.checkpoint(everything: everything)]
    }

    func restore(_ tables: RestoredTables) throws(SluiceError) {
        try materializer.restore(tables)
    }

    func durable(epoch: UInt64) {}

    var stateBytes: Int { materializer.stateBytes }
    var rowCount: Int { materializer.rowCount }
}

/// A sink's writes: each chunk handed to the sink, prepared at checkpoint barriers (or every
/// barrier without checkpoints), and the epochs prepared and not yet committed kept in a state
/// table of their own beside the sink's own tables (``SinkStateTables``), so a restart commits
/// them. The committer commits them once their checkpoint is durable.
final class SinkOperator: TerminalOperator {
    let committer: SinkCommitter
    private var progress = OperatorProgress(id: SinkOperator.stateTableID, type: .bytea)
    private let statistics: FragmentStatistics
    /// The id of a sink's prepared epochs among its fragment's state tables.
    static let stateTableID = Int(UInt32.max) - 1

    init(committer: SinkCommitter, memory: StateMemory?, checkpointing: Bool, statistics: FragmentStatistics) {
        self.committer = committer
        self.statistics = statistics
        if let memory {
            progress.useMemory(memory)
            committer.sink.stateTables?.useMemory(memory)
        }
        if checkpointing {
            progress.enableCheckpoints()
            committer.sink.stateTables?.enableCheckpoints()
        }
    }

    func take(_ chunk: StreamChunk) {
        do {
            try committer.sink.write(chunk)
            committer.statistics.rowsIn.add(chunk.count, ordering: .relaxed)
        } catch {
            statistics.record(error)
            committer.statistics.record(error)
        }
    }

    func finishBackfillStep() {}

    var takesBackfillSteps: Bool { true }

    /// A sink whose prepare failed sits the checkpoint out: its rows are in no file yet, and
    /// the sources' positions in the checkpoint are past them.
    func finishEpoch(_ barrier: Barrier, checkpointing: Bool) -> (rows: PublishedView?, ok: Bool) {
        guard barrier.isCheckpoint || !checkpointing else { return (nil, true) }
        return (nil, prepare(epoch: barrier.epoch))
    }

    /// Has the sink write out what it took this epoch, and keeps the epochs prepared and not yet
    /// committed in the state table, for the checkpoint. A failed prepare keeps the rows in the
    /// sink for the next barrier.
    private func prepare(epoch: UInt64) -> Bool {
        var pending = committer.pending
        do {
            if let token = try committer.sink.prepare(epoch: epoch) {
                try Failpoints.hit("sink-after-prepare")
                pending = committer.prepared(PreparedEpoch(epoch: epoch, token: token))
            }
        } catch {
            statistics.record(error)
            committer.statistics.record(error)
            return false
        }
        let encoded = PreparedEpoch.encode(pending)
        if case .bytea(let recorded) = progress.value, recorded == encoded { return true }
        if progress.value == nil && encoded.isEmpty { return true }
        progress.record(.bytea(encoded))
        return true
    }

    func checkpoint(everything: Bool) -> [FragmentCheckpoint.PagedImage] {
        [progress.checkpoint(everything: everything)] + (committer.sink.stateTables?.checkpoint(everything: everything) ?? [])
    }

    func restore(_ tables: RestoredTables) throws(SluiceError) {
        try progress.restore(tables)
        try committer.sink.stateTables?.restore(tables)
        if case .bytea(let bytes) = progress.value { try committer.recovered(try PreparedEpoch.decode(bytes)) }
    }

    func durable(epoch: UInt64) {
        committer.durable(epoch: epoch)
    }

    var stateBytes: Int { progress.byteCount + (committer.sink.stateTables?.byteCount ?? 0) }
    var rowCount: Int { 0 }
    var emittedBytes: Int { 0 }
}
