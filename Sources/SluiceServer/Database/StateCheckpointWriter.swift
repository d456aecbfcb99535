import Foundation
import Synchronization
import SluiceCore
import SluiceDataflow
import SluicePlanner
import SluiceState

/// Writes the views' state checkpoints the stream runtime hands over (``EpochCheckpoint``), one
/// at a time and in epoch order, on a thread of its own, so that no fragment or session waits for
/// the disk. A failure leaves the last good checkpoint, is reported in the server's log and
/// `sluice_checkpoints`, and calls `lost`: every view must then write a base, since its chain
/// misses the failed delta.
final class StateCheckpointWriter: Sendable {
    let checkpoints: StateCheckpoints
    /// Checkpoints are encoded and written at a lower priority than the writers' threads.
    private let queue = BackgroundThread(name: "sluice-state-checkpoints")
    private let totalsBox = Mutex(StateCheckpointTotals())
    /// Checkpoints submitted and not yet written.
    private let pending = Atomic<Int>(0)
    private let lost: @Sendable () -> Void
    private let written: @Sendable (StateCheckpoints.Written) -> Void
    private let record: @Sendable (CheckpointRecord) -> Void
    /// The recent failed checkpoints' epochs and errors (the last 16).
    private let failures = Mutex<[(epoch: UInt64, error: SluiceError)]>([])

    /// - Parameters:
    ///   - lost: called when a checkpoint was not written, or left views out.
    ///   - written: takes each checkpoint written (to drop the log before the kept ones).
    ///   - record: takes each checkpoint's entry for the history.
    init(
        directory: String, lost: @escaping @Sendable () -> Void, written: @escaping @Sendable (StateCheckpoints.Written) -> Void,
        record: @escaping @Sendable (CheckpointRecord) -> Void
    ) throws(SluiceError) {
        checkpoints = try StateCheckpoints(directory: directory)
        self.lost = lost
        self.written = written
        self.record = record
    }

    /// Set once the database stops: a checkpoint of an epoch that finishes after that is dropped.
    private let closed = Mutex(false)

    /// Queues `checkpoint` for writing (unless the writer is closed).
    func submit(_ checkpoint: EpochCheckpoint) {
        closed.withLock { closed in
            guard !closed else { return }
            pending.add(1, ordering: .relaxed)
            queue.async { [self] in
                write(checkpoint)
                pending.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// True while a checkpoint waits behind the one being written: the next is better deferred.
    var isBehind: Bool { pending.load(ordering: .relaxed) > 1 }

    /// Returns once every checkpoint submitted so far is written (or failed).
    func waitForWrites() {
        queue.waitForQueued()
    }

    /// Takes no more checkpoints and returns once those submitted are written (or failed): after
    /// it, nothing writes under the directory.
    func close() {
        closed.withLock { $0 = true }
        waitForWrites()
    }

    /// Returns once the checkpoint of `epoch` (submitted already, or never: a barrier that was
    /// not a checkpoint) is written; throws its error if it failed.
    func waitForWrite(of epoch: UInt64) throws(SluiceError) {
        waitForWrites()
        if let failure = failures.withLock({ $0.last { $0.epoch == epoch } }) { throw failure.error }
    }

    /// What the checkpoints written since the start add up to.
    var totals: StateCheckpointTotals { totalsBox.withLock { $0 } }

    private func write(_ checkpoint: EpochCheckpoint) {
        let started = ContinuousClock.now
        let startedAt = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let pieces = checkpoint.pieces.map(\.state)
        // Numbered by the barrier's epoch, written or failed (a failed one has no manifest).
        var entry = CheckpointRecord(
            epoch: checkpoint.epoch, startedAt: startedAt, bytesWritten: 0, tables: pieces.count, durationMicroseconds: 0, error: nil)
        do {
            let written = try checkpoints.write(
                epoch: checkpoint.epoch, log: checkpoint.cut.log, positions: checkpoint.cut.positions, catalogVersion: checkpoint.cut.catalogVersion,
                pieces: pieces)
            if !written.brokenChains.isEmpty { lost() }
            self.written(written)
            entry.bytesWritten = written.bytes
            totalsBox.withLock { totals in
                totals.checkpoints += 1
                totals.bytesWritten += written.bytes
                totals.baseBytes += written.baseBytes
                totals.deltaBytes += written.deltaBytes
            }
        } catch {
            totalsBox.withLock { $0.failures += 1 }
            failures.withLock { failures in
                failures.append((checkpoint.epoch, error))
                if failures.count > 16 { failures.removeFirst() }
            }
            lost()
            entry.error = error.message
            FileHandle.standardError.write(Data("sluice: state checkpoint failed: \(error.message)\n".utf8))
        }
        entry.durationMicroseconds = TableJournal.microseconds(since: started)
        record(entry)
    }
}

/// What the state checkpoints written since the start add up to (for benchmarks).
package struct StateCheckpointTotals: Sendable {
    package var checkpoints = 0
    package var failures = 0
    /// Everything written: run files and manifests.
    package var bytesWritten = 0
    /// Of the run files: views' whole state (first checkpoints and compactions) and their changes.
    package var baseBytes = 0
    package var deltaBytes = 0
}
