import SluiceCore

/// What the server keeps per user for SCRAM-SHA-256 (RFC 5802, section 3): keys derived from the
/// password, never the password itself, as Postgres stores them in `pg_authid.rolpassword`.
package struct SCRAMVerifier: Sendable, Equatable {
    package var salt: [UInt8]
    package var iterations: Int
    /// `H(HMAC(SaltedPassword, "Client Key"))`.
    package var storedKey: [UInt8]
    /// `HMAC(SaltedPassword, "Server Key")`.
    package var serverKey: [UInt8]

    /// Postgres's default `scram_iterations`.
    package static let defaultIterations = 4096

    /// Derives the verifier of `password`.
    ///
    /// - Complexity: `2 * iterations` SHA-256 compressions; derive once per user, not per connection.
    package init(password: String, salt: [UInt8], iterations: Int = SCRAMVerifier.defaultIterations) {
        // Postgres applies SASLprep to the password; ASCII passwords are unchanged by it.
        let saltedPassword = PBKDF2.hi(password: Array(password.utf8), salt: salt, iterations: iterations)
        let clientKey = HMACSHA256.authenticationCode(for: "Client Key".utf8, key: saltedPassword)
        self.salt = salt
        self.iterations = iterations
        self.storedKey = SHA256.hash(clientKey)
        self.serverKey = HMACSHA256.authenticationCode(for: "Server Key".utf8, key: saltedPassword)
    }

    /// A verifier as stored (the catalog keeps these four values).
    package init(salt: [UInt8], iterations: Int, storedKey: [UInt8], serverKey: [UInt8]) {
        self.salt = salt
        self.iterations = iterations
        self.storedKey = storedKey
        self.serverKey = serverKey
    }

    /// Derives the verifier of `password` with a fresh random 16-byte salt.
    package init(password: String) {
        var generator = SystemRandomNumberGenerator()
        self.init(password: password, salt: (0 ..< 16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

extension SCRAMVerifier {
    /// Whether `password` is the one this verifier was derived from (for methods that send the
    /// password in clear, Postgres's `password` and Kafka's SASL/PLAIN): derives its keys with
    /// the stored salt and iterations and compares in constant time.
    ///
    /// - Complexity: one PBKDF2 derivation, `2 * iterations` SHA-256 compressions.
    package func matches(password: String) -> Bool {
        let candidate = SCRAMVerifier(password: password, salt: salt, iterations: iterations)
        guard candidate.storedKey.count == storedKey.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(candidate.storedKey, storedKey) { difference |= a ^ b }
        return difference == 0
    }
}
