import SluiceCore
import SluicePGWire
import SluicePlanner

/// DROP SCHEMA: the relations in the schemas and those using their functions (with CASCADE) are
/// dropped first, then the functions, then the schemas and their grants.
enum DropSchemaHandler {
    /// Drops `relations` (dependents first), then schemas `names`.
    static func run(_ names: [String], relations: [RelationDefinition], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        let database = session.database
        for relation in relations { try DropHandler.apply(relation, to: database) }
        // The schemas' functions, and the functions that call them.
        let catalog = database.catalog
        let functions = catalog.functions.filter { names.contains($0.schema) }
        for function in functions {
            for caller in catalog.functionDependents(of: function.id) { catalog.removeFunction(id: caller.id) }
            catalog.removeFunction(id: function.id)
        }
        for name in names {
            database.catalog.removeSchema(name)
            database.catalog.setSchemaAccess(nil, for: name)
        }
        try database.saveCatalog()
        return PGStatementResult(commandTag: "DROP_SCHEMA")
    }
}
