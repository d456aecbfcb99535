import SluiceCore
import SluicePGWire
import SluicePlanner

/// DROP FUNCTION: the relations that use the functions (CASCADE) go first, as DROP drops them,
/// then the functions leave the catalog.
enum DropFunctionHandler {
    /// Drops `relations` (dependents first), then `functions`.
    static func run(_ functions: [FunctionDefinition], relations: [RelationDefinition], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        let database = session.database
        for relation in relations { try DropHandler.apply(relation, to: database) }
        for function in functions { database.catalog.removeFunction(id: function.id) }
        try database.saveCatalog()
        return PGStatementResult(commandTag: "DROP_FUNCTION")
    }
}
