/// How the server checks who a client is.
package enum PGAuthentication: Sendable {
    /// Anyone may connect as any user (Postgres `trust`).
    case trust
    /// The client sends the password in clear text (Postgres `password`); users maps names to passwords.
    case cleartext(users: [String: String])
    /// SCRAM-SHA-256 without channel binding (Postgres `scram-sha-256`); users maps names to passwords.
    case scramSHA256(users: [String: String])
}

/// A ``PGAuthentication`` made ready for use: SCRAM verifiers are derived once here, not per connection.
package enum PGAuthenticator: Sendable {
    case trust
    case cleartext(users: [String: String])
    case scramSHA256(verifiers: [String: SCRAMVerifier])

    /// Prepares `authentication`, deriving a SCRAM verifier with a fresh salt for each user.
    ///
    /// - Complexity: one PBKDF2 run (8,192 SHA-256 compressions) per SCRAM user.
    package init(_ authentication: PGAuthentication) {
        switch authentication {
        case .trust:
            self = .trust
        case .cleartext(let users):
            self = .cleartext(users: users)
        case .scramSHA256(let users):
            self = .scramSHA256(verifiers: users.mapValues { SCRAMVerifier(password: $0) })
        }
    }
}
