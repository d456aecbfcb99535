import SluiceAuth
import SluiceCore

// "Start-up" in "Message Flow": StartupMessage, authentication, then ParameterStatus,
// BackendKeyData and ReadyForQuery.
extension ConnectionStateMachine {
    /// The mechanisms advertised in AuthenticationSASL; no channel binding (no `-PLUS`).
    static let saslMechanism = "SCRAM-SHA-256"

    /// The handler put TLS on the connection after sending `S`.
    package mutating func tlsStarted() {
        isEncrypted = true
    }

    mutating func startupPacketReceived(_ message: PGFrontendMessage) -> ConnectionAction {
        switch message {
        case .sslRequest:
            guard configuration.tls != nil, !isEncrypted else { return .send(.encryptionRefused) }
            return ConnectionAction(messages: [.encryptionAccepted], effect: .startTLS)
        case .gssEncryptionRequest:
            return .send(.encryptionRefused)
        case .cancelRequest(let processID, let secretKey):
            enter(.closed)
            return ConnectionAction(effect: .cancel(processID: processID, secretKey: secretKey))
        case .startup(let startupMessage):
            return startupReceived(startupMessage)
        case .authenticationResponse, .query, .parse, .bind, .describe, .execute, .close, .sync, .flush, .terminate,
             .copyData, .copyDone, .copyFail:
            return closed(with: .fail(SluiceError(.protocolViolation, "expected a startup packet")))
        }
    }

    private mutating func startupReceived(_ message: PGStartupMessage) -> ConnectionAction {
        var parameters = message.parameters
        // Protocol options (`_pq_.*`) are not supported; NegotiateProtocolVersion names them.
        let protocolOptions = parameters.keys.filter { $0.hasPrefix("_pq_.") }.sorted()
        for option in protocolOptions { parameters[option] = nil }
        guard let user = parameters["user"], !user.isEmpty else {
            return closed(with: .fail(SluiceError(.invalidAuthorizationSpecification, "no PostgreSQL user name specified in startup packet")))
        }
        let database = parameters["database"].flatMap { $0.isEmpty ? nil : $0 } ?? user
        if configuration.tlsRequired && !isEncrypted {
            // Postgres's words for a `hostssl`-only pg_hba.conf.
            return closed(with: .fail(SluiceError(
                .invalidAuthorizationSpecification, "no pg_hba.conf entry for user \"\(user)\", database \"\(database)\", no encryption",
                hint: "This server takes only TLS connections: connect with sslmode=require or verify-full.")))
        }
        var startup = PGStartup(user: user, database: database, parameters: parameters, processID: processID)
        var messages: [PGBackendMessage] = []
        if message.protocolVersion & 0xFFFF != 0 || !protocolOptions.isEmpty {
            messages.append(.negotiateProtocolVersion(newestMinorVersion: 0, unrecognizedOptions: protocolOptions))
        }
        let verifier: SCRAMVerifier?
        switch configuration.authenticator.users.login(user) {
        case .unknown:
            return closed(with: .rejectLogin(SluiceError(.invalidAuthorizationSpecification, "role \"\(user)\" does not exist")))
        case .notPermitted:
            return closed(with: .rejectLogin(SluiceError(.invalidAuthorizationSpecification, "role \"\(user)\" is not permitted to log in")))
        case .allowed(let found, let superuser):
            verifier = found
            startup.superuser = superuser
        }
        switch configuration.authenticator.method {
        case .trust, .auto where verifier == nil:
            // `auto` trusts a role that has no password to give.
            return authenticated(startup, messages: messages)
        case .password:
            enter(.authenticating(.awaitingPassword(startup, verifier: verifier)))
            messages.append(.authentication(.cleartextPassword))
        case .scram, .auto:
            // A role without a password goes through the exchange and fails at its end, as in
            // Postgres (the client learns nothing sooner).
            let exchange = SCRAMServerExchange(user: user, verifier: verifier, serverNonce: configuration.makeNonce())
            enter(.authenticating(.awaitingSASLInitialResponse(startup, exchange)))
            messages.append(.authentication(.sasl(mechanisms: [Self.saslMechanism])))
        }
        return ConnectionAction(messages: messages)
    }

    mutating func authenticationMessageReceived(_ message: PGFrontendMessage, step: AuthenticationStep) -> ConnectionAction {
        let body: [UInt8]
        switch message {
        case .authenticationResponse(let bytes):
            body = bytes
        case .terminate:
            return closed(with: ConnectionAction(effect: .close))
        case .startup, .sslRequest, .gssEncryptionRequest, .cancelRequest, .query, .parse, .bind, .describe,
             .execute, .close, .sync, .flush, .copyData, .copyDone, .copyFail:
            return closed(with: .fail(SluiceError(.protocolViolation, "expected password response")))
        }
        do throws(SluiceError) {
            switch step {
            case .awaitingPassword(let startup, let verifier):
                let password = try PGAuthenticationResponse.password(from: body)
                enter(.authenticating(.checkingPassword(startup)))
                return ConnectionAction(effect: .checkPassword(password, verifier))
            case .checkingPassword:
                throw SluiceError(.protocolViolation, "unexpected message while the password is checked")
            case .awaitingSASLInitialResponse(let startup, var exchange):
                let (mechanism, data) = try PGAuthenticationResponse.saslInitialResponse(from: body)
                guard mechanism == Self.saslMechanism else {
                    throw SluiceError(.protocolViolation, "client selected an invalid SASL authentication mechanism")
                }
                guard let data else { throw SluiceError(.protocolViolation, "malformed SCRAM message", detail: "The message is empty.") }
                let serverFirst = try exchange.receiveClientFirst(data)
                enter(.authenticating(.awaitingSASLResponse(startup, exchange)))
                return .send(.authentication(.saslContinue(serverFirst)))
            case .awaitingSASLResponse(let startup, var exchange):
                let serverFinal = try exchange.receiveClientFinal(body)
                return authenticated(startup, messages: [.authentication(.saslFinal(serverFinal))])
            }
        } catch {
            return closed(with: error.code == .invalidPassword ? .rejectLogin(error) : .fail(error))
        }
    }

    /// The clear-text password was checked (``ConnectionAction/Effect/checkPassword(_:_:)``).
    package mutating func passwordChecked(_ matches: Bool) -> ConnectionAction {
        switch state {
        case .authenticating(.checkingPassword(let startup)):
            return matches ? authenticated(startup, messages: []) : closed(with: .rejectLogin(Self.passwordFailed(startup.user)))
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed, .copyIn, .copyOut:
            return closed(with: .fail(.internalError("a password check ended while none was running")))
        }
    }

    private mutating func authenticated(_ startup: PGStartup, messages: [PGBackendMessage]) -> ConnectionAction {
        self.startup = startup
        enter(.startingSession)
        return ConnectionAction(messages: messages + [.authentication(.ok)], effect: .startSession(startup))
    }

    static func passwordFailed(_ user: String) -> SluiceError {
        SluiceError(.invalidPassword, "password authentication failed for user \"\(user)\"")
    }

    /// `PGBackend.startSession` returned a session.
    package mutating func sessionStarted() -> ConnectionAction {
        switch state {
        case .startingSession:
            enter(.ready)
            var messages = initialParameterStatus().map { PGBackendMessage.parameterStatus(name: $0.0, value: $0.1) }
            messages.append(.backendKeyData(processID: processID, secretKey: secretKey))
            messages.append(.readyForQuery(transactionStatus))
            return ConnectionAction(messages: messages)
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed, .copyIn, .copyOut:
            return closed(with: .fail(.internalError("a session started while none was being started")))
        }
    }

    /// `PGBackend.startSession` threw, e.g. 3D000 for an unknown database.
    package mutating func sessionFailed(_ error: SluiceError) -> ConnectionAction {
        switch state {
        case .startingSession:
            return closed(with: .fail(error))
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed, .copyIn, .copyOut:
            return closed(with: .fail(.internalError("a session failed while none was being started")))
        }
    }

    /// The ParameterStatus values Postgres reports at startup (`GUC_REPORT` settings).
    func initialParameterStatus() -> [(String, String)] {
        [
            ("server_version", configuration.serverVersion),
            ("server_encoding", "UTF8"),
            ("client_encoding", "UTF8"),
            ("DateStyle", "ISO, MDY"),
            ("IntervalStyle", "postgres"),
            ("TimeZone", "UTC"),
            ("integer_datetimes", "on"),
            ("standard_conforming_strings", "on"),
            ("is_superuser", startup?.superuser == true ? "on" : "off"),
            ("session_authorization", startup?.user ?? ""),
            ("application_name", startup?.parameters["application_name"] ?? ""),
        ]
    }
}
