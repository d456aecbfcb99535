import Foundation
import SluiceCore
import SluiceDataflow
import SluicePlanner
import SluiceState

// Checkpoints of the views' and operators' state: the cut each checkpoint barrier makes, the
// writing of each finished checkpoint on its own queue, and what recovery reads back.
extension Database {
    /// Starts checkpointing the views' state under `<dataDirectory>/state`, every `frequency`
    /// barriers. Paused until ``load(from:)`` has restored the views.
    func enableStateCheckpoints(dataDirectory: String, frequency: Int) throws(SluiceError) {
        let checkpoints = try StateCheckpoints(directory: "\(dataDirectory)/state")
        stateCheckpointsBox.withLock { $0 = checkpoints }
        let queue = stateCheckpointQueue
        runtime.enableCheckpoints(CheckpointHooks(
            frequency: frequency,
            cut: { [weak self] in
                self?.checkpointCut() ?? CheckpointCut(log: LogPosition(segment: 0, offset: 0), positions: [:])
            },
            write: { [weak self] checkpoint in
                guard let self else { return }
                queue.async { [weak self] in self?.writeStateCheckpoint(checkpoint) }
            }), paused: true)
    }

    var stateCheckpoints: StateCheckpoints? { stateCheckpointsBox.withLock { $0 } }

    /// Where the log and every source stand; called under the source lock.
    private func checkpointCut() -> CheckpointCut {
        let log = journal?.log.position ?? LogPosition(segment: 0, offset: 0)
        var positions: [Int: [Int32: Int64]] = [:]
        for (id, connector) in connectors.all where catalog.relation(id: id)?.kind == .source {
            if let reached = connector.positions { positions[id] = reached }
        }
        return CheckpointCut(log: log, positions: positions)
    }

    /// Writes one finished checkpoint (on ``stateCheckpointQueue``, in epoch order). A failure
    /// leaves the last good checkpoint, is reported in the log and `sluice_checkpoints`, and
    /// makes every view write a base next time, since its chain misses this delta.
    private func writeStateCheckpoint(_ checkpoint: EpochCheckpoint) {
        guard let checkpoints = stateCheckpoints else { return }
        let started = ContinuousClock.now
        let startedAt = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let pieces = checkpoint.pieces.map { (view: $0.view, isBase: $0.isBase, bytes: $0.bytes) }
        var record = CheckpointRecord(epoch: 0, startedAt: startedAt, bytesWritten: 0, tables: pieces.count, durationMicroseconds: 0, error: nil)
        record.kind = "state"
        do {
            let written = try checkpoints.write(epoch: checkpoint.epoch, log: checkpoint.cut.log, positions: checkpoint.cut.positions, pieces: pieces)
            if !written.brokenChains.isEmpty { runtime.requireBases() }
            record.epoch = written.manifest.sequence
            record.bytesWritten = written.bytes
            stateCheckpointTotalsBox.withLock { totals in
                totals.checkpoints += 1
                totals.bytesWritten += written.bytes
                for piece in pieces {
                    if piece.isBase { totals.baseBytes += piece.bytes.count } else { totals.deltaBytes += piece.bytes.count }
                }
            }
        } catch {
            stateCheckpointTotalsBox.withLock { $0.failures += 1 }
            runtime.requireBases()
            record.error = error.message
            FileHandle.standardError.write(Data("sluice: state checkpoint failed: \(error.message)\n".utf8))
        }
        record.durationMicroseconds = TableJournal.microseconds(since: started)
        journal?.record(record)
    }

    /// Where the connector of source or table `name` stands (Kafka offsets by partition).
    package func sourcePositions(named name: String) -> [Int32: Int64]? {
        guard let relation = catalog.relation(named: name) else { return nil }
        return connectors.all[relation.id]?.positions
    }

    /// Returns once every state checkpoint handed over so far is written (or failed).
    package func waitForStateCheckpoints() {
        stateCheckpointQueue.sync {}
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

extension Database {
    package var stateCheckpointTotals: StateCheckpointTotals { stateCheckpointTotalsBox.withLock { $0 } }
}

/// What recovery takes from the last state checkpoint.
struct RestoredState {
    var manifest: StateManifest
    /// Each view's state tables' contents, by view id and then table id.
    var views: [Int: [Int: StateSection]]
}
