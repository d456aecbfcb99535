import Foundation
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluicePlanner
import SluiceState

/// Event deduplication (`dedup.key`, `dedup.window`) of sources and APPEND ONLY tables: each
/// deduplicated relation has a ``SourceDeduplicator`` in the connector set, applied after the
/// watermark filter wherever its rows enter (a source's delivery step, a table's inserts), its
/// seen keys checkpointed with the tables (``TableState/checkpointPieces(generation:)``).
extension Database {
    /// Relation `relation`'s deduplicator, made empty and registered if it has none yet (nil:
    /// the relation has no `dedup.key`).
    @discardableResult
    func registerDeduplicator(for relation: RelationDefinition) -> SourceDeduplicator? {
        if let existing = streams.connectors.deduplicator(for: relation.id) { return existing }
        guard let made = makeDeduplicator(for: relation) else { return nil }
        streams.connectors.setDeduplicator(made, for: relation.id)
        return made
    }

    /// A new, empty deduplicator of `relation` (nil: it has no `dedup.key`), forgetting keys at
    /// most once per epoch of the stream runtime.
    private func makeDeduplicator(for relation: RelationDefinition) -> SourceDeduplicator? {
        guard let spec = relation.dedup else { return nil }
        let runtime = streams.runtime
        let made = SourceDeduplicator(
            types: relation.columns.map(\.type), keyColumns: spec.keyColumns, timeColumn: spec.timeColumn, window: spec.windowMicroseconds,
            stateTableID: spec.stateTableID, memory: runtime.memory, epoch: { [weak runtime] in runtime?.committedEpoch ?? 0 })
        if dataDirectory != nil { made.enableCheckpoints() }
        return made
    }

    /// At start, before the connectors: each deduplicated relation's seen keys as they stood
    /// where its rows resume, registered.
    /// - A table holds exactly the rows its log kept, so its seen keys are the checkpoint's
    ///   (`checkpoint`) plus the keys of the rows logged after the cut, which the one pass over
    ///   them admits (``RestoredDeduplicators/replaying``); without them in the checkpoint, or
    ///   when they cannot be read, the keys of the rows it holds.
    /// - A source resumes from the checkpoint's positions (`resume`) with the checkpoint's seen
    ///   keys, or from its start with none. One that resumes from the positions but whose seen
    ///   keys cannot be restored is not started (``RestoredDeduplicators/unrestored``): without
    ///   them, the repeats of the events before the cut would pass.
    func restoreDeduplicators(
        _ relations: [RelationDefinition], from checkpoint: (manifest: StateManifest, views: [Int: [FragmentCheckpoint]])?,
        recovery: TableJournal.Recovery, resume: [Int: [Int32: Int64]]
    ) throws(SluiceError) -> RestoredDeduplicators {
        var result = RestoredDeduplicators()
        for relation in relations where relation.kind == .table || relation.kind == .source {
            guard var deduplicator = makeDeduplicator(for: relation) else { continue }
            let resumes = relation.kind == .source ? resume[relation.id] != nil : recovery.changesAfterCut != nil
            var restored = false
            // Why the seen keys to resume with are not there, and whether they were damaged.
            var failure: (reason: String, isDamage: Bool)?
            if resumes, let checkpoint, checkpoint.manifest.holds(table: deduplicator.stateTableID),
               let chain = checkpoint.views[deduplicator.stateTableID] {
                do throws(SluiceError) {
                    try deduplicator.restore(from: try FragmentCheckpoint.contents(of: chain), generation: streams.runtime.requiredBaseGeneration)
                    restored = true
                } catch {
                    failure = ("its seen keys (dedup.key) could not be restored from state checkpoint \(checkpoint.manifest.sequence): \(error.message)", true)
                    // (A restore that failed part way leaves nothing worth keeping.)
                    deduplicator = makeDeduplicator(for: relation)!
                }
            } else if resumes {
                let reason = checkpoint.map { "state checkpoint \($0.manifest.sequence) does not hold its seen keys (dedup.key)" }
                failure = (reason ?? "no state checkpoint holds its seen keys (dedup.key)", false)
            }
            if relation.kind == .source, let failure {
                // Not registered: a checkpoint of empty seen keys would let a later start resume
                // silently wrong.
                streams.connectors.setDeduplicator(nil, for: relation.id)
                result.unrestored[relation.id] = failure.reason
                continue
            }
            if relation.kind == .table {
                if restored {
                    // The rows logged after the cut were kept: their keys are seen.
                    result.replaying[relation.id] = deduplicator
                } else {
                    if let failure, failure.isDamage {
                        FileHandle.standardError.write(Data("sluice: \(relation.name): \(failure.reason); rebuilt from its rows\n".utf8))
                    }
                    try tables.store(for: relation.id)?.scanPages { (rows, _) throws(SluiceError) in _ = deduplicator.admit(rows) }
                }
            }
            streams.connectors.setDeduplicator(deduplicator, for: relation.id)
        }
        return result
    }
}

/// How the deduplicators came back at start (``Database/restoreDeduplicators(_:from:recovery:resume:)``).
struct RestoredDeduplicators {
    /// The tables whose seen keys came from the checkpoint: the rows logged after its cut are
    /// still to be admitted, by id.
    var replaying: [Int: SourceDeduplicator] = [:]
    /// The sources that resume from the checkpoint's positions but whose seen keys could not be
    /// restored, and why, by id: their connectors are not started.
    var unrestored: [Int: String] = [:]
}

/// The connector of a source that was not started, in its place: `sluice_sources` shows it with
/// `stopped: <reason>`, a checkpoint keeps the positions it was to resume from (so a later start
/// still resumes there), and a snapshot or scan fails with the reason.
final class StoppedConnector: SourceConnector {
    private let name: String
    private let reason: String
    let positions: [Int32: Int64]?
    let statistics = SourceStatistics()

    init(name: String, reason: String, positions: [Int32: Int64]?) {
        self.name = name
        self.reason = reason
        self.positions = positions
        statistics.status = "stopped: \(reason)"
    }

    private var error: SluiceError {
        SluiceError(
            .objectNotInPrerequisiteState, "source \"\(name)\" is stopped: \(reason)",
            hint: "Drop the source and create it again to read it from its start.")
    }

    func start(output: SourceOutput) {}
    func stop() {}
    func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot { throw error }
    func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) { throw error }
    var notices: [String] { [] }
}

/// A source's connector whose snapshots (a new view's history) and scans (a query of the source)
/// drop the late rows and repeats its deliveries drop: each goes through a watermark filter and
/// seen keys of its own from its first row, as the source's deliveries did from its start, so
/// a view made later starts from the same rows as one that watched them arrive.
final class DeduplicatingConnector: SourceConnector {
    private let inner: any SourceConnector
    private let keyColumns: [Int]
    private let timeColumn: Int
    private let window: Int64
    private let memory: StateMemory?
    /// A new watermark filter of the source, from no watermark.
    private let watermarkFilter: @Sendable () -> WatermarkFilter?

    /// Wraps `inner` with the key, time and window of `deduplicator`, and the source's watermark
    /// as `watermarkFilter` makes it.
    init(_ inner: any SourceConnector, like deduplicator: SourceDeduplicator, watermarkFilter: @escaping @Sendable () -> WatermarkFilter?) {
        self.inner = inner
        keyColumns = deduplicator.keyColumns
        timeColumn = deduplicator.timeColumn
        window = deduplicator.window
        memory = deduplicator.seen.memory
        self.watermarkFilter = watermarkFilter
    }

    /// What one snapshot or scan of rows of `types` judges its rows by, from its first row.
    private struct Judge {
        let filter: WatermarkFilter?
        let deduplicator: SourceDeduplicator

        func apply(_ chunk: Chunk) -> Chunk {
            guard let filter else { return deduplicator.admit(chunk) }
            return deduplicator.apply(filter.apply(chunk).kept, watermark: filter.watermark)
        }
    }

    private func fresh(types: [DataType]) -> Judge {
        Judge(
            filter: watermarkFilter(),
            deduplicator: SourceDeduplicator(
                types: types, keyColumns: keyColumns, timeColumn: timeColumn, window: window, stateTableID: -1, memory: memory))
    }

    func start(output: SourceOutput) { inner.start(output: output) }
    func stop() { inner.stop() }
    func durable(positions: [Int32: Int64]) { inner.durable(positions: positions) }

    // (The key and time columns are read whatever the view reads; the snapshot's rows are
    // judged from its first row, as the source's deliveries were.)
    func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot {
        let rows = try inner.snapshot(columns: columns.map { $0.union(keyColumns).union([timeColumn]) })
        return SourceSnapshot(rowEstimate: rows.rowEstimate) { [self] (each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) in
            var judge: Judge?
            try rows.read { (chunk: Chunk) throws(SluiceError) in
                let current = judge ?? fresh(types: chunk.types)
                judge = current
                let kept = current.apply(chunk)
                if !kept.isEmpty { try each(kept) }
            }
        }
    }

    func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {
        var judge: Judge?
        // (Pruning could leave out a file whose rows make later ones repeats.)
        try inner.scan(pruningBy: nil) { (chunk: Chunk) throws(SluiceError) in
            let current = judge ?? fresh(types: chunk.types)
            judge = current
            try each(current.apply(chunk))
        }
    }


    var inferredColumns: [(name: String, type: DataType)]? { inner.inferredColumns }
    var inferredPrimaryKey: [String]? { inner.inferredPrimaryKey }
    var statistics: SourceStatistics { inner.statistics }
    var notices: [String] { inner.notices }
    var positions: [Int32: Int64]? { inner.positions }
}
