import SluiceCore
import SluicePGWire
import SluicePlanner

/// DROP ROLE and DROP USER.
enum DropRoleHandler {
    /// Drops roles `names` (none: IF EXISTS found none, and the catalog is not written).
    static func run(_ names: [String], notices: [String], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        for name in names { session.database.catalog.removeRole(named: name) }
        if !names.isEmpty { try session.database.saveCatalog() }
        return PGStatementResult(commandTag: "DROP_ROLE", notices: notices.map { SluiceError(.successfulCompletion, $0) })
    }
}
