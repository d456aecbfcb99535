import SluiceCore
import SluicePGWire
import SluicePlanner

/// CREATE [OR REPLACE] FUNCTION … LANGUAGE SQL: the function joins the catalog (its body was
/// bound at binding); calls inline it where they are bound.
enum CreateFunctionHandler {
    /// Adds `function` (in place of the function with its id when `replacing`) and saves the catalog.
    static func run(_ function: FunctionDefinition, replacing: Bool, in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        let catalog = session.database.catalog
        let old = replacing ? catalog.function(id: function.id) : nil
        try catalog.addFunction(function)
        do {
            try session.database.saveCatalog()
        } catch {
            if let old { try? catalog.addFunction(old) } else { catalog.removeFunction(id: function.id) }
            throw error
        }
        return PGStatementResult(commandTag: "CREATE_FUNCTION")
    }
}
