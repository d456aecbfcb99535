import Foundation
import Synchronization
import SluiceBatch
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluicePlan
import SluicePlanner
import SluiceSQL
import SluiceState

// The start of a database from its data directory: the catalog, the tables' recovery,
// connectors at their positions, and views restored from their state or rebuilt from their
// definitions.
extension Database {
    func load(from directory: String) throws(SluiceError) {
        try DataDirectory.prepare(directory)
        guard let stored = try CatalogFile(dataDirectory: directory).read() else { return }
        let relations = stored.relations
        if let nextID = stored.nextID { catalog.reserveIDs(below: nextID) }
        if let roles = stored.roles { catalog.restoreRoles(roles) }
        if let secrets = stored.secrets { catalog.restoreSecrets(secrets) }
        if let access = stored.access { catalog.restoreAccess(access) }
        // Schemas: as stored, or (a file an earlier version wrote) those its relations name.
        var schemas = stored.schemas ?? [:]
        if stored.schemas == nil {
            for relation in relations where relation.schema != "public" && schemas[relation.schema] == nil {
                schemas[relation.schema] = catalog.allocateID()
            }
        }
        for (name, oid) in schemas where name != "public" { try catalog.addSchema(name, oid: oid) }
        // SQL functions before the views and materialized views whose definitions call them.
        catalog.restoreFunctions(stored.functions)
        for relation in relations where relation.kind == .source {
            try catalog.add(relation)
        }
        var loaded: [Int: TableStore] = [:]
        for relation in relations where relation.kind == .table {
            try catalog.add(relation)
            // Its store, as CREATE TABLE makes it (replayed writes are in the next checkpoint's
            // delta).
            loaded[relation.id] = CreateTableHandler.addStore(for: relation, to: self)
        }
        // Views are their definitions: in the catalog before the materialized views that
        // may read them are bound again.
        for relation in relations where relation.kind == .view {
            try catalog.add(relation)
        }
        // The last state checkpoint: the tables' rows, and the views' state if it covers
        // every view (otherwise views are rebuilt from their inputs).
        // (Sinks are fragments with state too, restored with the views, after what they read.)
        let views = relations.filter { $0.kind == .materializedView || $0.kind == .sink }.sorted { $0.id < $1.id }
        // (Paged state tables written whole stay in the run files, read as pages are touched.)
        let reading = ContinuousClock.now
        let (checkpoint, damaged) = StateCheckpoints.recover(directory: "\(directory)/state", lazily: .all)
        var restored: RestoredState?
        var stateNote = views.isEmpty ? nil : "views rebuilt from their inputs (no state checkpoint covers them all)"
        // (A relation created after the checkpoint's cut has no state in it, whatever the id:
        // an earlier version gave the highest id again after a restart.)
        if let checkpoint, !views.isEmpty, views.allSatisfy({ checkpoint.manifest.holds(view: $0.id) }) {
            do throws(SluiceError) {
                var contents: [Int: RestoredTables] = [:]
                for view in views { contents[view.id] = try FragmentCheckpoint.contents(of: checkpoint.views[view.id]!) }
                restored = RestoredState(manifest: checkpoint.manifest, views: contents)
            } catch {
                stateNote = "views rebuilt from their inputs (state checkpoint \(checkpoint.manifest.sequence) unreadable: \(error.message))"
            }
        }
        if let checkpoint { streams.runtime.continueEpochs(after: checkpoint.manifest.epoch) }
        let readSeconds = (ContinuousClock.now - reading).inSeconds
        var recovered: TableJournal.Recovery
        if let checkpoint, checkpoint.manifest.includesTables {
            recovered = try TableJournal.recover(
                dataDirectory: directory, into: loaded, stateCheckpoint: checkpoint.manifest, chains: checkpoint.views,
                generation: streams.runtime.requiredBaseGeneration)
        } else {
            // Tables as an earlier version checkpointed them (or the log alone).
            recovered = try TableJournal.recover(dataDirectory: directory, into: loaded, changesAfter: restored?.manifest.log)
        }
        // Each view and sink runs its stored plan, or else is bound again from its definition,
        // once, for the comparison of plans here and for its restore below.
        let (bound, planNote) = try prepareStoredViews(views)
        if restored != nil {
            // State made by a different plan (an older optimizer's) does not fit this one.
            let changed = bound.filter { $0.stored.planFingerprint != $0.plan.fingerprint }.map(\.stored.name)
            if !changed.isEmpty {
                restored = nil
                stateNote = "views rebuilt from their inputs (planned differently than their state was made: \(changed.joined(separator: ", ")))"
            }
        }
        if restored != nil && recovered.changesAfterCut == nil {
            restored = nil
            stateNote = "views rebuilt from their inputs (the log no longer reaches back to the last state checkpoint)"
        }
        if let checkpoint { streams.stateCheckpointWriter?.checkpoints.resume(from: checkpoint.manifest) }
        recovered.damaged += damaged.map { "state: \($0)" }
        tables.journal = try TableJournal(dataDirectory: directory)
        // Indexes are derived from their tables' recovered rows, before any write.
        for relation in relations where relation.kind == .table {
            guard let store = loaded[relation.id] else { continue }
            for index in relation.indexList {
                let built = CreateIndexHandler.makeIndex(index, of: relation, in: self)
                built.rebuild(from: store)
                tables.stores.addIndex(built, id: index.id, table: relation.id)
            }
        }
        // Sources resume from the cut's positions when the views come back from its state.
        let resume = restored?.manifest.positions ?? [:]
        let deduplicators = try restoreDeduplicators(relations, from: checkpoint, recovery: recovered, resume: resume)
        let watermarks = tableWatermarkFilters(relations, resume: resume)
        if let restored {
            // Views first, from their state; then the table writes logged after the
            // checkpoint's cut; then the connectors, sources from the cut's positions.
            let restoring = ContinuousClock.now
            var shown: UInt64 = 0
            for view in bound { shown = max(shown, try restore(view, state: restored.views[view.relation.id])) }
            stateNote = "views restored from state checkpoint \(restored.manifest.sequence), "
                + "\(recovered.changesAfterCut?.count ?? 0) table writes after it replayed into them "
                + String(format: "(its files read in %.3f s, the views' operators restored in %.3f s)", readSeconds, (ContinuousClock.now - restoring).inSeconds)
            try replayChangesAfterCut(recovered, intoViews: true, watermarks: watermarks, seenKeys: deduplicators.replaying)
            startConnectors(relations, recovery: recovered, resume: resume, watermarks: watermarks, unrestored: deduplicators.unrestored)
            // Queries after the start see the restored views, not empty ones.
            streams.runtime.waitForCommitBlocking(shown)
        } else {
            // Connectors start from their definitions (not checked again: an outside system
            // that is down now is retried, with the reason in `sluice_sources.status`).
            try replayChangesAfterCut(recovered, intoViews: false, watermarks: watermarks, seenKeys: deduplicators.replaying)
            startConnectors(relations, recovery: recovered, resume: resume, watermarks: watermarks, unrestored: deduplicators.unrestored)
            // Views read tables, sources and earlier views: rebuild them in creation order.
            var shown: UInt64 = 0
            for view in bound { shown = max(shown, try restore(view, state: nil)) }
            streams.runtime.waitForCommitBlocking(shown)
        }
        let notes = [stateNote, planNote].compactMap { $0 }
        recovered.stateSummary = notes.isEmpty ? nil : notes.joined(separator: ", ")
        recovery = recovered

    }

    /// Each APPEND ONLY table's watermark filter, from the checkpoint's watermark in `resume`
    /// (the rows logged after the cut raise it further, ``replayChangesAfterCut``), by table id.
    private func tableWatermarkFilters(_ relations: [RelationDefinition], resume: [Int: [Int32: Int64]]) -> [Int: WatermarkFilter] {
        var filters: [Int: WatermarkFilter] = [:]
        for relation in relations where relation.kind == .table && relation.watermark != nil {
            filters[relation.id] = WatermarkFilter(of: relation, from: resume[relation.id]?[WatermarkFilter.positionKey], catalog: catalog)
        }
        return filters
    }

    /// One pass over the table writes logged after the checkpoint's cut (read back from the
    /// log a record at a time): sent to the views restored from the checkpoint (`intoViews`),
    /// each waiting for room in their input; and the rows they inserted (all kept) through
    /// their table's watermark filter (`watermarks`), which they raised, and into the seen
    /// keys restored from the checkpoint (`seenKeys`).
    private func replayChangesAfterCut(
        _ recovery: TableJournal.Recovery, intoViews: Bool, watermarks: [Int: WatermarkFilter], seenKeys: [Int: SourceDeduplicator]
    ) throws(SluiceError) {
        guard let changes = recovery.changesAfterCut, intoViews || !watermarks.isEmpty || !seenKeys.isEmpty else { return }
        try changes.forEach { (table, parts) throws(SluiceError) in
            let isRead = intoViews && streams.runtime.isRead(table)
            let (filter, deduplicator) = (watermarks[table], seenKeys[table])
            for part in parts where !part.rows.isEmpty {
                if isRead { streams.runtime.withSource(table) { writer in writer.emit(TableState.changes(part.rows, part.op)) } }
                guard part.op.isInsertion else { continue }
                if let filter { _ = filter.apply(part.rows) }
                if let deduplicator { _ = deduplicator.admit(part.rows) }
            }
        }
    }

    /// Starts the connectors of `relations`: a table's from the position its rows reached in the
    /// log, a source's from `resume` (a state checkpoint's cut) or else where it started. The
    /// tables' watermark filters (`watermarks`) are set first. A source in `unrestored` is not
    /// started: a ``StoppedConnector`` shows why in `sluice_sources`.
    private func startConnectors(
        _ relations: [RelationDefinition], recovery: TableJournal.Recovery, resume: [Int: [Int32: Int64]],
        watermarks: [Int: WatermarkFilter], unrestored: [Int: String]
    ) {
        // (Before any connector of a table delivers rows.)
        for (id, filter) in watermarks { streams.connectors.setWatermarkFilter(filter, for: id) }
        for (id, reason) in unrestored.sorted(by: { $0.key < $1.key }) {
            guard let relation = relations.first(where: { $0.id == id }) else { continue }
            FileHandle.standardError.write(Data("sluice: the source \(relation.name) was not started: \(reason)\n".utf8))
            let stopped = StoppedConnector(name: relation.name, reason: reason, positions: resume[id])
            streams.connectors.set(stopped, for: id)
            streams.runtime.setRows(.source(stopped), for: id)
        }
        for relation in relations where relation.connector != nil && relation.kind != .sink && unrestored[relation.id] == nil {
            do {
                var description = SourceDescription(relation)
                if let positions = recovery.positions[relation.id] { description.startPositions = positions }
                var watermark: Int64?
                if relation.kind == .source, var positions = resume[relation.id] {
                    watermark = positions.removeValue(forKey: WatermarkFilter.positionKey)
                    description.resumePositions = positions
                }
                CreateSourceHandler.start(try makeConnector(description, false), for: relation, watermark: watermark, in: self)
            } catch {
                FileHandle.standardError.write(Data("sluice: the connector of \(relation.name) did not start: \(error.message)\n".utf8))
            }
        }
    }

    /// `views` (materialized views and sinks, in creation order) as they start again, each
    /// under its old id: the stored relation with its stored plan where that reads back
    /// (``storedPlan(of:)``), else bound again from its definition (``bindStoredView(_:)``). Each
    /// is put in the catalog for the views after it, and taken out again. Also a note for the
    /// start's log line: how many came from stored plans and which were bound again, and why.
    private func prepareStoredViews(_ views: [RelationDefinition]) throws(SluiceError) -> (views: [StoredView], note: String?) {
        var prepared: [StoredView] = []
        var rebound: [String] = []
        defer { for view in prepared { catalog.remove(id: view.relation.id) } }
        for stored in views {
            let view: StoredView
            switch storedPlan(of: stored) {
            case .success(let plan):
                // The fingerprint of the plan as it runs now (its state layout may be newer),
                // which the state it makes from here on is made by.
                var relation = stored
                relation.planFingerprint = plan.fingerprint
                view = StoredView(stored: stored, relation: relation, plan: plan)
            case .failure(let reason):
                view = try bindStoredView(stored)
                rebound.append("\(stored.name): \(reason.message)")
            }
            try catalog.add(view.relation)
            prepared.append(view)
        }
        guard !views.isEmpty else { return (prepared, nil) }
        var note = "\(views.count - rebound.count) views and sinks from stored plans, \(rebound.count) bound again from their SQL"
        if !rebound.isEmpty { note += " (\(rebound.joined(separator: "; ")))" }
        return (prepared, note)
    }

    /// The plan `stored` keeps (``RelationDefinition/storedPlan``), read back: its functions
    /// rebuilt, ending in its materialize or sink node, and scanning relations of the catalog
    /// whose columns have the types it reads. A failure says why it is bound again instead: no
    /// stored plan, another format version, bytes that do not read, or a catalog that changed.
    private func storedPlan(of stored: RelationDefinition) -> Result<StreamPlan, SluiceError> {
        guard let text = stored.storedPlan else { return .failure(SluiceError(.featureNotSupported, "no stored plan")) }
        do throws(SluiceError) {
            let plan = try StreamPlan(storedText: text)
            let ends = stored.kind == .sink ? plan.node is SinkNode : plan.node is MaterializeNode
            guard ends else { throw SluiceError(.dataCorrupted, "the stored plan does not end in its \(stored.kind.rawValue)") }
            for scan in plan.scans {
                guard let relation = catalog.relation(id: scan.tableID),
                    scan.columns.allSatisfy({ $0 < relation.columns.count }),
                    scan.columns.map({ relation.columns[$0].type }) == scan.columnTypes
                else { throw SluiceError(.dataCorrupted, "the stored plan reads \(scan.tableName) as it no longer is") }
            }
            return .success(plan)
        } catch {
            return .failure(error)
        }
    }

    /// Stored view or sink `stored` bound again from its definition, under its old id, with its
    /// indexes (or sink id) and its owner and grants.
    private func bindStoredView(_ stored: RelationDefinition) throws(SluiceError) -> StoredView {
        let statements = try SQLParser.parse(stored.definition)
        var binder = Binder(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
        guard statements.count == 1 else { throw SluiceError(.ioError, "the stored definition of \(stored.name) is not one statement") }
        switch try binder.bind(statements[0]) {
        case .createMaterializedView(var relation, let plan):
            relation.id = stored.id
            relation.indexes = stored.indexes
            relation.access = stored.access
            return StoredView(stored: stored, relation: relation, plan: plan)
        case .createSink(var relation, let plan):
            relation.id = stored.id
            relation.sinkID = stored.sinkID
            relation.access = stored.access
            return StoredView(stored: stored, relation: relation, plan: plan)
        default:
            throw SluiceError(.ioError, "the stored definition of \(stored.name) is not a materialized view or sink")
        }
    }

    /// Starts maintaining view or sink `view` under its old id, from `state` (a
    /// checkpoint's) or else from its inputs, as its CREATE did.
    /// Returns the epoch after which the view (or sink) shows its rows.
    @discardableResult
    private func restore(_ view: StoredView, state: RestoredTables?) throws(SluiceError) -> UInt64 {
        if view.relation.kind == .sink {
            return try CreateSinkHandler.apply(view.relation, plan: view.plan, to: self, restoring: state, validate: false)
        }
        return try CreateMaterializedViewHandler.apply(view.relation, plan: view.plan, to: self, restoring: state)
    }
}

/// A materialized view or sink of the stored catalog, as it starts again.
private struct StoredView {
    /// As the catalog file holds it (its plan's fingerprint is the one its state was made by).
    var stored: RelationDefinition
    /// `stored` (with the fingerprint of its plan as it runs now) when its stored plan runs;
    /// else as its definition binds now, with the stored id (and indexes, or sink id, and
    /// access).
    var relation: RelationDefinition
    var plan: StreamPlan
}
