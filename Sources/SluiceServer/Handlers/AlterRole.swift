import SluiceCore
import SluicePGWire
import SluicePlanner

/// ALTER ROLE and ALTER USER: attributes, a new name, a new password (kept as a verifier).
enum AlterRoleHandler {
    /// Role `name` becomes `role`, its password changed as `password` says.
    static func run(_ name: String, to role: RoleDefinition, password: RolePasswordChange, in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        var role = role
        switch password {
        case .keep: break
        case .remove: role.password = nil
        case .set(let text): role.password = RolePassword.derived(from: text)
        }
        try session.database.catalog.replaceRole(named: name, with: role)
        try session.database.saveCatalog()
        return PGStatementResult(commandTag: "ALTER_ROLE")
    }
}
