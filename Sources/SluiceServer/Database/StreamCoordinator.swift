import Foundation
import Synchronization
import SluiceCore
import SluiceDataflow
import SluicePlanner
import SluiceState

/// The stream side of a database: the runtime that maintains the views, its barriers and the
/// checkpoints of the views' and operators' state (the cut each checkpoint barrier makes and
/// the ``StateCheckpointWriter`` that takes each finished checkpoint), the connectors that feed
/// sources and tables, and the memory budget the views' state counts against.
package final class StreamCoordinator: Sendable {
    package let runtime: StreamRuntime
    /// The running connectors, by the id of the source or table they feed.
    let connectors = ConnectorSet()
    /// Writes the views' state checkpoints; nil without a data directory.
    private let writerBox = Mutex<StateCheckpointWriter?>(nil)

    init(runtime: StreamRuntime) {
        self.runtime = runtime
    }

    /// Starts checkpointing the tables' rows and the views' state under `directory`, every
    /// `frequency` barriers, cut where the log stands (`log`, which may start a new segment
    /// there), where every connector stands, at the catalog's version, and with every table's
    /// piece (`tables`, with the base generation). `written` takes each checkpoint written. Paused until the database has
    /// restored the views.
    func enableStateCheckpoints(
        directory: String, frequency: Int, log: @escaping @Sendable () -> LogPosition?, catalogVersion: @escaping @Sendable () -> Int,
        tables: @escaping @Sendable (_ generation: Int) -> [FragmentCheckpoint],
        written: @escaping @Sendable (StateCheckpoints.Written) -> Void,
        record: @escaping @Sendable (CheckpointRecord) -> Void
    ) throws(SluiceError) {
        let runtime = self.runtime
        let writer = try StateCheckpointWriter(directory: directory, lost: { runtime.requireBases() }, written: written, record: record)
        writerBox.withLock { $0 = writer }
        let connectors = self.connectors
        runtime.enableCheckpoints(CheckpointHooks(
            frequency: frequency,
            cut: {
                // Called as a barrier passes, no write in progress.
                var positions: [Int: [Int32: Int64]] = [:]
                for (id, connector) in connectors.all {
                    if let reached = connector.positions { positions[id] = reached }
                }
                // A source's watermark goes with its positions, so a restart judges late rows
                // as the run before it did.
                for (id, filter) in connectors.watermarkFilters {
                    if let watermark = filter.watermark { positions[id, default: [:]][WatermarkFilter.positionKey] = watermark }
                }
                let pieces = tables(runtime.requiredBaseGeneration).map(CheckpointPiece.init(state:))
                var cut = CheckpointCut(log: log() ?? LogPosition(segment: 0, offset: 0), positions: positions, tables: pieces)
                cut.catalogVersion = catalogVersion()
                return cut
            },
            write: { checkpoint in writer.submit(checkpoint) },
            isBusy: { writer.isBehind }), paused: true)
    }

    /// Takes a checkpoint now (a checkpoint barrier, whatever the frequency) and returns once it
    /// is written; throws what made it fail. Without state checkpoints, returns at once.
    package func checkpointNow() async throws(SluiceError) {
        guard let writer = stateCheckpointWriter, runtime.isCheckpointing else { return }
        // A statement applying its changes in parts keeps barriers from being checkpoints
        // until it ends.
        await runtime.waitForCheckpointsReleased()
        let epoch = runtime.injectBarrier(checkpoint: true)
        await runtime.waitForCommit(epoch)
        try writer.waitForWrite(of: epoch)
    }

    var stateCheckpointWriter: StateCheckpointWriter? { writerBox.withLock { $0 } }

    /// Where the connector of relation `id` stands (Kafka offsets by partition).
    package func positions(of id: Int) -> [Int32: Int64]? {
        connectors.all[id]?.positions
    }

    /// Returns once every state checkpoint handed over so far is written (or failed).
    package func waitForStateCheckpoints() {
        stateCheckpointWriter?.waitForWrites()
    }

    /// What the state checkpoints written since the start add up to.
    package var stateCheckpointTotals: StateCheckpointTotals { stateCheckpointWriter?.totals ?? StateCheckpointTotals() }

    /// Time and rows per operator of view `id` (inputs first), as of its last finished epoch.
    package func operatorProfile(view id: Int) -> [OperatorProfile] {
        runtime.views.first { $0.id == id }?.statistics.profile ?? []
    }

    /// The state store's memory use against `--memory-limit`, and the process's resident set.
    package var memoryStatus: MemoryStatus {
        var status = MemoryStatus()
        if let memory = runtime.memory {
            status.limitBytes = memory.limit
            status.residentBytes = memory.residentBytes
            status.peakResidentBytes = memory.peakResidentBytes
            status.spilledBytes = memory.spilledBytes
            status.evictedPages = memory.evictedPages
            status.loadedPages = memory.loadedPages
        }
        (status.processBytes, status.processPeakBytes) = Self.processMemory()
        status.owners = MemoryOwner.allCases.map { ($0.name, MemoryLedger.shared.bytes(of: $0)) }
        return status
    }

    /// VmRSS and VmHWM from `/proc/self/status`, in bytes (zeros where there is no procfs).
    package static func processMemory() -> (resident: Int, peak: Int) {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        var resident = 0
        var peak = 0
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { resident = kilobytes * 1024 }
            if fields[0] == "VmHWM:" { peak = kilobytes * 1024 }
        }
        return (resident, peak)
    }

    /// Stops the connectors and the runtime's threads; a state checkpoint being written
    /// finishes (its files are whole or absent either way).
    func stop() {
        stopConnectors()
        runtime.stop()
        // (A fragment may still finish an epoch after the runtime stopped: its checkpoint is dropped.)
        stateCheckpointWriter?.close()
    }

    func stopConnectors() {
        for connector in connectors.all.values { connector.stop() }
    }
}

/// What recovery takes from the last state checkpoint.
struct RestoredState {
    var manifest: StateManifest
    /// Each view's state tables' contents, by view id and then table id.
    var views: [Int: RestoredTables]
}
