import SluiceCore

/// How a client proves who it is: Postgres's `pg_hba.conf` methods `trust`, `password` (the
/// password in clear text, checked against the stored verifier) and `scram-sha-256`.
package enum PGAuthMethod: String, Sendable, CaseIterable {
    case trust
    case password
    case scram
}

/// Whether a user may log in, and with what proof.
package enum PGLogin: Sendable, Equatable {
    /// No such role: 28000.
    case unknown
    /// The role exists but has NOLOGIN: 28000.
    case notPermitted
    /// The role may log in; `verifier` is its password's (nil: it has no password, so only
    /// `trust` lets it in).
    case allowed(verifier: SCRAMVerifier?)
}

/// Who may log in, looked up per connection, so that users created, altered or dropped while the
/// server runs take effect at the next login.
package protocol PGUserDirectory: Sendable {
    func login(_ user: String) -> PGLogin
}

/// Every name may log in, with no password: the wire server on its own, before a catalog of
/// users exists (its tests, and tools that embed it).
package struct AnyUserDirectory: PGUserDirectory {
    package init() {}
    package func login(_ user: String) -> PGLogin { .allowed(verifier: nil) }
}

/// A fixed set of users, their SCRAM verifiers derived once (one PBKDF2 run each).
package struct FixedUserDirectory: PGUserDirectory {
    package let verifiers: [String: SCRAMVerifier]

    package init(verifiers: [String: SCRAMVerifier]) {
        self.verifiers = verifiers
    }

    package init(passwords: [String: String]) {
        self.init(verifiers: passwords.mapValues { SCRAMVerifier(password: $0) })
    }

    package func login(_ user: String) -> PGLogin {
        verifiers[user].map { .allowed(verifier: $0) } ?? .unknown
    }
}

/// Whom a server lets in, and how: one method for clients on a loopback address and one for the
/// others (the two lines of a simple `pg_hba.conf`), over one directory of users.
package struct PGAuthentication: Sendable {
    package var loopback: PGAuthMethod
    package var other: PGAuthMethod
    package var users: any PGUserDirectory

    package init(loopback: PGAuthMethod, other: PGAuthMethod, users: any PGUserDirectory) {
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
    package var users: any PGUserDirectory

    package init(method: PGAuthMethod, users: any PGUserDirectory) {
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

extension SCRAMVerifier {
    /// Whether `password` is the one this verifier was derived from (for the `password`
    /// method): derives its keys with the stored salt and iterations and compares in constant time.
    package func matches(password: String) -> Bool {
        let candidate = SCRAMVerifier(password: password, salt: salt, iterations: iterations)
        guard candidate.storedKey.count == storedKey.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(candidate.storedKey, storedKey) { difference |= a ^ b }
        return difference == 0
    }
}
