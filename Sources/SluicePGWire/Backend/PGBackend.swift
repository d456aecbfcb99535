import SluiceCore

/// What the wire server needs from the database.
package protocol PGBackend: Sendable {
    /// Starts a session for a connection after authentication. Throw e.g. SQLState.invalidCatalogName (3D000) for an unknown database.
    func startSession(_ startup: PGStartup) throws(SluiceError) -> any PGSession
}

/// The identity and settings a client sent in its StartupMessage, after authentication.
package struct PGStartup: Sendable, Equatable {
    /// The `user` startup parameter.
    package var user: String
    /// The `database` startup parameter; the user name when the client sent none, as in Postgres.
    package var database: String
    /// All startup parameters, including `user` and `database` (e.g. `application_name`, `options`).
    package var parameters: [String: String]
    /// The process id the client sees in BackendKeyData and `pg_backend_pid()`.
    package var processID: Int32
    /// Whether the user is a superuser, as the directory said at login (`is_superuser`).
    package var superuser = false

    package init(user: String, database: String, parameters: [String: String], processID: Int32) {
        self.user = user
        self.database = database
        self.parameters = parameters
        self.processID = processID
    }
}
