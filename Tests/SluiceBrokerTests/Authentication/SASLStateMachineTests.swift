import SluiceAuth
import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

@Suite struct SASLStateMachineTests {
    static let users = FixedUserDirectory(
        verifiers: [
            "alice": SCRAMVerifier(password: "alice-secret", salt: Array("alice-salt".utf8)),
            "admin": SCRAMVerifier(password: "admin-secret", salt: Array("admin-salt".utf8)),
        ],
        superusers: ["admin"])

    func machine(_ requirement: BrokerAuthentication.Requirement, mechanisms: [SASLMechanism] = SASLMechanism.allCases) -> SASLStateMachine {
        SASLStateMachine(requirement: requirement, mechanisms: mechanisms, users: Self.users, makeNonce: { "server-nonce" })
    }

    static func plain(_ user: String, _ password: String, authorizationID: String = "") -> [UInt8] {
        Array(authorizationID.utf8) + [0] + Array(user.utf8) + [0] + Array(password.utf8)
    }

    @Test func requiredAuthenticationAdmitsOnlyApiVersionsAndSaslHandshakeFirst() {
        let machine = machine(.required)
        #expect(machine.principal == nil)
        #expect(machine.admits(.apiVersions))
        #expect(machine.admits(.saslHandshake))
        for api in [KafkaAPI.produce, .fetch, .metadata, .saslAuthenticate, .createAcls] { #expect(!machine.admits(api), "\(api.name)") }
        #expect(!machine.admits(nil))
    }

    @Test func optionalAuthenticationServesEverythingAsAnonymous() {
        let machine = machine(.optional)
        #expect(machine.principal == .anonymous)
        #expect(machine.admits(.produce))
        #expect(machine.admits(.metadata))
        // A token needs a handshake first, in either mode.
        #expect(!machine.admits(.saslAuthenticate))
    }

    @Test func plainLogsInAndKeepsTheSuperuserFlag() {
        var machine = machine(.required)
        #expect(machine.handshakeReceived(mechanism: "PLAIN", version: 1) == .init(errorCode: .noError, closesConnection: false))
        #expect(machine.admits(.saslAuthenticate))
        #expect(!machine.admits(.metadata))
        #expect(!machine.admits(.apiVersions))
        #expect(machine.tokenReceived(Self.plain("admin", "admin-secret")) == .authenticated([], KafkaPrincipal(user: "admin", isSuperuser: true)))
        #expect(machine.principal == KafkaPrincipal(user: "admin", isSuperuser: true))
        #expect(machine.admits(.produce))

        var alice = self.machine(.required)
        _ = alice.handshakeReceived(mechanism: "PLAIN", version: 1)
        #expect(alice.tokenReceived(Self.plain("alice", "alice-secret", authorizationID: "alice")) == .authenticated([], KafkaPrincipal(user: "alice")))
        #expect(alice.principal?.isTrusted == false)
    }

    @Test(arguments: [
        (SASLStateMachineTests.plain("alice", "wrong"), "Authentication failed: Invalid username or password"),
        (SASLStateMachineTests.plain("mallory", "alice-secret"), "Authentication failed: Invalid username or password"),
        (SASLStateMachineTests.plain("", "x"), "Authentication failed: username not specified"),
        (SASLStateMachineTests.plain("alice", ""), "Authentication failed: password not specified"),
        (SASLStateMachineTests.plain("alice", "alice-secret", authorizationID: "admin"), "Authentication failed: Client requested an authorization id that is different from username"),
        (Array("alice".utf8), "Invalid SASL/PLAIN response: expected 3 tokens, got 1"),
    ])
    func plainRefusals(token: [UInt8], message: String) {
        var machine = machine(.optional)
        _ = machine.handshakeReceived(mechanism: "PLAIN", version: 1)
        #expect(machine.tokenReceived(token) == .failed(message))
        #expect(machine.principal == nil)
        #expect(!machine.admits(.apiVersions))
    }

    @Test func scramLogsInTheUserTheClientNames() throws {
        var machine = machine(.required)
        _ = machine.handshakeReceived(mechanism: "SCRAM-SHA-256", version: 1)
        let client = SCRAMClient(user: "alice", password: "alice-secret")
        guard case .challenge(let serverFirst) = machine.tokenReceived(client.clientFirst) else {
            Issue.record("no server-first-message")
            return
        }
        #expect(String(decoding: serverFirst, as: UTF8.self).hasPrefix("r=\(client.clientNonce)server-nonce,s="))
        let (final, signature) = try client.clientFinal(serverFirst: String(decoding: serverFirst, as: UTF8.self))
        #expect(machine.tokenReceived(final) == .authenticated(Array("v=\(signature)".utf8), KafkaPrincipal(user: "alice")))
    }

    @Test(arguments: [("alice", "wrong"), ("mallory", "alice-secret")])
    func scramRefusesWrongPasswordsAndUnknownUsersAlike(user: String, password: String) throws {
        var machine = machine(.required)
        _ = machine.handshakeReceived(mechanism: "SCRAM-SHA-256", version: 1)
        let client = SCRAMClient(user: user, password: password)
        guard case .challenge(let serverFirst) = machine.tokenReceived(client.clientFirst) else {
            Issue.record("no server-first-message")
            return
        }
        let (final, _) = try client.clientFinal(serverFirst: String(decoding: serverFirst, as: UTF8.self))
        #expect(machine.tokenReceived(final) == .failed(
            "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"))
    }

    @Test func delegationTokensAreRefused() {
        var machine = machine(.required)
        _ = machine.handshakeReceived(mechanism: "SCRAM-SHA-256", version: 1)
        guard case .failed = machine.tokenReceived(Array("n,,n=alice,r=abc,tokenauth=true".utf8)) else {
            Issue.record("tokenauth=true was accepted")
            return
        }
    }

    @Test func unsupportedOrDisabledMechanismsCloseAfterTheAnswer() {
        var unknown = machine(.optional)
        #expect(unknown.handshakeReceived(mechanism: "GSSAPI", version: 1) == .init(errorCode: .unsupportedSaslMechanism, closesConnection: true))
        #expect(!unknown.admits(.metadata))
        var disabled = machine(.optional, mechanisms: [.scramSHA256])
        #expect(disabled.handshakeReceived(mechanism: "PLAIN", version: 1).errorCode == .unsupportedSaslMechanism)
    }

    @Test func saslAfterAuthenticationIsAnIllegalStateThatKeepsTheConnection() {
        var machine = machine(.required)
        _ = machine.handshakeReceived(mechanism: "PLAIN", version: 1)
        _ = machine.tokenReceived(Self.plain("alice", "alice-secret"))
        #expect(machine.handshakeReceived(mechanism: "PLAIN", version: 1) == .init(errorCode: .illegalSaslState, closesConnection: false))
        #expect(machine.tokenReceived(Self.plain("alice", "alice-secret")) == .illegalState("SaslAuthenticate request received after successful authentication"))
        #expect(machine.principal == KafkaPrincipal(user: "alice"))
    }

    @Test func handshakeV0SwitchesToBareTokens() {
        var machine = machine(.required)
        _ = machine.handshakeReceived(mechanism: "PLAIN", version: 0)
        #expect(machine.expectsRawTokens)
        #expect(!machine.admits(.saslAuthenticate))
        #expect(machine.tokenReceived(Self.plain("alice", "alice-secret")) == .authenticated([], KafkaPrincipal(user: "alice")))
        #expect(!machine.expectsRawTokens)
    }
}
