import SluiceCore
import SluicePGWire
import SluicePlanner

/// CREATE SCHEMA: a new schema, owned by the role that made it.
enum CreateSchemaHandler {
    /// Creates schema `name` with `pg_namespace` oid `oid`, owned by role `owner`.
    static func run(_ name: String, oid: Int, owner: Int, in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        let database = session.database
        try database.catalog.addSchema(name, oid: oid)
        database.catalog.setSchemaAccess(ObjectAccess(owner: owner), for: name)
        try database.saveCatalog()
        return PGStatementResult(commandTag: "CREATE_SCHEMA")
    }
}
