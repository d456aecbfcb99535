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
        for relation in relations where relation.kind == .source {
            try catalog.add(relation)
        }
        var loaded: [Int: TableStore] = [:]
        for relation in relations where relation.kind == .table {
            try catalog.add(relation)
            let store = TableStore(
                types: relation.columns.map(\.type), primaryKey: relation.primaryKey, onConflict: relation.onConflict ?? .overwrite,
                memory: streams.runtime.memory)
            // Replayed writes are in the next checkpoint's delta.
            store.enableCheckpoints()
            loaded[relation.id] = store
            tables.stores.add(store, id: relation.id)
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
        if restored != nil {
            // State made by a different plan (an older optimizer's) does not fit this one.
            let changed = try viewsPlannedDifferently(views)
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
                let built = makeIndex(index, of: relation)
                built.rebuild(from: store)
                tables.stores.addIndex(built, id: index.id, table: relation.id)
            }
        }
        if let restored {
            // Views first, from their state; then the table writes logged after the
            // checkpoint's cut; then the connectors, sources from the cut's positions.
            let restoring = ContinuousClock.now
            var shown: UInt64 = 0
            for relation in views { shown = max(shown, try restoreMaterializedView(relation, state: restored.views[relation.id])) }
            stateNote = "views restored from state checkpoint \(restored.manifest.sequence), "
                + "\(recovered.changesAfterCut?.count ?? 0) table writes after it replayed into them "
                + String(format: "(its files read in %.3f s, the views' operators restored in %.3f s)", readSeconds, (ContinuousClock.now - restoring).inSeconds)
            // (Read back from the log a record at a time; each waits for room in the views' input.)
            try recovered.changesAfterCut?.forEach { (table, parts) throws(SluiceError) in
                guard streams.runtime.isRead(table) else { return }
                for part in parts where !part.rows.isEmpty {
                    streams.runtime.withSource(table) { writer in writer.emit(TableState.changes(part.rows, part.op)) }
                }
            }
            startConnectors(relations, recovery: recovered, resume: restored.manifest.positions)
            // Queries after the start see the restored views, not empty ones.
            streams.runtime.waitForCommitBlocking(shown)
        } else {
            // Connectors start from their definitions (not checked again: an outside system
            // that is down now is retried, with the reason in `sluice_sources.status`).
            startConnectors(relations, recovery: recovered, resume: [:])
            // Views read tables, sources and earlier views: rebuild them in creation order.
            var shown: UInt64 = 0
            for relation in views { shown = max(shown, try restoreMaterializedView(relation, state: nil)) }
            streams.runtime.waitForCommitBlocking(shown)
        }
        recovered.stateSummary = stateNote
        recovery = recovered

    }

    /// Starts the connectors of `relations`: a table's from the position its rows reached in the
    /// log, a source's from `resume` (a state checkpoint's cut) or else where it started.
    private func startConnectors(_ relations: [RelationDefinition], recovery: TableJournal.Recovery, resume: [Int: [Int32: Int64]]) {
        // An APPEND ONLY table's watermark, from the checkpoint (before its connector, if any,
        // delivers rows).
        for relation in relations where relation.kind == .table && relation.watermark != nil {
            let watermark = resume[relation.id]?[WatermarkFilter.positionKey]
            let filter = watermarkFilter(for: relation, from: watermark)
            // Rows logged after the checkpoint raised it further (they were all kept).
            if let filter {
                try? recovery.changesAfterCut?.forEach { (table, changes) throws(SluiceError) in
                    guard table == relation.id else { return }
                    for change in changes where change.op.isInsertion { _ = filter.apply(change.rows) }
                }
            }
            streams.connectors.setWatermarkFilter(filter, for: relation.id)
        }
        for relation in relations where relation.connector != nil && relation.kind != .sink {
            do {
                var description = Self.sourceDescription(relation)
                if let positions = recovery.positions[relation.id] { description.startPositions = positions }
                var watermark: Int64?
                if relation.kind == .source, var positions = resume[relation.id] {
                    watermark = positions.removeValue(forKey: WatermarkFilter.positionKey)
                    description.resumePositions = positions
                }
                start(try makeConnector(description, false), for: relation, watermark: watermark)
            } catch {
                FileHandle.standardError.write(Data("sluice: the connector of \(relation.name) did not start: \(error.message)\n".utf8))
            }
        }
    }

    /// The names of `views` whose definitions now plan to a different stream plan than the one
    /// they were stored with (or that were stored without one). Each is bound in order, put in
    /// the catalog for the views after it, and taken out again.
    private func viewsPlannedDifferently(_ views: [RelationDefinition]) throws(SluiceError) -> [String] {
        var changed: [String] = []
        var added: [Int] = []
        defer { for id in added { catalog.remove(id: id) } }
        for stored in views {
            let statements = try SQLParser.parse(stored.definition)
            var binder = Binder(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
            guard statements.count == 1 else { throw SluiceError(.ioError, "the stored definition of \(stored.name) is not one statement") }
            switch try binder.bind(statements[0]) {
            case .createMaterializedView(_, let plan), .createSink(_, let plan):
                if stored.planFingerprint != plan.fingerprint { changed.append(stored.name) }
            default:
                throw SluiceError(.ioError, "the stored definition of \(stored.name) is not a materialized view or sink")
            }
            try catalog.add(stored)
            added.append(stored.id)
        }
        return changed
    }

    /// Binds a stored view definition again and starts maintaining it under its old id, from
    /// `state` (a checkpoint's) or else from its inputs.
    /// Returns the epoch after which the view (or sink) shows its rows.
    @discardableResult
    private func restoreMaterializedView(_ stored: RelationDefinition, state: RestoredTables?) throws(SluiceError) -> UInt64 {
        let statements = try SQLParser.parse(stored.definition)
        guard statements.count == 1 else { throw SluiceError(.ioError, "the stored definition of \(stored.name) is not one statement") }
        var binder = Binder(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
        switch try binder.bind(statements[0]) {
        case .createMaterializedView(var relation, let plan):
            relation.id = stored.id
            relation.indexes = stored.indexes
            return try createMaterializedView(relation, plan: plan, restoring: state)
        case .createSink(var relation, let plan):
            relation.id = stored.id
            relation.sinkID = stored.sinkID
            return try createSink(relation, plan: plan, restoring: state, validate: false)
        default:
            throw SluiceError(.ioError, "the stored definition of \(stored.name) is not a materialized view or sink")
        }
    }
}
