import SluiceCore

/// When a ``TwoPhaseSink`` prepares, commits and aborts, as a state machine that does no I/O:
/// the runtime reports what happened (a barrier reached the sink, a prepare finished, a
/// checkpoint became durable or failed, recovery found a prepared epoch) and performs the
/// action it gets back.
///
/// Rules:
/// - epochs are prepared in order, one per checkpoint barrier; a later barrier never overtakes
///   an earlier prepare (barriers that do not checkpoint need nothing);
/// - an epoch is committed only after its checkpoint is durable, and prepared epochs commit in
///   epoch order: a durable checkpoint commits every prepared epoch up to it;
/// - a failed checkpoint aborts the epochs prepared for it (they are not in any durable
///   checkpoint, so nothing will ask for them again);
/// - after recovery, the prepared epochs of the restored checkpoint are committed again before
///   anything new is prepared (the sink's commit skips what it already did).
package struct SinkCommitStateMachine: Equatable {
    package enum Action: Equatable {
        case prepare(epoch: UInt64)
        case commit([PreparedEpoch])
        case abort([PreparedEpoch])
        case none
    }

    package let sinkID: Int
    /// Epochs whose barrier reached the sink and that are not prepared yet, in order.
    private(set) var waitingToPrepare: [UInt64] = []
    /// An epoch being prepared now.
    private(set) var preparing: UInt64?
    /// Prepared, not yet committed, in epoch order.
    private(set) var prepared: [PreparedEpoch] = []
    /// The last epoch committed; nothing at or below it is committed again except on recovery.
    private(set) var committedThrough: UInt64 = 0

    package init(sinkID: Int) {
        self.sinkID = sinkID
    }

    /// A checkpoint barrier of `epoch` reached the sink.
    package mutating func barrierReached(epoch: UInt64) -> Action {
        guard epoch > (waitingToPrepare.last ?? preparing ?? prepared.last?.epoch ?? committedThrough) else { return .none }
        waitingToPrepare.append(epoch)
        return startNextPrepare()
    }

    /// The sink finished preparing `result.epoch`.
    package mutating func prepareFinished(_ result: PreparedEpoch) -> Action {
        guard result.epoch == preparing, result.sinkID == sinkID else { return .none }
        preparing = nil
        prepared.append(result)
        return startNextPrepare()
    }

    /// Preparing `epoch` failed: the epoch cannot be committed; its checkpoint must fail.
    package mutating func prepareFailed(epoch: UInt64) -> Action {
        guard epoch == preparing else { return .none }
        preparing = nil
        return startNextPrepare()
    }

    /// The checkpoint of `epoch` is durable: commit every prepared epoch up to it.
    package mutating func checkpointDurable(epoch: UInt64) -> Action {
        let ready = prepared.prefix { $0.epoch <= epoch }
        guard !ready.isEmpty else { return .none }
        prepared.removeFirst(ready.count)
        committedThrough = max(committedThrough, ready.last!.epoch)
        return .commit(Array(ready))
    }

    /// The checkpoint of `epoch` failed: abort what was prepared for it and before it.
    package mutating func checkpointFailed(epoch: UInt64) -> Action {
        let doomed = prepared.prefix { $0.epoch <= epoch }
        guard !doomed.isEmpty else { return .none }
        prepared.removeFirst(doomed.count)
        return .abort(Array(doomed))
    }

    /// Recovery restored a checkpoint that held `pending` (prepared, maybe committed before the
    /// crash, maybe not): commit them again; the sink skips what it already did.
    package mutating func recovered(pending: [PreparedEpoch]) -> Action {
        self = SinkCommitStateMachine(sinkID: sinkID)
        let mine = pending.filter { $0.sinkID == sinkID }.sorted { $0.epoch < $1.epoch }
        committedThrough = mine.last?.epoch ?? 0
        return mine.isEmpty ? .none : .commit(mine)
    }

    private mutating func startNextPrepare() -> Action {
        guard preparing == nil, !waitingToPrepare.isEmpty else { return .none }
        let next = waitingToPrepare.removeFirst()
        preparing = next
        return .prepare(epoch: next)
    }
}
