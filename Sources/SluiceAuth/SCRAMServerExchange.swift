import SluiceCore

/// The server side of one SCRAM-SHA-256 exchange (RFC 5802, section 5; RFC 7677) without
/// channel binding: Postgres runs it inside SASLInitialResponse / SASLResponse messages, Kafka
/// inside SaslAuthenticate requests (KIP-84).
///
/// The user is either given up front (Postgres takes it from the startup packet and ignores the
/// `n=` attribute, which libpq leaves empty) or named by the client-first-message's `n=`
/// attribute and looked up in a ``UserDirectory`` (Kafka). An unknown user, a user who may not
/// log in and a user without a password get a mock exchange with a made-up salt that fails at
/// the proof, so a client cannot tell them from a wrong password (Postgres and Kafka do the same).
package struct SCRAMServerExchange: Sendable {
    private enum State: Sendable {
        case awaitingClientFirst
        case awaitingClientFinal(clientFirstBare: String, serverFirst: String, gs2Header: String, nonce: String)
        case finished
    }

    /// Where the user's verifier comes from.
    private let users: (any UserDirectory)?
    /// The user the exchange authenticates: given at the start, or (with a directory) the one the
    /// client-first-message names; empty until then.
    package private(set) var user: String
    /// Whether ``user`` is a superuser, as the directory said (false for a user given up front).
    package private(set) var isSuperuser = false
    private var verifier: SCRAMVerifier?
    private let serverNonce: String
    private var state: State = .awaitingClientFirst

    /// Starts an exchange for `user`, whose verifier is nil when the user has none.
    ///
    /// `serverNonce` must be printable ASCII without commas; use ``randomNonce()`` outside tests.
    package init(user: String, verifier: SCRAMVerifier?, serverNonce: String) {
        self.users = nil
        self.user = user
        self.verifier = verifier
        self.serverNonce = serverNonce
    }

    /// Starts an exchange for whichever user the client-first-message names (its `n=`
    /// attribute, with RFC 5802's `=2C` and `=3D` escapes decoded), looked up in `users`.
    package init(users: any UserDirectory, serverNonce: String) {
        self.users = users
        self.user = ""
        self.verifier = nil
        self.serverNonce = serverNonce
    }

    /// The key of the made-up salts: random, drawn once per process, so that a mock exchange
    /// offers the same salt for a name at every attempt, as a real user's does (Postgres keys
    /// them with its `mock_authentication_nonce`).
    private static let mockSaltKey: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0 ..< 32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }()

    /// The salt offered to a user that has no verifier.
    static func mockSalt(for user: String) -> [UInt8] {
        Array(HMACSHA256.authenticationCode(for: Array(user.utf8), key: mockSaltKey).prefix(16))
    }

    /// 18 random bytes in base64, as Postgres makes its nonces.
    package static func randomNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64.encode((0 ..< 18).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Takes the client-first-message and returns the server-first-message.
    package mutating func receiveClientFirst(_ message: [UInt8]) throws(SluiceError) -> [UInt8] {
        guard case .awaitingClientFirst = state else { throw Self.malformed("unexpected SCRAM client-first-message") }
        state = .finished
        guard let text = String(validating: message, as: UTF8.self) else { throw Self.malformed("SCRAM message is not UTF-8") }
        // client-first-message = gs2-header client-first-message-bare; gs2-header = cbind-flag "," [authzid] ","
        let parts = text.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Self.malformed("malformed SCRAM client-first-message") }
        switch parts[0] {
        case "n", "y": break
        case let flag where flag.hasPrefix("p="):
            throw SluiceError(.protocolViolation, "channel binding is not supported", detail: "The server advertises only SCRAM-SHA-256.")
        default:
            throw Self.malformed("unexpected channel-binding flag in SCRAM client-first-message")
        }
        let clientFirstBare = String(parts[2])
        let attributes = clientFirstBare.split(separator: ",", omittingEmptySubsequences: false)
        guard attributes.count >= 2, attributes[0].hasPrefix("n="), attributes[1].hasPrefix("r=") else {
            throw Self.malformed("malformed SCRAM client-first-message")
        }
        let clientNonce = attributes[1].dropFirst(2)
        guard !clientNonce.isEmpty, clientNonce.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7e }) else {
            throw Self.malformed("invalid SCRAM client nonce")
        }
        // Attributes after the nonce are extensions (RFC 5802, section 5.1). Kafka clients send
        // `tokenauth=true` to log in with a delegation token (KIP-48), which Sluice does not
        // issue; other extensions are ignored, as Kafka ignores the ones it does not know.
        for extensionAttribute in attributes.dropFirst(2) where extensionAttribute.lowercased() == "tokenauth=true" {
            throw SluiceError(.featureNotSupported, "delegation token authentication is not supported")
        }
        if let users {
            guard let name = Self.saslName(attributes[0].dropFirst(2)), !name.isEmpty else {
                throw Self.malformed("invalid user name in SCRAM client-first-message")
            }
            // An authorization identity may only repeat the user name (as Kafka allows it).
            guard parts[1].isEmpty || (parts[1].hasPrefix("a=") && Self.saslName(parts[1].dropFirst(2)) == name) else {
                throw SluiceError(.featureNotSupported, "client uses authorization identity, but it is not supported")
            }
            user = name
            switch users.login(name) {
            case .allowed(let found, let superuser):
                verifier = found
                isSuperuser = superuser
            case .unknown, .notPermitted:
                verifier = nil
            }
        } else {
            guard parts[1].isEmpty else {
                throw SluiceError(.featureNotSupported, "client uses authorization identity, but it is not supported")
            }
        }
        let nonce = String(clientNonce) + serverNonce
        let salt = verifier?.salt ?? Self.mockSalt(for: user)
        let iterations = verifier?.iterations ?? SCRAMVerifier.defaultIterations
        let serverFirst = "r=\(nonce),s=\(Base64.encode(salt)),i=\(iterations)"
        state = .awaitingClientFinal(
            clientFirstBare: clientFirstBare, serverFirst: serverFirst,
            gs2Header: "\(parts[0]),\(parts[1]),", nonce: nonce
        )
        return Array(serverFirst.utf8)
    }

    /// Takes the client-final-message, checks the proof, and returns the server-final-message.
    package mutating func receiveClientFinal(_ message: [UInt8]) throws(SluiceError) -> [UInt8] {
        guard case .awaitingClientFinal(let clientFirstBare, let serverFirst, let gs2Header, let nonce) = state else {
            throw Self.malformed("unexpected SCRAM client-final-message")
        }
        state = .finished
        guard let text = String(validating: message, as: UTF8.self) else {
            throw Self.malformed("SCRAM message is not UTF-8")
        }
        // client-final-message = client-final-message-without-proof "," proof; the proof comes last.
        var attributes = text.split(separator: ",", omittingEmptySubsequences: false)
        guard attributes.count >= 3, let last = attributes.popLast(), last.hasPrefix("p="),
              attributes[0].hasPrefix("c="), attributes[1].hasPrefix("r="),
              let proof = Base64.decode(last.dropFirst(2)), proof.count == SHA256.digestLength
        else { throw Self.malformed("malformed SCRAM client-final-message") }
        let withoutProof = attributes.joined(separator: ",")
        guard Base64.decode(attributes[0].dropFirst(2)) == Array(gs2Header.utf8) else {
            throw Self.malformed("SCRAM channel binding check failed")
        }
        // RFC 5802 wants the nonce back exactly. librdkafka sends its own nonce again in front of
        // it, and Kafka's ScramSaslServer accepts any nonce that ends with the server's, so
        // Kafka's exchanges (the ones with a directory) do too; the proof covers what was sent.
        let echoedNonce = attributes[1].dropFirst(2)
        guard echoedNonce == nonce || (users != nil && echoedNonce.hasSuffix(nonce)) else {
            throw Self.malformed("SCRAM nonce does not match")
        }
        guard let verifier else { throw passwordFailed() }

        let authMessage = Array("\(clientFirstBare),\(serverFirst),\(withoutProof)".utf8)
        let clientSignature = HMACSHA256.authenticationCode(for: authMessage, key: verifier.storedKey)
        let clientKey = zip(proof, clientSignature).map { $0 ^ $1 }
        guard SHA256.hash(clientKey) == verifier.storedKey else { throw passwordFailed() }
        let serverSignature = HMACSHA256.authenticationCode(for: authMessage, key: verifier.serverKey)
        return Array("v=\(Base64.encode(serverSignature))".utf8)
    }

    /// A `saslname` (RFC 5802, section 5.1) decoded: `=2C` is a comma and `=3D` an equals sign;
    /// any other `=` makes the name invalid (nil).
    static func saslName(_ encoded: Substring) -> String? {
        guard encoded.contains("=") else { return String(encoded) }
        var decoded = ""
        var rest = encoded[...]
        while let equals = rest.firstIndex(of: "=") {
            decoded += rest[..<equals]
            let escape = rest[equals...].prefix(3)
            switch escape {
            case "=2C": decoded += ","
            case "=3D": decoded += "="
            default: return nil
            }
            rest = rest[equals...].dropFirst(3)
        }
        return decoded + rest
    }

    private func passwordFailed() -> SluiceError {
        SluiceError(.invalidPassword, "password authentication failed for user \"\(user)\"")
    }

    private static func malformed(_ detail: String) -> SluiceError {
        SluiceError(.protocolViolation, "malformed SCRAM message", detail: detail.prefix(1).uppercased() + detail.dropFirst() + ".")
    }
}
