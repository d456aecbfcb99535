import SluiceAuth
import SluiceCore

/// The protocol logic of one client connection, without I/O (postgres-nio style).
///
/// Events come in as method calls named in the past tense; each returns the ``ConnectionAction``
/// the handler performs. At most one backend call (startSession, prepare, execute) is in flight:
/// while one is, the handler feeds no client messages and reports the call's outcome instead.
package struct ConnectionStateMachine {
    package enum State {
        case awaitingStartup
        case authenticating(AuthenticationStep)
        /// Authentication succeeded; `PGBackend.startSession` is running.
        case startingSession
        case ready
        case simpleQuery(SimpleQueryStep)
        case extendedQuery(ExtendedQueryStep)
        /// An extended-query message failed: messages are discarded until Sync.
        case extendedQueryFailed
        /// `COPY … FROM STDIN`: CopyData is taken from the client, or passed to the sink.
        case copyIn(CopyInProgress)
        /// `COPY … TO STDOUT`: the stream is asked for its next rows.
        case copyOut(PGCopyOutStream, origin: CopyOrigin)
        case closed
    }

    package enum AuthenticationStep {
        case awaitingPassword(PGStartup, verifier: SCRAMVerifier?)
        /// A clear-text password is being checked (PBKDF2) off the event loop.
        case checkingPassword(PGStartup)
        case awaitingSASLInitialResponse(PGStartup, SCRAMServerExchange)
        case awaitingSASLResponse(PGStartup, SCRAMServerExchange)
    }

    package enum SimpleQueryStep {
        case preparing
        /// `statements` are all of the query's statements; `nextIndex` is the one after the running one.
        case executing(statements: [PGPreparedStatement], nextIndex: Int)
        /// The running statement's rows are being sent; its stream is asked for the next chunk.
        case streaming(PGResultCursor, statements: [PGPreparedStatement], nextIndex: Int)
    }

    package enum ExtendedQueryStep {
        /// Between extended-query messages, before Sync.
        case awaitingMessage
        case parsing(PGParse, parameterTypes: [DataType?])
        case executing(portalName: String, maxRows: Int)
        /// Execute's rows are being sent (`sent` of at most `maxRows` so far); the result's stream
        /// is asked for the next chunk.
        case streaming(portalName: String, maxRows: Int, sent: Int, cursor: PGResultCursor)
    }

    /// The settings a connection needs from the server.
    package struct Configuration: Sendable {
        package var authenticator: PGAuthenticator
        package var serverVersion: String
        /// Makes the server nonce of a SCRAM exchange.
        package var makeNonce: @Sendable () -> String
        /// TLS, when the server has a certificate; `tlsRequired` refuses a startup without it.
        package var tls: PGTLS?
        package var tlsRequired = false
        /// Whether a clear-text password (a PBKDF2 derivation) is checked on the session threads
        /// rather than the event loop, which other connections share. Off only where the loop is
        /// a test's `EmbeddedEventLoop`, which one thread must drive.
        package var checksPasswordsOffLoop = true

        package init(
            authenticator: PGAuthenticator = .trust, serverVersion: String = "13.14.0",
            makeNonce: @escaping @Sendable () -> String = SCRAMServerExchange.randomNonce
        ) {
            self.authenticator = authenticator
            self.serverVersion = serverVersion
            self.makeNonce = makeNonce
        }
    }

    package private(set) var state: State = .awaitingStartup
    /// Whether TLS runs on the connection (after SSLRequest was answered `S`).
    package internal(set) var isEncrypted = false
    let configuration: Configuration
    /// This connection's cancel key, sent in BackendKeyData.
    package let processID: Int32
    package let secretKey: Int32
    /// The session's transaction status, reported in ReadyForQuery. The handler refreshes it from
    /// the session before each event; tests set it directly.
    package var transactionStatus: PGTransactionStatus = .idle

    var statements: [String: PreparedStatementEntry] = [:]
    var portals: [String: PGPortal] = [:]
    var startup: PGStartup?

    package init(configuration: Configuration, processID: Int32, secretKey: Int32) {
        self.configuration = configuration
        self.processID = processID
        self.secretKey = secretKey
    }

    /// True while a backend call is in flight and client messages must wait.
    package var isAwaitingBackend: Bool {
        switch state {
        case .startingSession, .simpleQuery, .copyOut, .authenticating(.checkingPassword): true
        case .copyIn(let progress): progress.isBusy
        case .extendedQuery(.parsing), .extendedQuery(.executing), .extendedQuery(.streaming): true
        case .awaitingStartup, .authenticating, .ready, .extendedQuery(.awaitingMessage), .extendedQueryFailed, .closed: false
        }
    }

    // MARK: - Client messages

    /// A complete message arrived from the client.
    package mutating func messageReceived(_ message: PGFrontendMessage) -> ConnectionAction {
        switch state {
        case .awaitingStartup:
            return startupPacketReceived(message)
        case .authenticating(let step):
            return authenticationMessageReceived(message, step: step)
        case .ready, .extendedQuery(.awaitingMessage):
            return queryMessageReceived(message)
        case .extendedQueryFailed:
            return messageReceivedWhileSkippingToSync(message)
        case .copyIn(let progress) where !progress.isBusy:
            return copyInMessageReceived(message, progress: progress)
        case .startingSession, .simpleQuery, .extendedQuery(.parsing), .extendedQuery(.executing), .extendedQuery(.streaming), .copyIn, .copyOut:
            return closed(with: .fail(.internalError("a client message was handled while a backend call was running")))
        case .closed:
            return ConnectionAction(effect: .close)
        }
    }

    /// The decoder rejected the byte stream (08P01); the connection cannot continue.
    package mutating func decodingFailed(_ error: SluiceError) -> ConnectionAction {
        switch state {
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed, .copyIn, .copyOut:
            return closed(with: .fail(error))
        }
    }

    /// The connection went away; nothing more is sent.
    package mutating func connectionClosed() {
        state = .closed
    }

    private mutating func queryMessageReceived(_ message: PGFrontendMessage) -> ConnectionAction {
        switch message {
        case .query(let sql):
            state = .simpleQuery(.preparing)
            return ConnectionAction(effect: .prepare(sql, parameterTypes: []))
        case .parse(let parse):
            return parseReceived(parse)
        case .bind(let bind):
            return bindReceived(bind)
        case .describe(let target):
            return describeReceived(target)
        case .execute(let execute):
            return executeReceived(execute)
        case .close(let target):
            return closeReceived(target)
        case .sync:
            return syncReceived()
        case .flush:
            return ConnectionAction()
        case .copyData, .copyDone, .copyFail:
            // Left over from a COPY FROM STDIN that failed: ignored, as Postgres does.
            return ConnectionAction()
        case .terminate:
            return closed(with: ConnectionAction(effect: .close))
        case .authenticationResponse:
            return closed(with: .fail(SluiceError(.protocolViolation, "unexpected password message outside authentication")))
        case .startup, .sslRequest, .gssEncryptionRequest, .cancelRequest:
            return closed(with: .fail(SluiceError(.protocolViolation, "unexpected startup packet after startup")))
        }
    }

    private mutating func messageReceivedWhileSkippingToSync(_ message: PGFrontendMessage) -> ConnectionAction {
        switch message {
        case .sync:
            return syncReceived()
        case .terminate:
            return closed(with: ConnectionAction(effect: .close))
        case .query, .parse, .bind, .describe, .execute, .close, .flush, .copyData, .copyDone, .copyFail:
            return ConnectionAction()
        case .authenticationResponse, .startup, .sslRequest, .gssEncryptionRequest, .cancelRequest:
            return closed(with: .fail(SluiceError(.protocolViolation, "unexpected message type after an extended-query error")))
        }
    }

    // MARK: - Backend outcomes

    /// `PGSession.prepare` returned.
    package mutating func prepareSucceeded(_ prepared: [PGPreparedStatement]) -> ConnectionAction {
        switch state {
        case .simpleQuery(.preparing):
            guard let first = prepared.first else {
                state = .ready
                return .send(.emptyQueryResponse, .readyForQuery(transactionStatus))
            }
            return executeSimpleStatement(first, of: prepared, index: 0)
        case .extendedQuery(.parsing(let parse, let parameterTypes)):
            return parseCompleted(parse, parameterTypes: parameterTypes, prepared: prepared)
        case .closed:
            return ConnectionAction(closedStatements: prepared, effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery(.executing), .simpleQuery(.streaming),
             .extendedQuery(.awaitingMessage), .extendedQuery(.executing), .extendedQuery(.streaming), .extendedQueryFailed, .copyIn, .copyOut:
            return closed(with: .fail(.internalError("prepare returned while none was running")))
        }
    }

    /// `PGSession.prepare` threw.
    package mutating func prepareFailed(_ error: SluiceError) -> ConnectionAction {
        switch state {
        case .simpleQuery(.preparing):
            return simpleQueryFailed(error, statements: [])
        case .extendedQuery(.parsing):
            return extendedQueryFailed(error)
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery(.executing), .simpleQuery(.streaming),
             .extendedQuery(.awaitingMessage), .extendedQuery(.executing), .extendedQuery(.streaming), .extendedQueryFailed, .copyIn, .copyOut:
            return closed(with: .fail(.internalError("prepare failed while none was running")))
        }
    }

    /// `PGSession.execute` returned.
    package mutating func executeSucceeded(_ result: PGStatementResult) -> ConnectionAction {
        switch state {
        case .simpleQuery(.executing(let statements, let nextIndex)):
            if result.copyIn != nil || result.copyOut != nil {
                return copyStarted(result, origin: .simple(statements: statements, nextIndex: nextIndex))
            }
            if result.stream != nil {
                var messages = Self.noticeMessages(result)
                if let columns = result.columns {
                    messages.append(.rowDescription(PGRowDescriptionField.fields(for: columns, formats: [])))
                }
                return sendSimpleRows(of: PGResultCursor(result), statements: statements, nextIndex: nextIndex, messages: messages)
            }
            return simpleStatementDone(Self.completeResultMessages(result), statements: statements, nextIndex: nextIndex)
        case .extendedQuery(.executing(let portalName, let maxRows)):
            if result.copyIn != nil || result.copyOut != nil {
                return copyStarted(result, origin: .extended(portalName: portalName))
            }
            return portalExecuted(portalName, maxRows: maxRows, result: result)
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery(.preparing), .simpleQuery(.streaming),
             .extendedQuery(.awaitingMessage), .extendedQuery(.parsing), .extendedQuery(.streaming), .extendedQueryFailed, .copyIn, .copyOut:
            return closed(with: .fail(.internalError("execute returned while none was running")))
        }
    }

    /// A result stream gave its next chunk (nil: it ended).
    package mutating func rowsPulled(_ chunk: Chunk?) -> ConnectionAction {
        switch state {
        case .simpleQuery(.streaming(var cursor, let statements, let nextIndex)):
            cursor.pulled(chunk)
            return sendSimpleRows(of: cursor, statements: statements, nextIndex: nextIndex, messages: [])
        case .extendedQuery(.streaming(let portalName, let maxRows, let sent, var cursor)):
            cursor.pulled(chunk)
            return sendRows(of: cursor, portalName: portalName, maxRows: maxRows, messages: [], sent: sent)
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed, .copyIn, .copyOut:
            return closed(with: .fail(.internalError("rows arrived while none were asked for")))
        }
    }

    /// A result stream failed part way: the rows sent stand, the error follows them.
    package mutating func rowsFailed(_ error: SluiceError) -> ConnectionAction {
        switch state {
        case .simpleQuery(.streaming(_, let statements, _)):
            return simpleQueryFailed(error, statements: statements)
        case .extendedQuery(.streaming(let portalName, _, _, _)):
            portals[portalName]?.progress = .completed(commandTag: "")
            return extendedQueryFailed(error)
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery, .extendedQuery, .extendedQueryFailed, .copyIn, .copyOut:
            return closed(with: .fail(.internalError("rows failed while none were asked for")))
        }
    }

    /// Sends the held rows of a simple query's statement; asks for more while its stream has
    /// them, then completes the statement.
    private mutating func sendSimpleRows(
        of cursor: PGResultCursor, statements: [PGPreparedStatement], nextIndex: Int, messages: [PGBackendMessage]
    ) -> ConnectionAction {
        var cursor = cursor
        var messages = messages
        messages.append(contentsOf: cursor.nextRows(limit: .max, formats: []).map(PGBackendMessage.dataRow))
        if cursor.needsPull, let stream = cursor.stream {
            state = .simpleQuery(.streaming(cursor, statements: statements, nextIndex: nextIndex))
            return ConnectionAction(messages: messages, effect: .pullRows(stream))
        }
        messages.append(.commandComplete(cursor.commandTag))
        messages.append(contentsOf: Self.parameterStatusMessages(cursor.result))
        return simpleStatementDone(messages, statements: statements, nextIndex: nextIndex)
    }

    /// After one statement of a simple query: the next one, or ReadyForQuery.
    mutating func simpleStatementDone(_ messages: [PGBackendMessage], statements: [PGPreparedStatement], nextIndex: Int) -> ConnectionAction {
        var messages = messages
        guard nextIndex < statements.count else {
            state = .ready
            messages.append(.readyForQuery(transactionStatus))
            return ConnectionAction(messages: messages, closedStatements: statements)
        }
        var action = executeSimpleStatement(statements[nextIndex], of: statements, index: nextIndex)
        action.messages.insert(contentsOf: messages, at: 0)
        return action
    }

    /// `PGSession.execute` threw.
    package mutating func executeFailed(_ error: SluiceError) -> ConnectionAction {
        switch state {
        case .simpleQuery(.executing(let statements, _)):
            return simpleQueryFailed(error, statements: statements)
        case .extendedQuery(.executing):
            return extendedQueryFailed(error)
        case .closed:
            return ConnectionAction(effect: .close)
        case .awaitingStartup, .authenticating, .startingSession, .ready, .simpleQuery(.preparing), .simpleQuery(.streaming),
             .extendedQuery(.awaitingMessage), .extendedQuery(.parsing), .extendedQuery(.streaming), .extendedQueryFailed, .copyIn, .copyOut:
            return closed(with: .fail(.internalError("execute failed while none was running")))
        }
    }

    // MARK: - Simple query ("Simple Query" in "Message Flow")

    private mutating func executeSimpleStatement(
        _ statement: PGPreparedStatement, of statements: [PGPreparedStatement], index: Int
    ) -> ConnectionAction {
        guard statement.parameterTypes.isEmpty else {
            return simpleQueryFailed(
                SluiceError(.undefinedParameter, "there is no parameter $1", detail: "Simple queries cannot have parameters."),
                statements: statements
            )
        }
        state = .simpleQuery(.executing(statements: statements, nextIndex: index + 1))
        return ConnectionAction(effect: .execute(statement, parameters: []))
    }

    mutating func simpleQueryFailed(_ error: SluiceError, statements: [PGPreparedStatement]) -> ConnectionAction {
        state = .ready
        return ConnectionAction(
            messages: [.errorResponse(PGErrorFields(.error, error)), .readyForQuery(transactionStatus)],
            closedStatements: statements
        )
    }

    /// Everything a simple query sends for one statement: notices, RowDescription, all DataRows, CommandComplete.
    static func completeResultMessages(_ result: PGStatementResult) -> [PGBackendMessage] {
        var messages = noticeMessages(result)
        if result.isEmptyQuery {
            messages.append(.emptyQueryResponse)
            return messages
        }
        if let columns = result.columns {
            messages.append(.rowDescription(PGRowDescriptionField.fields(for: columns, formats: [])))
        }
        var cursor = PGResultCursor(result)
        messages.append(contentsOf: cursor.nextRows(limit: .max, formats: []).map(PGBackendMessage.dataRow))
        messages.append(.commandComplete(result.commandTag))
        messages.append(contentsOf: parameterStatusMessages(result))
        return messages
    }

    static func noticeMessages(_ result: PGStatementResult) -> [PGBackendMessage] {
        result.notices.map { .noticeResponse(PGErrorFields(PGSeverity.notice(for: $0.code), $0)) }
    }

    static func parameterStatusMessages(_ result: PGStatementResult) -> [PGBackendMessage] {
        result.parameterChanges.map { .parameterStatus(name: $0.0, value: $0.1) }
    }

    // MARK: - Helpers

    /// Moves to `closed` when `action` closes the connection.
    mutating func closed(with action: ConnectionAction) -> ConnectionAction {
        if action.effect == .close || action.effect == .rejectLogin { state = .closed }
        return action
    }

    mutating func enter(_ newState: State) {
        state = newState
    }
}
