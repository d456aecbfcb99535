import Foundation
import Synchronization
import SluiceCore
import SluiceState

/// Counters a sink keeps for `sluice_sinks`; written by the sink and its committer, read by
/// anyone.
package final class SinkStatistics: Sendable {
    /// Rows the sink took (inserts and deletes alike).
    package let rowsIn = Atomic<Int>(0)
    /// Rows and files made visible by commits.
    package let rowsCommitted = Atomic<Int>(0)
    package let filesCommitted = Atomic<Int>(0)
    package let commits = Atomic<Int>(0)
    package let commitFailures = Atomic<Int>(0)
    package let lastCommittedEpoch = Atomic<UInt64>(0)
    /// When the last commit succeeded, in microseconds since 1970 (0: never).
    package let lastCommitMicros = Atomic<Int64>(0)
    private let errorText = Mutex<String?>(nil)

    package init() {}

    /// The last failure's message; nil once a commit succeeds after it.
    package var lastError: String? { errorText.withLock { $0 } }

    package func record(_ error: SluiceError) {
        errorText.withLock { $0 = error.message }
    }

    func clearError() {
        errorText.withLock { $0 = nil }
    }
}

/// Decides when a ``StreamSink``'s prepared epochs are committed, and commits them on a thread
/// of its own so that neither the sink's fragment nor the checkpoint writer waits for the
/// target (an Iceberg catalog over the network).
///
/// Rules (Flink's committer and RisingWave's `commit_checkpoint_interval`):
/// - the fragment hands over each checkpoint barrier's prepared epoch; the list of those not yet
///   committed goes into that checkpoint, so a crash loses none of them;
/// - once a checkpoint is durable, and every `interval` such checkpoints, every pending epoch at or
///   before it is committed at once, as one commit tagged with the last one's epoch;
/// - a failed commit is retried with exponential backoff (from 1 s up to a minute), and the
///   epochs stay pending meanwhile; nothing is dropped;
/// - after recovery, the restored pending epochs are committed at the first durable checkpoint,
///   less those the target already holds (``StreamSink/lastCommittedEpoch()``).
package final class SinkCommitter: Sendable {
    package let sink: any StreamSink
    package let statistics: SinkStatistics
    private let interval: Int
    private let queue = DispatchQueue(label: "sluice-sink-commit")

    private struct State {
        var pending: [PreparedEpoch] = []
        var durableSinceCommit = 0
        /// The latest durable checkpoint's epoch.
        var durable: UInt64 = 0
        /// After a failure: no attempt before this time (seconds on the monotonic clock).
        var retryAfter: ContinuousClock.Instant?
        var backoff: Duration = .seconds(1)
        var retryScheduled = false
        var closed = false
        /// Set after recovery or a failure: the next durable checkpoint commits whatever the
        /// interval says.
        var commitSoon = false
    }
    private let state = Mutex(State())

    /// - Parameter interval: commit every this many durable checkpoints (at least 1).
    package init(sink: any StreamSink, interval: Int, statistics: SinkStatistics) {
        self.sink = sink
        self.interval = max(1, interval)
        self.statistics = statistics
    }

    /// Epochs prepared and not yet committed, in epoch order.
    package var pending: [PreparedEpoch] { state.withLock { $0.pending } }

    /// The fragment prepared `entry` at a checkpoint barrier: returns every pending epoch, for
    /// the checkpoint.
    package func prepared(_ entry: PreparedEpoch) -> [PreparedEpoch] {
        state.withLock { state in
            state.pending.append(entry)
            return state.pending
        }
    }

    /// The fragment restored `pending` from a checkpoint: they commit at the first durable
    /// checkpoint (the sink skips what the target already holds).
    package func recovered(_ pending: [PreparedEpoch]) throws(SluiceError) {
        try sink.resume(pending)
        state.withLock { state in
            state.pending = pending.sorted { $0.epoch < $1.epoch }
            state.commitSoon = true
        }
    }

    /// The checkpoint of `epoch` is durable.
    package func durable(epoch: UInt64) {
        state.withLock { state in
            state.durable = max(state.durable, epoch)
            state.durableSinceCommit += 1
        }
        queue.async { [self] in attempt() }
    }

    /// Commits every pending epoch up to the latest durable checkpoint now (at a FLUSH of the
    /// sink, and when the server stops), and returns once that commit is done or failed.
    package func commitNow() throws(SluiceError) {
        let failure = queue.sync { () -> SluiceError? in
            state.withLock { $0.commitSoon = true; $0.retryAfter = nil }
            return attempt()
        }
        if let failure { throw failure }
    }

    /// Stops committing; what is pending stays in the last checkpoint for the next start.
    package func close() {
        queue.sync { state.withLock { $0.closed = true } }
        sink.close()
    }

    /// Commits what is due, on the committer's queue. Returns the failure, if any.
    @discardableResult
    private func attempt() -> SluiceError? {
        let due = state.withLock { state -> [PreparedEpoch]? in
            guard !state.closed else { return nil }
            if let retryAfter = state.retryAfter, ContinuousClock.now < retryAfter { return nil }
            guard state.commitSoon || state.durableSinceCommit >= interval else { return nil }
            let ready = state.pending.prefix { $0.epoch <= state.durable }
            return ready.isEmpty ? nil : Array(ready)
        }
        guard let due else {
            // Nothing to commit at this checkpoint: the sink may do deferred upkeep.
            if !state.withLock({ $0.closed }) { sink.idle() }
            return nil
        }
        let summary: SinkCommitSummary
        do {
            try Failpoints.hit("sink-before-commit")
            summary = try sink.commit(due)
            try Failpoints.hit("sink-after-commit")
        } catch {
            statistics.commitFailures.add(1, ordering: .relaxed)
            statistics.record(error)
            let delay = state.withLock { state -> Duration? in
                state.retryAfter = ContinuousClock.now + state.backoff
                let delay = state.backoff
                state.backoff = min(state.backoff * 2, .seconds(60))
                state.commitSoon = true
                guard !state.retryScheduled else { return nil }
                state.retryScheduled = true
                return delay
            }
            if let delay {
                let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
                queue.asyncAfter(deadline: .now() + seconds) { [self] in
                    state.withLock { $0.retryScheduled = false }
                    attempt()
                }
            }
            return error
        }
        let last = due.last!.epoch
        state.withLock { state in
            state.pending.removeFirst(due.count)
            state.durableSinceCommit = 0
            state.commitSoon = false
            state.retryAfter = nil
            state.backoff = .seconds(1)
        }
        statistics.commits.add(1, ordering: .relaxed)
        statistics.filesCommitted.add(summary.files, ordering: .relaxed)
        statistics.rowsCommitted.add(summary.rows, ordering: .relaxed)
        statistics.lastCommittedEpoch.store(last, ordering: .relaxed)
        statistics.lastCommitMicros.store(Int64(Date().timeIntervalSince1970 * 1_000_000), ordering: .relaxed)
        statistics.clearError()
        return nil
    }
}

/// The failpoints the connectors' own steps pass (a file sink between two renames, a CDC
/// snapshot between two chunks), for the connectors, which see the state store only through
/// Dataflow.
package enum ConnectorFailpoints {
    package static func hit(_ name: String) throws(SluiceError) {
        try Failpoints.hit(name)
    }
}
