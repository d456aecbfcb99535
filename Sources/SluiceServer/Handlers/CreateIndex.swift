import SluiceCore
import SluicePGWire
import SluicePlanner
import SluiceState

/// CREATE INDEX: a secondary index of a table or materialized view, built from its rows.
enum CreateIndexHandler {
    /// Creates `index` of `table`.
    static func run(_ index: IndexDefinition, on table: RelationDefinition, in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        try apply(index, on: table, to: session.database)
        return PGStatementResult(commandTag: "CREATE_INDEX")
    }

    /// Adds secondary index `index` to `table` and builds it from the table's rows, with the
    /// table's writes paused so that none is missed or applied twice.
    /// A materialized view's index is built from the view's rows in the step that publishes an
    /// epoch, and takes each later epoch's changes.
    static func apply(_ index: IndexDefinition, on table: RelationDefinition, to database: Database) throws(SluiceError) {
        let catalog = database.catalog
        let stores = database.tables.stores
        let runtime = database.streams.runtime
        guard let store = database.tables.store(for: table.id) else { throw SluiceError(.undefinedTable, "relation \"\(table.name)\" does not exist") }
        let built = makeIndex(index, of: table, in: database)
        if table.kind == .materializedView {
            stores.addViewIndex(built, id: index.id, view: table.id)
            runtime.setKeepsChanges(true, view: table.id)
            do {
                try catalog.addIndex(index, toTable: table.id)
                try database.saveCatalog()
            } catch {
                DropIndexHandler.remove(index.id, of: table.id, from: database)
                throw error
            }
            return
        }
        try runtime.withWritesPaused { () throws(SluiceError) in
            try catalog.addIndex(index, toTable: table.id)
            built.rebuild(from: store)
            stores.addIndex(built, id: index.id, table: table.id)
        }
        do {
            try database.saveCatalog()
        } catch {
            stores.removeIndex(id: index.id, table: table.id)
            catalog.removeIndex(index.id, fromTable: table.id)
            throw error
        }
    }

    /// An empty index `index` of `table`, counted against the memory limit (at CREATE, and at
    /// start, where it is rebuilt from the table's recovered rows).
    static func makeIndex(_ index: IndexDefinition, of table: RelationDefinition, in database: Database) -> TableIndex {
        TableIndex(types: table.columns.map(\.type), keys: index.keys, memory: database.streams.runtime.memory)
    }
}
