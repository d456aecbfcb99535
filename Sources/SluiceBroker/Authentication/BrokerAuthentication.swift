import NIOCore
import SluiceAuth

/// A SASL mechanism the broker offers (Kafka's `sasl.enabled.mechanisms`).
package enum SASLMechanism: String, Sendable, CaseIterable {
    /// RFC 4616: the password in clear, checked against the user's SCRAM verifier. Use it over
    /// TLS, or on loopback.
    case plain = "PLAIN"
    /// RFC 5802 and RFC 7677, without channel binding; the verifiers are the SQL port's.
    case scramSHA256 = "SCRAM-SHA-256"
}

/// Whom the broker lets in, and how: whether clients must authenticate with SASL, one rule for
/// clients on a loopback address and one for the others (as the SQL port's two methods), the
/// mechanisms offered, and the users they are checked against.
package struct BrokerAuthentication: Sendable {
    /// Whether a client must authenticate before its requests are served.
    package enum Requirement: String, Sendable, CaseIterable {
        /// A client may authenticate (and its requests then run as that user) or not (and they
        /// run as the trusted anonymous principal): the broker before it had users.
        case optional
        /// A client must complete SaslHandshake and SaslAuthenticate before any request other
        /// than ApiVersions and SaslHandshake; any other request closes the connection, as
        /// Kafka's SASL listeners do.
        case required
    }

    package var loopback: Requirement
    package var other: Requirement
    /// The mechanisms SaslHandshake accepts, in the order its response lists them.
    package var mechanisms: [SASLMechanism]
    /// The users SASL checks. Looked up at each login; ``KafkaBroker/users`` replaces it while
    /// the broker runs (the server's users come from a catalog opened after the broker).
    package var users: any UserDirectory
    /// How long a failed login waits before its answer (and the close).
    package var failedLoginDelay: TimeAmount
    /// Whether a PLAIN password (a PBKDF2 derivation, milliseconds) is checked on the thread
    /// pool rather than the connection's event loop, which other connections share. Off only
    /// where the loop is a test's `EmbeddedEventLoop`, which one thread must drive.
    package var checksPasswordsOffLoop = true

    package init(
        loopback: Requirement = .optional, other: Requirement = .optional, mechanisms: [SASLMechanism] = SASLMechanism.allCases,
        users: any UserDirectory = FixedUserDirectory(verifiers: [:]), failedLoginDelay: TimeAmount = .milliseconds(250)
    ) {
        self.loopback = loopback
        self.other = other
        self.mechanisms = mechanisms
        self.users = users
        self.failedLoginDelay = failedLoginDelay
    }

    /// What a connection from a loopback address, or from elsewhere, must do.
    package func requirement(loopback isLoopback: Bool) -> Requirement {
        isLoopback ? loopback : other
    }

    /// Whether some clients must authenticate.
    package var isRequiredAnywhere: Bool { loopback == .required || other == .required }
}
