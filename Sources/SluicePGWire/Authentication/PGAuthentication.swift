import SluiceAuth

/// How a client proves who it is: Postgres's `pg_hba.conf` methods `trust`, `password` (the
/// password in clear text, checked against the stored verifier) and `scram-sha-256`, and `auto`:
/// a role without a password is trusted, a role with one must prove it by SCRAM-SHA-256 (the
/// default on loopback, so a password once set is always asked for).
package enum PGAuthMethod: String, Sendable, CaseIterable {
    case trust
    case password
    case scram
    case auto

    /// Whether a client that gives no credentials at all gets in as a role without a password
    /// (the broker's anonymous clients, the dashboard's requests without Basic credentials).
    package var admitsPasswordless: Bool { self == .trust || self == .auto }
}

/// Whom a server lets in, and how: one method for clients on a loopback address and one for the
/// others (the two lines of a simple `pg_hba.conf`), over one directory of users.
package struct PGAuthentication: Sendable {
    package var loopback: PGAuthMethod
    package var other: PGAuthMethod
    package var users: any UserDirectory

    package init(loopback: PGAuthMethod, other: PGAuthMethod, users: any UserDirectory) {
        self.loopback = loopback
        self.other = other
        self.users = users
    }

    /// Anyone, as any user, from anywhere.
    package static let trust = PGAuthentication(loopback: .trust, other: .trust, users: AnyUserDirectory())

    /// Clear-text passwords from everyone; `users` maps names to passwords.
    package static func cleartext(users: [String: String]) -> PGAuthentication {
        PGAuthentication(loopback: .password, other: .password, users: FixedUserDirectory(passwords: users))
    }

    /// SCRAM-SHA-256 from everyone; `users` maps names to passwords.
    package static func scramSHA256(users: [String: String]) -> PGAuthentication {
        PGAuthentication(loopback: .scram, other: .scram, users: FixedUserDirectory(passwords: users))
    }

    /// What a connection from a loopback address, or from elsewhere, goes through.
    package func authenticator(loopback isLoopback: Bool) -> PGAuthenticator {
        PGAuthenticator(method: isLoopback ? loopback : other, users: users)
    }
}

/// What one connection goes through: a method and the directory it checks.
package struct PGAuthenticator: Sendable {
    package var method: PGAuthMethod
    package var users: any UserDirectory

    package init(method: PGAuthMethod, users: any UserDirectory) {
        self.method = method
        self.users = users
    }

    package static let trust = PGAuthenticator(method: .trust, users: AnyUserDirectory())

    package static func cleartext(users: [String: String]) -> PGAuthenticator {
        PGAuthenticator(method: .password, users: FixedUserDirectory(passwords: users))
    }

    package static func scramSHA256(verifiers: [String: SCRAMVerifier]) -> PGAuthenticator {
        PGAuthenticator(method: .scram, users: FixedUserDirectory(verifiers: verifiers))
    }
}
