import SluiceAuth
import SluiceCore
import Testing
@testable import SluicePGWire

@Suite struct ConnectionStateMachineTests {
    static let startup = PGStartupMessage(parameters: ["user": "root", "database": "dev", "application_name": "psql"])
    static let session = PGStartup(user: "root", database: "dev", parameters: startup.parameters, processID: 7)
    static let selectStatement = PGPreparedStatement(id: 1, sql: "select $1", parameterTypes: [.int32], resultColumns: [PGColumn(name: "n", type: .int32)])
    static let insertStatement = PGPreparedStatement(id: 2, sql: "insert", parameterTypes: [], resultColumns: nil)

    static func rows(_ values: [Int32]) -> PGStatementResult {
        PGStatementResult(
            commandTag: "SELECT \(values.count)", columns: [PGColumn(name: "n", type: .int32)],
            chunks: [Chunk(columns: [Column(type: .int32, values: values.map { .int32($0) })])]
        )
    }

    static func row(_ text: String?) -> PGBackendMessage { .dataRow(PGDataRow(fields: [text.map { Array($0.utf8) }])) }
    static let nDescription = PGBackendMessage.rowDescription([PGRowDescriptionField(PGColumn(name: "n", type: .int32), format: .text)])

    func readyMachine(_ authenticator: PGAuthenticator = .trust) -> ConnectionStateMachine {
        var machine = ConnectionStateMachine(configuration: .init(authenticator: authenticator), processID: 7, secretKey: 99)
        _ = machine.messageReceived(.startup(Self.startup))
        _ = machine.sessionStarted()
        return machine
    }

    func error(_ action: ConnectionAction) -> SluiceError? {
        for message in action.messages {
            if case .errorResponse(let fields) = message { return fields.error }
        }
        return nil
    }

    // MARK: Startup and authentication

    @Test func trustStartupSendsParametersKeyAndReady() {
        var machine = ConnectionStateMachine(configuration: .init(), processID: 7, secretKey: 99)
        #expect(machine.messageReceived(.sslRequest) == .send(.encryptionRefused))
        #expect(machine.messageReceived(.gssEncryptionRequest) == .send(.encryptionRefused))
        #expect(machine.messageReceived(.startup(Self.startup)) == ConnectionAction(messages: [.authentication(.ok)], effect: .startSession(Self.session)))
        #expect(machine.isAwaitingBackend)
        let action = machine.sessionStarted()
        #expect(action.messages.first == .parameterStatus(name: "server_version", value: "13.14.0"))
        #expect(action.messages.contains(.parameterStatus(name: "session_authorization", value: "root")))
        #expect(action.messages.contains(.parameterStatus(name: "application_name", value: "psql")))
        #expect(action.messages.contains(.parameterStatus(name: "DateStyle", value: "ISO, MDY")))
        #expect(action.messages.suffix(2) == [.backendKeyData(processID: 7, secretKey: 99), .readyForQuery(.idle)])
        guard case .ready = machine.state else { Issue.record("not ready: \(machine.state)"); return }
    }

    @Test func sslRequestStartsTLSOnceWhenTheServerHasACertificate() {
        var configuration = ConnectionStateMachine.Configuration()
        configuration.tls = PGTLS { throw SluiceError(.internalError, "not in this test") }
        var machine = ConnectionStateMachine(configuration: configuration, processID: 7, secretKey: 99)
        #expect(machine.messageReceived(.sslRequest) == ConnectionAction(messages: [.encryptionAccepted], effect: .startTLS))
        machine.tlsStarted()
        #expect(machine.isEncrypted)
        // A second SSLRequest inside TLS is refused, as Postgres does; GSS encryption always is.
        #expect(machine.messageReceived(.sslRequest) == .send(.encryptionRefused))
        #expect(machine.messageReceived(.gssEncryptionRequest) == .send(.encryptionRefused))
        #expect(machine.messageReceived(.startup(Self.startup)).effect == .startSession(Self.session))
    }

    @Test func aStartupWithoutTLSIsRefusedWhereTLSIsRequired() {
        var configuration = ConnectionStateMachine.Configuration()
        configuration.tls = PGTLS { throw SluiceError(.internalError, "not in this test") }
        configuration.tlsRequired = true
        var machine = ConnectionStateMachine(configuration: configuration, processID: 7, secretKey: 99)
        let action = machine.messageReceived(.startup(Self.startup))
        #expect(action.effect == .close)
        #expect(error(action)?.code == .invalidAuthorizationSpecification)
        #expect(error(action)?.message.hasSuffix("no encryption") == true)
        // Over TLS the same startup goes on.
        var encrypted = ConnectionStateMachine(configuration: configuration, processID: 7, secretKey: 99)
        _ = encrypted.messageReceived(.sslRequest)
        encrypted.tlsStarted()
        #expect(encrypted.messageReceived(.startup(Self.startup)).effect == .startSession(Self.session))
    }

    @Test func startupWithoutUserIsRejected() {
        var machine = ConnectionStateMachine(configuration: .init(), processID: 1, secretKey: 1)
        let action = machine.messageReceived(.startup(PGStartupMessage(parameters: [:])))
        #expect(action.effect == .close)
        #expect(error(action)?.code == .invalidAuthorizationSpecification)
    }

    @Test func databaseDefaultsToUserAndNewerMinorIsNegotiated() {
        var machine = ConnectionStateMachine(configuration: .init(), processID: 1, secretKey: 1)
        let action = machine.messageReceived(.startup(PGStartupMessage(protocolVersion: 196_610, parameters: ["user": "u", "_pq_.x": "1"])))
        #expect(action.messages == [.negotiateProtocolVersion(newestMinorVersion: 0, unrecognizedOptions: ["_pq_.x"]), .authentication(.ok)])
        #expect(action.effect == .startSession(PGStartup(user: "u", database: "u", parameters: ["user": "u"], processID: 1)))
    }

    @Test func sessionFailureIsFatal() {
        var machine = ConnectionStateMachine(configuration: .init(), processID: 1, secretKey: 1)
        _ = machine.messageReceived(.startup(Self.startup))
        let failure = SluiceError(.invalidCatalogName, "database \"dev\" does not exist")
        #expect(machine.sessionFailed(failure) == .fail(failure))
        guard case .closed = machine.state else { Issue.record("not closed"); return }
    }

    @Test func cleartextPassword() {
        var machine = ConnectionStateMachine(configuration: .init(authenticator: .cleartext(users: ["root": "pw"])), processID: 1, secretKey: 1)
        #expect(machine.messageReceived(.startup(Self.startup)) == .send(.authentication(.cleartextPassword)))
        // The password is checked (PBKDF2) off the event loop: the machine asks for it, and waits.
        guard case .checkPassword(let password, let verifier?) = machine.messageReceived(.authenticationResponse(Array("pw".utf8) + [0])).effect else {
            Issue.record("no password check asked for")
            return
        }
        #expect(password == "pw" && verifier.matches(password: "pw") && machine.isAwaitingBackend)
        #expect(machine.passwordChecked(true).effect == .startSession(PGStartup(user: "root", database: "dev", parameters: Self.startup.parameters, processID: 1)))

        var wrong = ConnectionStateMachine(configuration: .init(authenticator: .cleartext(users: ["root": "pw"])), processID: 1, secretKey: 1)
        _ = wrong.messageReceived(.startup(Self.startup))
        _ = wrong.messageReceived(.authenticationResponse(Array("nope".utf8) + [0]))
        #expect(wrong.passwordChecked(false) == .rejectLogin(SluiceError(.invalidPassword, "password authentication failed for user \"root\"")))
    }

    /// `auto`: a role without a password is trusted, a role with one goes through SCRAM.
    @Test func autoAsksOnlyRolesThatHaveAPassword() {
        struct Directory: UserDirectory {
            func login(_ user: String) -> UserLogin {
                user == "root" ? .allowed(verifier: nil, superuser: true) : .allowed(verifier: SCRAMVerifier(password: "pw", salt: [1, 2, 3]), superuser: false)
            }
        }
        let configuration = ConnectionStateMachine.Configuration(authenticator: PGAuthenticator(method: .auto, users: Directory()))
        var root = ConnectionStateMachine(configuration: configuration, processID: 1, secretKey: 1)
        var started = PGStartup(user: "root", database: "dev", parameters: Self.startup.parameters, processID: 1)
        started.superuser = true
        #expect(root.messageReceived(.startup(Self.startup)).effect == .startSession(started))
        var alice = ConnectionStateMachine(configuration: configuration, processID: 1, secretKey: 1)
        #expect(alice.messageReceived(.startup(PGStartupMessage(parameters: ["user": "alice", "database": "dev"])))
            == .send(.authentication(.sasl(mechanisms: ["SCRAM-SHA-256"]))))
    }

    /// A directory of one role that may log in without a password, one with NOLOGIN.
    struct Roles: UserDirectory {
        func login(_ user: String) -> UserLogin {
            switch user {
            case "root": .allowed(verifier: nil, superuser: true)
            case "reader": .notPermitted
            default: .unknown
            }
        }
    }

    @Test func unknownAndNoLoginRolesAreRefusedAtStartup() {
        for method in PGAuthMethod.allCases {
            let configuration = ConnectionStateMachine.Configuration(authenticator: PGAuthenticator(method: method, users: Roles()))
            var unknown = ConnectionStateMachine(configuration: configuration, processID: 1, secretKey: 1)
            #expect(unknown.messageReceived(.startup(PGStartupMessage(parameters: ["user": "mallory"])))
                == .rejectLogin(SluiceError(.invalidAuthorizationSpecification, "role \"mallory\" does not exist")))
            guard case .closed = unknown.state else { Issue.record("not closed"); return }
            var reader = ConnectionStateMachine(configuration: configuration, processID: 1, secretKey: 1)
            #expect(reader.messageReceived(.startup(PGStartupMessage(parameters: ["user": "reader"])))
                == .rejectLogin(SluiceError(.invalidAuthorizationSpecification, "role \"reader\" is not permitted to log in")))
        }
        // A role without a password gets in by trust only; by password it fails as a wrong one.
        var trusted = ConnectionStateMachine(configuration: .init(authenticator: PGAuthenticator(method: .trust, users: Roles())), processID: 1, secretKey: 1)
        var started = PGStartup(user: "root", database: "dev", parameters: Self.startup.parameters, processID: 1)
        started.superuser = true
        #expect(trusted.messageReceived(.startup(Self.startup)).effect == .startSession(started))
        var password = ConnectionStateMachine(configuration: .init(authenticator: PGAuthenticator(method: .password, users: Roles())), processID: 1, secretKey: 1)
        _ = password.messageReceived(.startup(Self.startup))
        #expect(password.messageReceived(.authenticationResponse(Array("".utf8) + [0])).effect == .checkPassword("", nil))
        #expect(password.passwordChecked(false).effect == .rejectLogin)
    }

    @Test func queryDuringAuthenticationIsAProtocolViolation() {
        var machine = ConnectionStateMachine(configuration: .init(authenticator: .cleartext(users: ["root": "pw"])), processID: 1, secretKey: 1)
        _ = machine.messageReceived(.startup(Self.startup))
        let action = machine.messageReceived(.query("select 1"))
        #expect(action.effect == .close)
        #expect(error(action)?.code == .protocolViolation)
    }

    @Test func scramExchangeThroughTheMachine() {
        let verifier = SCRAMVerifier(password: "pencil", salt: Base64.decode("W22ZaJ0SNY7soEsUEjb6gQ==")!, iterations: 4096)
        var machine = ConnectionStateMachine(
            configuration: .init(authenticator: .scramSHA256(verifiers: ["root": verifier]), makeNonce: { "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0" }),
            processID: 1, secretKey: 1
        )
        #expect(machine.messageReceived(.startup(Self.startup)) == .send(.authentication(.sasl(mechanisms: ["SCRAM-SHA-256"]))))
        let clientFirst = Array(RFC7677.clientFirst.utf8)
        let initial = Array("SCRAM-SHA-256".utf8) + [0] + FrontendBytes.int32(Int32(clientFirst.count)) + clientFirst
        #expect(machine.messageReceived(.authenticationResponse(initial)) == .send(.authentication(.saslContinue(Array(RFC7677.serverFirst.utf8)))))
        let final = machine.messageReceived(.authenticationResponse(Array(RFC7677.clientFinal.utf8)))
        #expect(final.messages == [.authentication(.saslFinal(Array(RFC7677.serverFinal.utf8))), .authentication(.ok)])
    }

    @Test func cancelRequestClosesWithoutReply() {
        var machine = ConnectionStateMachine(configuration: .init(), processID: 1, secretKey: 1)
        #expect(machine.messageReceived(.cancelRequest(processID: 5, secretKey: 6)) == ConnectionAction(effect: .cancel(processID: 5, secretKey: 6)))
        guard case .closed = machine.state else { Issue.record("not closed"); return }
    }

    // MARK: Simple query

    @Test func simpleQueryRunsEachStatementThenOneReadyForQuery() {
        var machine = readyMachine()
        let first = PGPreparedStatement(id: 1, sql: "select 1", resultColumns: [PGColumn(name: "n", type: .int32)])
        #expect(machine.messageReceived(.query("select 1; insert")) == ConnectionAction(effect: .prepare("select 1; insert", parameterTypes: [])))
        #expect(machine.prepareSucceeded([first, Self.insertStatement]) == ConnectionAction(effect: .execute(first, parameters: [])))
        #expect(machine.executeSucceeded(Self.rows([1, 2])) == ConnectionAction(
            messages: [Self.nDescription, Self.row("1"), Self.row("2"), .commandComplete("SELECT 2")],
            effect: .execute(Self.insertStatement, parameters: [])
        ))
        var inserted = PGStatementResult(commandTag: "INSERT 0 3", notices: [SluiceError(.warning, "careful")], parameterChanges: [("TimeZone", "Europe/Paris")])
        inserted.columns = nil
        machine.transactionStatus = .inBlock
        #expect(machine.executeSucceeded(inserted) == ConnectionAction(
            messages: [
                .noticeResponse(PGErrorFields(.warning, SluiceError(.warning, "careful"))), .commandComplete("INSERT 0 3"),
                .parameterStatus(name: "TimeZone", value: "Europe/Paris"), .readyForQuery(.inBlock),
            ],
            closedStatements: [first, Self.insertStatement]
        ))
        #expect(!machine.isAwaitingBackend)
    }

    @Test func simpleQueryErrorStopsTheRest() {
        var machine = readyMachine()
        _ = machine.messageReceived(.query("a; b"))
        let a = PGPreparedStatement(id: 1, sql: "a")
        _ = machine.prepareSucceeded([a, PGPreparedStatement(id: 2, sql: "b")])
        let failure = SluiceError(.divisionByZero, "division by zero")
        let action = machine.executeFailed(failure)
        #expect(action.messages == [.errorResponse(PGErrorFields(.error, failure)), .readyForQuery(.idle)])
        #expect(action.effect == .readNextMessage)
    }

    @Test func emptySimpleQuery() {
        var machine = readyMachine()
        _ = machine.messageReceived(.query(";"))
        #expect(machine.prepareSucceeded([]) == .send(.emptyQueryResponse, .readyForQuery(.idle)))
    }

    @Test func syntaxErrorInSimpleQuery() {
        var machine = readyMachine()
        _ = machine.messageReceived(.query("selec 1"))
        let failure = SluiceError(.syntaxError, "syntax error at or near \"selec\"", position: 1)
        #expect(machine.prepareFailed(failure) == .send(.errorResponse(PGErrorFields(.error, failure)), .readyForQuery(.idle)))
    }

    // MARK: Extended query

    @Test func extendedQueryWithRowLimitAndSuspension() {
        var machine = readyMachine()
        #expect(machine.messageReceived(.parse(PGParse(statementName: "s1", query: "select $1", parameterOIDs: [23])))
            == ConnectionAction(effect: .prepare("select $1", parameterTypes: [.int32])))
        #expect(machine.prepareSucceeded([Self.selectStatement]) == .send(.parseComplete))
        #expect(machine.messageReceived(.describe(.statement("s1"))) == .send(.parameterDescription([23]), Self.nDescription))
        #expect(machine.messageReceived(.bind(PGBind(portalName: "p", statementName: "s1", parameters: [Array("5".utf8)]))) == .send(.bindComplete))
        #expect(machine.messageReceived(.describe(.portal("p"))) == .send(Self.nDescription))
        #expect(machine.messageReceived(.execute(PGExecute(portalName: "p", maxRows: 2)))
            == ConnectionAction(effect: .execute(Self.selectStatement, parameters: [.int32(5)])))
        #expect(machine.executeSucceeded(Self.rows([1, 2, 3])) == .send(Self.row("1"), Self.row("2"), .portalSuspended))
        #expect(machine.messageReceived(.execute(PGExecute(portalName: "p", maxRows: 2))) == .send(Self.row("3"), .commandComplete("SELECT 1")))
        #expect(machine.messageReceived(.sync) == .send(.readyForQuery(.idle)))
        // Portals end with the implicit transaction at Sync.
        #expect(error(machine.messageReceived(.execute(PGExecute(portalName: "p"))))?.code == .invalidCursorName)
    }

    /// A result of `first` held rows and a stream of `streamed` chunks of one row each.
    static func streamed(_ first: [Int32], _ streamed: [Int32]) -> (PGStatementResult, PGRowStream) {
        var result = rows(first)
        result.commandTag = "SELECT 0"
        var left = streamed[...]
        let stream = PGRowStream { () throws(SluiceError) -> Chunk? in
            guard let value = left.popFirst() else { return nil }
            return Chunk(columns: [Column(type: .int32, values: [.int32(value)])])
        }
        result.stream = stream
        return (result, stream)
    }

    static let selectN = PGPreparedStatement(id: 3, sql: "select n", parameterTypes: [], resultColumns: [PGColumn(name: "n", type: .int32)])

    @Test func aStreamedResultOfASimpleQueryIsPulledChunkByChunkAndCounted() {
        var machine = readyMachine()
        _ = machine.messageReceived(.query("select n; insert"))
        _ = machine.prepareSucceeded([Self.selectN, Self.insertStatement])
        let (result, stream) = Self.streamed([1], [2, 3])
        #expect(machine.executeSucceeded(result) == ConnectionAction(messages: [Self.nDescription, Self.row("1")], effect: .pullRows(stream)))
        #expect(machine.isAwaitingBackend)
        #expect(machine.rowsPulled(try! stream.next()) == ConnectionAction(messages: [Self.row("2")], effect: .pullRows(stream)))
        #expect(machine.rowsPulled(try! stream.next()) == ConnectionAction(messages: [Self.row("3")], effect: .pullRows(stream)))
        // The end: the tag counts every row sent; the next statement runs.
        #expect(machine.rowsPulled(try! stream.next())
            == ConnectionAction(messages: [.commandComplete("SELECT 3")], effect: .execute(Self.insertStatement, parameters: [])))
    }

    @Test func aStreamFailingPartWaySendsItsRowsThenTheError() {
        var machine = readyMachine()
        _ = machine.messageReceived(.query("select n"))
        _ = machine.prepareSucceeded([Self.selectN])
        let (result, stream) = Self.streamed([1], [2])
        _ = machine.executeSucceeded(result)
        let failure = SluiceError(.queryCanceled, "canceling statement due to statement timeout")
        #expect(machine.rowsFailed(failure).messages == [.errorResponse(PGErrorFields(.error, failure)), .readyForQuery(.idle)])
        #expect(!machine.isAwaitingBackend)
        _ = stream
    }

    @Test func aStreamedPortalSuspendsAtItsRowLimitWithoutPullingFurther() {
        var machine = readyMachine()
        _ = machine.messageReceived(.parse(PGParse(statementName: "", query: "select $1", parameterOIDs: [23])))
        _ = machine.prepareSucceeded([Self.selectStatement])
        _ = machine.messageReceived(.bind(PGBind(portalName: "p", statementName: "", parameters: [Array("5".utf8)])))
        _ = machine.messageReceived(.execute(PGExecute(portalName: "p", maxRows: 2)))
        let (result, stream) = Self.streamed([1], [2, 3, 4])
        #expect(machine.executeSucceeded(result) == ConnectionAction(messages: [Self.row("1")], effect: .pullRows(stream)))
        // The second row fills the batch: suspended, the stream not asked again.
        #expect(machine.rowsPulled(try! stream.next()) == .send(Self.row("2"), .portalSuspended))
        #expect(machine.messageReceived(.execute(PGExecute(portalName: "p", maxRows: 5))) == ConnectionAction(effect: .pullRows(stream)))
        #expect(machine.rowsPulled(try! stream.next()) == ConnectionAction(messages: [Self.row("3")], effect: .pullRows(stream)))
        #expect(machine.rowsPulled(try! stream.next()) == ConnectionAction(messages: [Self.row("4")], effect: .pullRows(stream)))
        // A portal fetched in parts reports its last part's rows.
        #expect(machine.rowsPulled(try! stream.next()) == .send(.commandComplete("SELECT 2")))
        #expect(machine.messageReceived(.sync) == .send(.readyForQuery(.idle)))
    }

    @Test func binaryParametersAndResults() {
        var machine = readyMachine()
        _ = machine.messageReceived(.parse(PGParse(statementName: "", query: "select $1")))
        _ = machine.prepareSucceeded([Self.selectStatement])
        #expect(machine.messageReceived(.bind(PGBind(portalName: "", statementName: "", parameterFormats: [.binary], parameters: [[0, 0, 1, 0]], resultFormats: [.binary]))) == .send(.bindComplete))
        #expect(machine.messageReceived(.describe(.portal(""))) == .send(.rowDescription([PGRowDescriptionField(PGColumn(name: "n", type: .int32), format: .binary)])))
        #expect(machine.messageReceived(.execute(PGExecute(portalName: ""))).effect == .execute(Self.selectStatement, parameters: [.int32(256)]))
        #expect(machine.executeSucceeded(Self.rows([7])) == .send(.dataRow(PGDataRow(fields: [[0, 0, 0, 7]])), .commandComplete("SELECT 1")))
    }

    @Test func errorsDiscardMessagesUntilSync() {
        var machine = readyMachine()
        let action = machine.messageReceived(.bind(PGBind(portalName: "", statementName: "nope")))
        #expect(action == .send(.errorResponse(PGErrorFields(.error, SluiceError(.invalidSQLStatementName, "prepared statement \"nope\" does not exist")))))
        #expect(machine.messageReceived(.parse(PGParse(statementName: "", query: "x"))) == ConnectionAction())
        #expect(machine.messageReceived(.execute(PGExecute(portalName: ""))) == ConnectionAction())
        #expect(machine.messageReceived(.query("select 1")) == ConnectionAction())
        #expect(machine.messageReceived(.sync) == .send(.readyForQuery(.idle)))
        #expect(machine.messageReceived(.query("select 1")).effect == .prepare("select 1", parameterTypes: []))
    }

    @Test func wrongParameterCount() {
        var machine = readyMachine()
        _ = machine.messageReceived(.parse(PGParse(statementName: "s1", query: "select $1, $2")))
        var statement = Self.selectStatement
        statement.parameterTypes = [.int32, .int32]
        _ = machine.prepareSucceeded([statement])
        let action = machine.messageReceived(.bind(PGBind(portalName: "", statementName: "s1", parameters: [Array("1".utf8)])))
        #expect(error(action) == SluiceError(.protocolViolation, "bind message supplies 1 parameters, but prepared statement \"s1\" requires 2"))
    }

    @Test func badParameterTextIsReported() {
        var machine = readyMachine()
        _ = machine.messageReceived(.parse(PGParse(statementName: "", query: "select $1")))
        _ = machine.prepareSucceeded([Self.selectStatement])
        #expect(error(machine.messageReceived(.bind(PGBind(portalName: "", statementName: "", parameters: [Array("x".utf8)]))))?.code == .invalidTextRepresentation)
    }

    @Test func parseOfSeveralStatementsFails() {
        var machine = readyMachine()
        _ = machine.messageReceived(.parse(PGParse(statementName: "", query: "a; b")))
        let a = PGPreparedStatement(id: 1, sql: "a"), b = PGPreparedStatement(id: 2, sql: "b")
        let action = machine.prepareSucceeded([a, b])
        #expect(error(action) == SluiceError(.syntaxError, "cannot insert multiple commands into a prepared statement"))
        #expect(action.closedStatements == [a, b])
    }

    @Test func duplicateNamesAndUnknownPortals() {
        var machine = readyMachine()
        _ = machine.messageReceived(.parse(PGParse(statementName: "s1", query: "insert")))
        _ = machine.prepareSucceeded([Self.insertStatement])
        #expect(error(machine.messageReceived(.parse(PGParse(statementName: "s1", query: "insert"))))?.code == SQLState("42P05"))
        _ = machine.messageReceived(.sync)
        #expect(error(machine.messageReceived(.describe(.portal("zz")))) == SluiceError(.invalidCursorName, "portal \"zz\" does not exist"))
        _ = machine.messageReceived(.sync)
        #expect(machine.messageReceived(.describe(.statement("s1"))) == .send(.parameterDescription([]), .noData))
    }

    @Test func unnamedStatementIsReplacedAndClosedStatementsReachTheSession() {
        var machine = readyMachine()
        _ = machine.messageReceived(.parse(PGParse(statementName: "", query: "insert")))
        _ = machine.prepareSucceeded([Self.insertStatement])
        _ = machine.messageReceived(.parse(PGParse(statementName: "", query: "select $1")))
        #expect(machine.prepareSucceeded([Self.selectStatement]) == ConnectionAction(messages: [.parseComplete], closedStatements: [Self.insertStatement]))
        #expect(machine.messageReceived(.close(.statement(""))) == ConnectionAction(messages: [.closeComplete], closedStatements: [Self.selectStatement]))
        #expect(machine.messageReceived(.close(.statement("never"))) == .send(.closeComplete))
        #expect(machine.messageReceived(.close(.portal("never"))) == .send(.closeComplete))
    }

    @Test func emptyParsedStatementExecutesAsEmptyQuery() {
        var machine = readyMachine()
        _ = machine.messageReceived(.parse(PGParse(statementName: "", query: "")))
        #expect(machine.prepareSucceeded([]) == .send(.parseComplete))
        _ = machine.messageReceived(.bind(PGBind(portalName: "", statementName: "")))
        #expect(machine.messageReceived(.describe(.portal(""))) == .send(.noData))
        #expect(machine.messageReceived(.execute(PGExecute(portalName: ""))) == .send(.emptyQueryResponse))
    }

    @Test func terminateAndDecodingFailureClose() {
        var machine = readyMachine()
        #expect(machine.messageReceived(.terminate) == ConnectionAction(effect: .close))
        var other = readyMachine()
        let failure = SluiceError(.protocolViolation, "invalid frontend message type 90")
        #expect(other.decodingFailed(failure) == .fail(failure))
        #expect(other.messageReceived(.sync) == ConnectionAction(effect: .close))
    }

    @Test func outcomesAfterCloseAreIgnored() {
        var machine = readyMachine()
        _ = machine.messageReceived(.query("select 1"))
        machine.connectionClosed()
        #expect(machine.prepareSucceeded([Self.insertStatement]) == ConnectionAction(closedStatements: [Self.insertStatement], effect: .close))
    }
}

/// RFC 7677, section 3: the SCRAM-SHA-256 example exchange (user "user", password "pencil"),
/// whose messages the state machine must pass through unchanged.
enum RFC7677 {
    static let clientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    static let serverFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    static let clientFinal = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
    static let serverFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
}
