import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluicePGWire
import SluicePlan
import SluicePlanner
import SluiceState

/// CREATE MATERIALIZED VIEW: the view's catalog entry and store, and its stream job started
/// from the current rows of what it reads. The statement completes once the view shows them.
enum CreateMaterializedViewHandler {
    /// Creates materialized view `relation`, maintained by `plan`.
    static func run(_ relation: RelationDefinition, plan: StreamPlan, in session: SQLSession) async throws(SluiceError) -> PGStatementResult {
        let database = session.database
        // The statement completes once the view shows the rows it started from.
        await database.streams.runtime.waitForCommit(try apply(relation, plan: plan, to: database))
        try DropHandler.dropIfBackfillFailed(relation, in: database)
        // Accepted as RisingWave accepts it, with a word on state that only grows.
        let notices = plan.unboundedState.map { SluiceError(.successfulCompletion, $0.message, hint: $0.hint) }
        return PGStatementResult(commandTag: "CREATE_MATERIALIZED_VIEW", notices: notices)
    }

    /// Registers materialized view `relation` and starts maintaining it by `plan`, from the
    /// current rows of what it reads, or at a restart from `restoring` (a checkpoint's state).
    /// Returns the epoch after which it shows those rows.
    static func apply(
        _ relation: RelationDefinition, plan: StreamPlan, to database: Database, restoring: RestoredTables? = nil
    ) throws(SluiceError) -> UInt64 {
        let catalog = database.catalog
        let stores = database.tables.stores
        let runtime = database.streams.runtime
        try catalog.add(relation)
        let store = TableStore(types: relation.columns.map(\.type), primaryKey: [])
        stores.add(store, id: relation.id, isView: true)
        runtime.setRows(.store(store), for: relation.id)
        // A restored view's indexes, empty until its first epoch is published (rebuilt from its
        // rows then, whole).
        for index in relation.indexList {
            stores.addIndex(CreateIndexHandler.makeIndex(index, of: relation, in: database), id: index.id, table: relation.id)
        }
        do {
            let epoch = try runtime.createView(
                id: relation.id, name: relation.name, plan: plan, context: EvaluationContext(timeZones: database.timeZones), restoring: restoring)
            if !relation.indexList.isEmpty { runtime.setKeepsChanges(true, view: relation.id) }
            try database.saveCatalog()
            return epoch
        } catch {
            catalog.remove(id: relation.id)
            stores.remove(id: relation.id)
            runtime.removeRows(for: relation.id)
            throw error
        }
    }
}
