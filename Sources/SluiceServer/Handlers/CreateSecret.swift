import SluiceCore
import SluicePGWire
import SluicePlanner

/// CREATE SECRET: a secret kept with the catalog, for connector options to name.
enum CreateSecretHandler {
    /// Creates secret `name` holding `value`.
    static func run(_ name: String, value: String, in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        try session.database.catalog.addSecret(name, value: value)
        try session.database.saveCatalog()
        return PGStatementResult(commandTag: "CREATE_SECRET")
    }
}
