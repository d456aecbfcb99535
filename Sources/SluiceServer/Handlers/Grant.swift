import SluiceCore
import SluicePGWire
import SluicePlanner

/// GRANT and REVOKE, of privileges on objects and of membership in roles: the binder worked
/// out each object's or member's new state; it is stored here.
enum GrantHandler {
    /// GRANT or REVOKE of privileges: each object gets its new owner and grants.
    static func run(_ changes: [AccessChange], isRevoke: Bool, notices: [String], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        let catalog = session.database.catalog
        for change in changes {
            switch change.kind {
            case .relation: if let id = Int(change.object) { catalog.setAccess(change.access, relationID: id) }
            case .schema: catalog.setSchemaAccess(change.access, for: change.object)
            case .database: catalog.setDatabaseAccess(change.access)
            }
        }
        try session.database.saveCatalog()
        return PGStatementResult(commandTag: isRevoke ? "REVOKE" : "GRANT", notices: notices.map { SluiceError(.warning, $0) })
    }

    /// GRANT or REVOKE of roles: each member gets its new memberships.
    static func runRoles(
        _ changes: [(member: String, memberships: [RoleMembership])], isRevoke: Bool, notices: [String], in session: SQLSession
    ) throws(SluiceError) -> PGStatementResult {
        for (member, memberships) in changes { session.database.catalog.setMemberships(memberships, of: member) }
        try session.database.saveCatalog()
        return PGStatementResult(
            commandTag: isRevoke ? "REVOKE ROLE" : "GRANT ROLE",
            notices: notices.map { SluiceError(isRevoke ? .warning : .successfulCompletion, $0) })
    }
}
