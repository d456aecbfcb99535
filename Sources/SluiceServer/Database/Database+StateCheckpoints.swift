import Foundation
import SluiceCore
import SluiceDataflow
import SluicePlanner
import SluiceState

// Checkpoints of the views' and operators' state: the cut each checkpoint barrier makes and the
// writer that takes each finished checkpoint (``StateCheckpointWriter``).
extension Database {
    /// Starts checkpointing the views' state under `<dataDirectory>/state`, every `frequency`
    /// barriers. Paused until ``load(from:)`` has restored the views.
    func enableStateCheckpoints(dataDirectory: String, frequency: Int) throws(SluiceError) {
        let runtime = self.runtime
        let writer = try StateCheckpointWriter(
            directory: "\(dataDirectory)/state", lost: { runtime.requireBases() },
            record: { [weak self] entry in self?.journal?.record(entry) })
        stateCheckpointWriterBox.withLock { $0 = writer }
        runtime.enableCheckpoints(CheckpointHooks(
            frequency: frequency,
            cut: { [weak self] in
                self?.checkpointCut() ?? CheckpointCut(log: LogPosition(segment: 0, offset: 0), positions: [:])
            },
            write: { checkpoint in writer.submit(checkpoint) },
            isBusy: { writer.isBehind }), paused: true)
    }

    var stateCheckpointWriter: StateCheckpointWriter? { stateCheckpointWriterBox.withLock { $0 } }

    /// Where the log and every source stand; called as a barrier passes, no write in progress.
    private func checkpointCut() -> CheckpointCut {
        let log = journal?.log.position ?? LogPosition(segment: 0, offset: 0)
        var positions: [Int: [Int32: Int64]] = [:]
        for (id, connector) in connectors.all where catalog.relation(id: id)?.kind == .source {
            if let reached = connector.positions { positions[id] = reached }
        }
        return CheckpointCut(log: log, positions: positions)
    }

    /// Where the connector of source or table `name` stands (Kafka offsets by partition).
    package func sourcePositions(named name: String) -> [Int32: Int64]? {
        guard let relation = catalog.relation(named: name) else { return nil }
        return connectors.all[relation.id]?.positions
    }

    /// Returns once every state checkpoint handed over so far is written (or failed).
    package func waitForStateCheckpoints() {
        stateCheckpointWriter?.waitForWrites()
    }

    /// What the state checkpoints written since the start add up to.
    package var stateCheckpointTotals: StateCheckpointTotals { stateCheckpointWriter?.totals ?? StateCheckpointTotals() }
}

/// What recovery takes from the last state checkpoint.
struct RestoredState {
    var manifest: StateManifest
    /// Each view's state tables' contents, by view id and then table id.
    var views: [Int: RestoredTables]
}
