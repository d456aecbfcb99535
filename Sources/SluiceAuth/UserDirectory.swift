import Synchronization

/// Whether a user may log in, and with what proof.
package enum UserLogin: Sendable, Equatable {
    /// No such user (Postgres: 28000; Kafka: a failed authentication like a wrong password).
    case unknown
    /// The user exists but may not log in (a NOLOGIN role).
    case notPermitted
    /// The user may log in. `verifier` is its password's (nil: it has no password, so only a
    /// method that asks for none lets it in); `superuser` lets it do anything, whatever the
    /// grants (the catalog's SUPERUSER attribute; the broker's super.users).
    case allowed(verifier: SCRAMVerifier?, superuser: Bool)
}

/// Who may log in, looked up at each login, so that users created, altered or dropped while a
/// server runs take effect at the next one. The SQL port and the Kafka broker ask the same
/// directory (the server's is the catalog's roles).
package protocol UserDirectory: Sendable {
    func login(_ user: String) -> UserLogin
}

/// Every name may log in, with no password and no superuser rights: a server on its own, before
/// a catalog of users exists (its tests, and tools that embed it).
package struct AnyUserDirectory: UserDirectory {
    package init() {}

    package func login(_ user: String) -> UserLogin { .allowed(verifier: nil, superuser: false) }
}

/// A fixed set of users, their SCRAM verifiers derived once (one PBKDF2 run each); the names in
/// `superusers` are superusers.
package struct FixedUserDirectory: UserDirectory {
    package let verifiers: [String: SCRAMVerifier]
    package let superusers: Set<String>

    package init(verifiers: [String: SCRAMVerifier], superusers: Set<String> = []) {
        self.verifiers = verifiers
        self.superusers = superusers
    }

    package init(passwords: [String: String], superusers: Set<String> = []) {
        self.init(verifiers: passwords.mapValues { SCRAMVerifier(password: $0) }, superusers: superusers)
    }

    package func login(_ user: String) -> UserLogin {
        verifiers[user].map { .allowed(verifier: $0, superuser: superusers.contains(user)) } ?? .unknown
    }
}

/// A directory set once the users exist (a listener that starts before the catalog is open):
/// until then nobody is known.
package final class LateUserDirectory: UserDirectory {
    private let directory = Mutex<(any UserDirectory)?>(nil)

    package init() {}

    package func set(_ users: any UserDirectory) {
        directory.withLock { $0 = users }
    }

    package func login(_ user: String) -> UserLogin {
        directory.withLock { $0 }?.login(user) ?? .unknown
    }
}
