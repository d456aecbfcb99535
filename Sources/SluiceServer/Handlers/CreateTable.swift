import SluiceBatch
import SluiceCore
import SluiceDataflow
import SluicePGWire
import SluicePlan
import SluicePlanner
import SluiceState

/// CREATE TABLE, and CREATE TABLE AS: the table's catalog entry and empty store, then for AS
/// its rows.
enum CreateTableHandler {
    /// Creates table `relation`; with `populate`, its rows (staged before the table exists, so
    /// that a failing query makes no table).
    static func run(_ relation: RelationDefinition, populate: BatchPlan?, in session: SQLSession) async throws(SluiceError) -> PGStatementResult {
        let database = session.database
        let batch = session.statementBatch()
        let staged = try populate.map { (plan) throws(SluiceError) in try session.stage(plan, into: relation, executor: batch.executor) }
        if let failure = batch.reader.failure { throw failure }
        _ = try apply(relation, to: database)
        if let staged { _ = try database.tables.insert(staged, into: relation) }
        let result = PGStatementResult(commandTag: populate == nil ? "CREATE_TABLE" : "SELECT \(staged?.rowCount ?? 0)")
        try await session.acknowledgeWrite(isDML: false)
        return result
    }

    /// Registers table `relation` (a connector-fed one too) and its empty store, and saves the
    /// catalog. Returns the store.
    @discardableResult
    static func apply(_ relation: RelationDefinition, to database: Database) throws(SluiceError) -> TableStore {
        try database.catalog.add(relation)
        database.registerDeduplicator(for: relation)
        let store = addStore(for: relation, to: database)
        if relation.kind == .table, let filter = WatermarkFilter(of: relation, from: nil, catalog: database.catalog) {
            database.streams.connectors.setWatermarkFilter(filter, for: relation.id)
        }
        try database.saveCatalog()
        return store
    }

    /// Table `relation`'s empty store, checkpointed with a data directory, added to the stores
    /// and as the rows its readers read (at CREATE, and at start before its rows are recovered).
    static func addStore(for relation: RelationDefinition, to database: Database) -> TableStore {
        let store = TableStore(
            types: relation.columns.map(\.type), primaryKey: relation.primaryKey, onConflict: relation.onConflict ?? .overwrite,
            versionColumn: relation.versionColumn, memory: database.streams.runtime.memory)
        if database.dataDirectory != nil { store.enableCheckpoints() }
        database.tables.stores.add(store, id: relation.id)
        database.streams.runtime.setRows(.store(store), for: relation.id)
        return store
    }
}
