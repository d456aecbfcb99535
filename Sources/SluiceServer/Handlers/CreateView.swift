import SluiceCore
import SluicePGWire
import SluicePlanner

/// CREATE [OR REPLACE] VIEW: a view is its definition alone; queries naming it bind its query
/// in its place.
enum CreateViewHandler {
    /// Creates view `relation`, in place of `replacing` for CREATE OR REPLACE VIEW.
    static func run(_ relation: RelationDefinition, replacing: RelationDefinition?, in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        try apply(relation, replacing: replacing, to: session.database)
        return PGStatementResult(commandTag: "CREATE_VIEW")
    }

    /// Registers view `relation` (in place of `replacing`) and saves the catalog; the old view
    /// stays when the new one cannot be added.
    static func apply(_ relation: RelationDefinition, replacing: RelationDefinition?, to database: Database) throws(SluiceError) {
        let catalog = database.catalog
        if let replacing { catalog.remove(id: replacing.id) }
        do {
            try catalog.add(relation)
        } catch {
            if let replacing { try? catalog.add(replacing) }
            throw error
        }
        try database.saveCatalog()
    }
}
