import SluiceCore
import SluicePGWire
import SluicePlanner

/// DROP INDEX: each index leaves its table's catalog entry and stores.
enum DropIndexHandler {
    /// Drops each of `doomed`, an index with its table.
    static func run(_ doomed: [(table: RelationDefinition, index: IndexDefinition)], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        for (table, index) in doomed { try apply(index, of: table, to: session.database) }
        return PGStatementResult(commandTag: "DROP_INDEX")
    }

    /// Drops `index` of `table` and saves the catalog.
    static func apply(_ index: IndexDefinition, of table: RelationDefinition, to database: Database) throws(SluiceError) {
        remove(index.id, of: table.id, from: database)
        try database.saveCatalog()
    }

    /// Takes index `indexID` out of table `tableID`'s catalog entry and stores; a view left
    /// without indexes stops keeping its changes for them.
    static func remove(_ indexID: Int, of tableID: Int, from database: Database) {
        database.catalog.removeIndex(indexID, fromTable: tableID)
        database.tables.stores.removeIndex(id: indexID, table: tableID)
        if database.tables.stores.indexes(of: tableID).isEmpty { database.streams.runtime.setKeepsChanges(false, view: tableID) }
    }
}
