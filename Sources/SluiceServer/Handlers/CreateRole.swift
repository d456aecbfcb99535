import SluiceCore
import SluicePGWire
import SluicePlanner

/// CREATE ROLE and CREATE USER: the role gets an oid, and its password is kept as a verifier,
/// never in clear text.
enum CreateRoleHandler {
    /// Creates `role`, with `password` (clear text) if given.
    static func run(_ role: RoleDefinition, password: String?, in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        let database = session.database
        var role = role
        role.oid = database.catalog.allocateID()
        role.password = password.map(RolePassword.derived(from:))
        try database.catalog.addRole(role)
        try database.saveCatalog()
        return PGStatementResult(commandTag: "CREATE_ROLE")
    }
}
