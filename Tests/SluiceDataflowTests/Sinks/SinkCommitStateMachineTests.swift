import SluiceCore
import Testing

@testable import SluiceDataflow

@Suite struct SinkCommitStateMachineTests {
    static func prepared(_ epoch: UInt64, sink: Int = 1) -> PreparedEpoch {
        PreparedEpoch(sinkID: sink, epoch: epoch, token: Array("files-\(epoch)".utf8))
    }

    @Test func anEpochCommitsOnlyAfterItsCheckpointIsDurable() {
        var machine = SinkCommitStateMachine(sinkID: 1)
        #expect(machine.barrierReached(epoch: 1) == .prepare(epoch: 1))
        #expect(machine.checkpointDurable(epoch: 1) == .none)
        #expect(machine.prepareFinished(Self.prepared(1)) == .none)
        #expect(machine.checkpointDurable(epoch: 1) == .commit([Self.prepared(1)]))
        #expect(machine.checkpointDurable(epoch: 1) == .none)
    }

    @Test func preparesRunOneAtATimeInEpochOrder() {
        var machine = SinkCommitStateMachine(sinkID: 1)
        #expect(machine.barrierReached(epoch: 1) == .prepare(epoch: 1))
        #expect(machine.barrierReached(epoch: 2) == .none)
        #expect(machine.barrierReached(epoch: 2) == .none)  // repeated: ignored
        #expect(machine.barrierReached(epoch: 3) == .none)
        #expect(machine.prepareFinished(Self.prepared(2)) == .none)  // not the one being prepared
        #expect(machine.prepareFinished(Self.prepared(1)) == .prepare(epoch: 2))
        #expect(machine.prepareFinished(Self.prepared(2)) == .prepare(epoch: 3))
        #expect(machine.prepareFinished(Self.prepared(3)) == .none)
        // A durable checkpoint commits every prepared epoch up to it, in order.
        #expect(machine.checkpointDurable(epoch: 2) == .commit([Self.prepared(1), Self.prepared(2)]))
        #expect(machine.checkpointDurable(epoch: 3) == .commit([Self.prepared(3)]))
        // An epoch at or below what is committed is not prepared again.
        #expect(machine.barrierReached(epoch: 3) == .none)
    }

    @Test func aFailedCheckpointAbortsWhatWasPreparedForIt() {
        var machine = SinkCommitStateMachine(sinkID: 1)
        _ = machine.barrierReached(epoch: 4)
        _ = machine.prepareFinished(Self.prepared(4))
        _ = machine.barrierReached(epoch: 5)
        _ = machine.prepareFinished(Self.prepared(5))
        #expect(machine.checkpointFailed(epoch: 4) == .abort([Self.prepared(4)]))
        #expect(machine.checkpointDurable(epoch: 5) == .commit([Self.prepared(5)]))
    }

    @Test func aFailedPrepareMovesOnToTheNextEpoch() {
        var machine = SinkCommitStateMachine(sinkID: 1)
        _ = machine.barrierReached(epoch: 1)
        _ = machine.barrierReached(epoch: 2)
        #expect(machine.prepareFailed(epoch: 1) == .prepare(epoch: 2))
        #expect(machine.prepareFinished(Self.prepared(2)) == .none)
        #expect(machine.checkpointDurable(epoch: 2) == .commit([Self.prepared(2)]))
    }

    @Test func recoveryCommitsTheRestoredCheckpointsPreparedEpochsAgain() {
        var machine = SinkCommitStateMachine(sinkID: 1)
        _ = machine.barrierReached(epoch: 9)
        let pending = [Self.prepared(7), Self.prepared(6), Self.prepared(7, sink: 2)]
        #expect(machine.recovered(pending: pending) == .commit([Self.prepared(6), Self.prepared(7)]))
        // Nothing at or below the recovered epochs is prepared again; the next one is.
        #expect(machine.barrierReached(epoch: 7) == .none)
        #expect(machine.barrierReached(epoch: 8) == .prepare(epoch: 8))
    }
}
