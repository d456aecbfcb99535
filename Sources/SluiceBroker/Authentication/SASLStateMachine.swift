import SluiceAuth
import SluiceCore
import SluiceKafkaProtocol

/// SASL authentication of one connection, without I/O (KIP-43, KIP-152): which requests the
/// connection may send, and what its SaslHandshake requests and SASL tokens get back.
///
/// Kafka's `SaslServerAuthenticator` is the model: before authentication only ApiVersions and
/// SaslHandshake are served (where authentication is required); after a handshake only the
/// mechanism's tokens are taken, inside SaslAuthenticate requests (handshake v1) or as bare
/// size-prefixed frames (handshake v0); a failure ends the connection. Where authentication is
/// optional, requests before any handshake run as the anonymous principal.
struct SASLStateMachine {
    enum State {
        /// No handshake yet.
        case unauthenticated
        /// A handshake chose a mechanism; its tokens come next.
        case authenticating(MechanismStep, framing: TokenFraming)
        case authenticated(KafkaPrincipal)
        /// A handshake or a token failed; the connection is closing.
        case failed
    }

    /// Where a mechanism's exchange stands.
    enum MechanismStep {
        /// PLAIN takes one token.
        case plain
        /// SCRAM takes the client-first-message, then the client-final-message.
        case scram(SCRAMServerExchange, awaitingFinal: Bool)
    }

    /// How the client sends its tokens.
    enum TokenFraming: Equatable {
        /// Inside SaslAuthenticate requests (after SaslHandshake v1).
        case saslAuthenticate
        /// As bare size-prefixed frames with no request header (after SaslHandshake v0).
        case raw
    }

    /// What a handshake gets: the response's error code, and whether the connection closes
    /// after the response.
    struct HandshakeOutcome: Equatable {
        var errorCode: KafkaErrorCode
        var closesConnection: Bool
    }

    /// What a token gets.
    enum TokenOutcome: Equatable {
        /// The mechanism wants another token; the client gets these bytes.
        case challenge([UInt8])
        /// The client is `principal` from now on; it gets these (possibly empty) bytes.
        case authenticated([UInt8], KafkaPrincipal)
        /// A failed login: SASL_AUTHENTICATION_FAILED with this message, after the failed-login
        /// delay, then the connection closes.
        case failed(String)
        /// A token where none is expected: ILLEGAL_SASL_STATE with this message.
        case illegalState(String)
    }

    let requirement: BrokerAuthentication.Requirement
    let mechanisms: [SASLMechanism]
    let users: any UserDirectory
    /// Makes the server nonce of a SCRAM exchange.
    let makeNonce: @Sendable () -> String
    private(set) var state: State = .unauthenticated

    init(
        requirement: BrokerAuthentication.Requirement, mechanisms: [SASLMechanism], users: any UserDirectory,
        makeNonce: @escaping @Sendable () -> String = SCRAMServerExchange.randomNonce
    ) {
        self.requirement = requirement
        self.mechanisms = mechanisms
        self.users = users
        self.makeNonce = makeNonce
    }

    /// The principal requests run as; nil while the connection may send nothing but
    /// authentication requests.
    var principal: KafkaPrincipal? {
        switch state {
        case .unauthenticated: requirement == .optional ? .anonymous : nil
        case .authenticated(let principal): principal
        case .authenticating, .failed: nil
        }
    }

    /// Whether the next frame is a bare SASL token rather than a request.
    var expectsRawTokens: Bool {
        if case .authenticating(_, .raw) = state { return true }
        return false
    }

    /// Whether a request of `api` (nil: an API key the broker does not know) is served; if not,
    /// the connection closes without an answer, as Kafka closes it.
    func admits(_ api: KafkaAPI?) -> Bool {
        switch state {
        case .unauthenticated:
            switch api {
            case .apiVersions?, .saslHandshake?: return true
            case .saslAuthenticate?: return false
            default: return requirement == .optional
            }
        case .authenticating(_, .saslAuthenticate):
            return api == .saslAuthenticate
        case .authenticating(_, .raw), .failed:
            return false
        case .authenticated:
            return true
        }
    }

    /// A SaslHandshake request at `version` asked for `mechanism`.
    mutating func handshakeReceived(mechanism name: String, version: Int16) -> HandshakeOutcome {
        switch state {
        case .unauthenticated:
            guard let mechanism = SASLMechanism(rawValue: name), mechanisms.contains(mechanism) else {
                state = .failed
                return HandshakeOutcome(errorCode: .unsupportedSaslMechanism, closesConnection: true)
            }
            let step: MechanismStep
            switch mechanism {
            case .plain: step = .plain
            case .scramSHA256: step = .scram(SCRAMServerExchange(users: users, serverNonce: makeNonce()), awaitingFinal: false)
            }
            state = .authenticating(step, framing: version >= 1 ? .saslAuthenticate : .raw)
            return HandshakeOutcome(errorCode: .noError, closesConnection: false)
        case .authenticated:
            // Re-authentication (KIP-368) is not offered: Kafka answers so when it is off.
            return HandshakeOutcome(errorCode: .illegalSaslState, closesConnection: false)
        case .authenticating, .failed:
            state = .failed
            return HandshakeOutcome(errorCode: .illegalSaslState, closesConnection: true)
        }
    }

    /// Whether the next token is a PLAIN one: its check (a PBKDF2 derivation) may run off the
    /// event loop with ``plainLogin(_:users:)``, its outcome handed to ``plainChecked(_:)``.
    var awaitsPlainToken: Bool {
        if case .authenticating(.plain, _) = state { return true }
        return false
    }

    /// A PLAIN token was checked.
    mutating func plainChecked(_ result: Result<KafkaPrincipal, PlainFailure>) -> TokenOutcome {
        guard awaitsPlainToken else { return .illegalState("SaslAuthenticate request received before a SaslHandshake") }
        switch result {
        case .success(let principal):
            state = .authenticated(principal)
            return .authenticated([], principal)
        case .failure(let failure):
            state = .failed
            return .failed(failure.message)
        }
    }

    /// A SASL token arrived (in a SaslAuthenticate request, or bare after a v0 handshake).
    mutating func tokenReceived(_ token: [UInt8]) -> TokenOutcome {
        switch state {
        case .authenticating(.plain, _):
            return plainChecked(Self.plainLogin(token, users: users))
        case .authenticating(.scram(var exchange, let awaitingFinal), let framing):
            do throws(SluiceError) {
                if !awaitingFinal {
                    let serverFirst = try exchange.receiveClientFirst(token)
                    state = .authenticating(.scram(exchange, awaitingFinal: true), framing: framing)
                    return .challenge(serverFirst)
                }
                let serverFinal = try exchange.receiveClientFinal(token)
                let principal = KafkaPrincipal(user: exchange.user, isSuperuser: exchange.isSuperuser)
                state = .authenticated(principal)
                return .authenticated(serverFinal, principal)
            } catch {
                // Kafka words every SCRAM failure alike, so the answer tells nothing about the
                // user (the exchange already fails unknown users only at the proof).
                state = .failed
                return .failed("Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256")
            }
        case .authenticated:
            return .illegalState("SaslAuthenticate request received after successful authentication")
        case .unauthenticated, .failed:
            state = .failed
            return .illegalState("SaslAuthenticate request received before a SaslHandshake")
        }
    }

    /// Why a PLAIN login failed, in Kafka's words.
    struct PlainFailure: Error, Equatable {
        var message: String
    }

    /// Checks a PLAIN token (RFC 4616: `[authzid] NUL authcid NUL passwd`) against `users`, as
    /// Kafka's `PlainSaslServer` does.
    static func plainLogin(_ token: [UInt8], users: any UserDirectory) -> Result<KafkaPrincipal, PlainFailure> {
        let parts = token.split(separator: 0, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(PlainFailure(message: "Invalid SASL/PLAIN response: expected 3 tokens, got \(parts.count)"))
        }
        guard let authorizationID = String(validating: parts[0], as: UTF8.self), let user = String(validating: parts[1], as: UTF8.self),
              let password = String(validating: parts[2], as: UTF8.self)
        else { return .failure(PlainFailure(message: "Invalid SASL/PLAIN response: not UTF-8")) }
        guard !user.isEmpty else { return .failure(PlainFailure(message: "Authentication failed: username not specified")) }
        guard !password.isEmpty else { return .failure(PlainFailure(message: "Authentication failed: password not specified")) }
        let accepted: KafkaPrincipal?
        switch users.login(user) {
        case .allowed(let verifier?, let superuser):
            accepted = verifier.matches(password: password) ? KafkaPrincipal(user: user, isSuperuser: superuser) : nil
        case .allowed(nil, _), .unknown, .notPermitted:
            // As long as a wrong password takes, so the time does not tell unknown users apart.
            _ = SCRAMVerifier(password: password, salt: Array(repeating: 0, count: 16))
            accepted = nil
        }
        guard let accepted else { return .failure(PlainFailure(message: "Authentication failed: Invalid username or password")) }
        guard authorizationID.isEmpty || authorizationID == user else {
            return .failure(PlainFailure(message: "Authentication failed: Client requested an authorization id that is different from username"))
        }
        return .success(accepted)
    }
}
