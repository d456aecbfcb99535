import SluiceCore
import SluicePGWire
import SluicePlanner

/// DROP SCHEMA: the relations in the schemas (with CASCADE) are dropped first, then the schemas
/// and their grants.
enum DropSchemaHandler {
    /// Drops `relations` (dependents first), then schemas `names`.
    static func run(_ names: [String], relations: [RelationDefinition], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        let database = session.database
        for relation in relations { try DropHandler.apply(relation, to: database) }
        for name in names {
            database.catalog.removeSchema(name)
            database.catalog.setSchemaAccess(nil, for: name)
        }
        try database.saveCatalog()
        return PGStatementResult(commandTag: "DROP_SCHEMA")
    }
}
