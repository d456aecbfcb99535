import SluiceCore

/// The server side of one SCRAM-SHA-256 exchange (RFC 5802, section 5; RFC 7677) without
/// channel binding, as Postgres runs it inside SASLInitialResponse / SASLResponse messages.
///
/// An unknown user gets a mock exchange with a made-up salt that fails at the proof, so a
/// client cannot tell unknown users from wrong passwords (Postgres does the same).
package struct SCRAMServerExchange: Sendable {
    private enum State: Sendable {
        case awaitingClientFirst
        case awaitingClientFinal(clientFirstBare: String, serverFirst: String, gs2Header: String, nonce: String)
        case finished
    }

    private let user: String
    private let verifier: SCRAMVerifier?
    private let serverNonce: String
    private var state: State = .awaitingClientFirst

    /// Starts an exchange for `user`, whose verifier is nil when the user has none.
    ///
    /// `serverNonce` must be printable ASCII without commas; use ``randomNonce()`` outside tests.
    package init(user: String, verifier: SCRAMVerifier?, serverNonce: String) {
        self.user = user
        self.verifier = verifier
        self.serverNonce = serverNonce
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
        guard parts[1].isEmpty else {
            throw SluiceError(.featureNotSupported, "client uses authorization identity, but it is not supported")
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
        let nonce = String(clientNonce) + serverNonce
        let salt = verifier?.salt ?? Array(SHA256.hash(Array(user.utf8) + Array(serverNonce.utf8)).prefix(16))
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
        guard attributes[1].dropFirst(2) == nonce else { throw Self.malformed("SCRAM nonce does not match") }
        guard let verifier else { throw passwordFailed() }

        let authMessage = Array("\(clientFirstBare),\(serverFirst),\(withoutProof)".utf8)
        let clientSignature = HMACSHA256.authenticationCode(for: authMessage, key: verifier.storedKey)
        let clientKey = zip(proof, clientSignature).map { $0 ^ $1 }
        guard SHA256.hash(clientKey) == verifier.storedKey else { throw passwordFailed() }
        let serverSignature = HMACSHA256.authenticationCode(for: authMessage, key: verifier.serverKey)
        return Array("v=\(Base64.encode(serverSignature))".utf8)
    }

    private func passwordFailed() -> SluiceError {
        SluiceError(.invalidPassword, "password authentication failed for user \"\(user)\"")
    }

    private static func malformed(_ detail: String) -> SluiceError {
        SluiceError(.protocolViolation, "malformed SCRAM message", detail: detail.prefix(1).uppercased() + detail.dropFirst() + ".")
    }
}
