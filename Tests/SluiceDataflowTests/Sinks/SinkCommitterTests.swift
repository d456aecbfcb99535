import Foundation
import Synchronization
import SluiceCore
import Testing

@testable import SluiceDataflow

/// A sink that records its commits and skips epochs it already holds, as a real target does;
/// it fails while `failing` is set.
final class RecordingSink: StreamSink {
    let commits = Mutex<[[UInt64]]>([])
    let failing = Atomic<Bool>(false)

    func write(_ chunk: StreamChunk) throws(SluiceError) {}
    func prepare(epoch: UInt64) throws(SluiceError) -> [UInt8]? { Array("files-\(epoch)".utf8) }

    func commit(_ prepared: [PreparedEpoch]) throws(SluiceError) -> SinkCommitSummary {
        if failing.load(ordering: .relaxed) { throw SluiceError(.ioError, "the catalog is unreachable") }
        let held = (try? lastCommittedEpoch()) ?? nil
        let new = prepared.filter { $0.epoch > (held ?? 0) }.map(\.epoch)
        if !new.isEmpty { commits.withLock { $0.append(new) } }
        return SinkCommitSummary(files: new.count, rows: new.count)
    }

    func lastCommittedEpoch() throws(SluiceError) -> UInt64? { commits.withLock { $0.last?.last } }
    func close() {}
}

@Suite struct SinkCommitterTests {
    static func entry(_ epoch: UInt64) -> PreparedEpoch { PreparedEpoch(epoch: epoch, token: Array("files-\(epoch)".utf8)) }

    @Test func commitsEveryIntervalDurableCheckpointsWhatTheyHold() throws {
        let sink = RecordingSink()
        let committer = SinkCommitter(sink: sink, interval: 2, statistics: SinkStatistics())
        #expect(committer.prepared(Self.entry(1)) == [Self.entry(1)])
        #expect(committer.prepared(Self.entry(2)) == [Self.entry(1), Self.entry(2)])
        committer.durable(epoch: 1)
        _ = committer.prepared(Self.entry(3))
        // The second durable checkpoint (epoch 2) commits what it holds, not epoch 3.
        committer.durable(epoch: 2)
        try committer.commitNow()  // (also waits for the queue)
        #expect(sink.commits.withLock { $0 } == [[1, 2]])
        #expect(committer.pending == [Self.entry(3)])
        #expect(committer.statistics.lastCommittedEpoch.load(ordering: .relaxed) == 2)
    }

    @Test func aFailedCommitKeepsItsEpochsAndIsRetried() throws {
        let sink = RecordingSink()
        let committer = SinkCommitter(sink: sink, interval: 1, statistics: SinkStatistics())
        sink.failing.store(true, ordering: .relaxed)
        _ = committer.prepared(Self.entry(5))
        committer.durable(epoch: 5)
        #expect(throws: SluiceError.self) { try committer.commitNow() }
        #expect(committer.pending == [Self.entry(5)])
        #expect(committer.statistics.lastError == "the catalog is unreachable")
        #expect(committer.statistics.commitFailures.load(ordering: .relaxed) >= 1)
        sink.failing.store(false, ordering: .relaxed)
        try committer.commitNow()
        #expect(sink.commits.withLock { $0 } == [[5]])
        #expect(committer.pending.isEmpty)
        #expect(committer.statistics.lastError == nil)
    }

    @Test func recoveryCommitsThePendingEpochsOnceAndSkipsWhatTheTargetHolds() throws {
        let sink = RecordingSink()
        // Epochs 3 and 4 were committed before the crash; the checkpoint still lists 3, 4 and 6.
        _ = try sink.commit([Self.entry(3), Self.entry(4)])
        let committer = SinkCommitter(sink: sink, interval: 10, statistics: SinkStatistics())
        try committer.recovered([Self.entry(6), Self.entry(3), Self.entry(4)])
        // Not yet durable again: nothing commits.
        try committer.commitNow()
        #expect(sink.commits.withLock { $0 } == [[3, 4]])
        // The first durable checkpoint after recovery commits at once, whatever the interval.
        committer.durable(epoch: 7)
        try committer.commitNow()
        #expect(sink.commits.withLock { $0 } == [[3, 4], [6]])
        #expect(committer.pending.isEmpty)
    }

    @Test func preparedEpochListsSurviveTheirEncodingAndDamageIsAnError() throws {
        let list = [Self.entry(1), PreparedEpoch(epoch: 1 << 40, token: []), Self.entry(9)]
        let bytes = PreparedEpoch.encode(list)
        #expect(try PreparedEpoch.decode(bytes) == list)
        #expect(try PreparedEpoch.decode([]) == [])
        for cut in 1 ..< bytes.count where cut != 8 + 4 + 7 && cut != 8 + 4 + 7 + 12 {
            #expect(throws: SluiceError.self) { _ = try PreparedEpoch.decode(Array(bytes.prefix(cut))) }
        }
    }
}
