import SluiceCore
import SluicePGWire
import SluicePlanner

/// DROP SECRET.
enum DropSecretHandler {
    /// Drops secrets `names`.
    static func run(_ names: [String], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        for name in names { session.database.catalog.removeSecret(name) }
        try session.database.saveCatalog()
        return PGStatementResult(commandTag: "DROP_SECRET")
    }
}
