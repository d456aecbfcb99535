import NIOCore
import SluiceAuth
import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

/// SASL through a connection's real pipeline on an embedded channel.
@Suite struct BrokerAuthenticationTests {
    static let users = FixedUserDirectory(
        verifiers: [
            "alice": SCRAMVerifier(password: "alice-secret", salt: Array("alice-salt".utf8)),
            "admin": SCRAMVerifier(password: "admin-secret", salt: Array("admin-salt".utf8)),
        ],
        superusers: ["admin"])

    func broker(
        loopback: BrokerAuthentication.Requirement = .required, other: BrokerAuthentication.Requirement = .required
    ) throws -> TemporaryBroker {
        let broker = try TemporaryBroker { configuration in
            configuration.authentication = BrokerAuthentication(loopback: loopback, other: other, users: Self.users)
        }
        try broker.broker.topics.create("orders", partitions: 1)
        return broker
    }

    @Test func apiVersionsListsTheSaslAndAclAPIs() throws {
        let broker = try broker()
        defer { broker.remove() }
        let client = try EmbeddedKafkaClient(broker.broker)
        let keys = Set(try client.call(ApiVersionsRequest(), version: 3).apiKeys.map(\.apiKey))
        #expect(keys.isSuperset(of: [17, 29, 30, 31, 36]))
        #expect(client.isOpen)
    }

    @Test func requiredAuthenticationClosesOnAProduceBeforeLogin() throws {
        let broker = try broker()
        defer { broker.remove() }
        let client = try EmbeddedKafkaClient(broker.broker)
        try client.send(Requests.produce("orders"), version: 9)
        #expect(try client.response(to: ProduceRequest.self, version: 9) == nil)
        #expect(!client.isOpen)
        #expect(broker.broker.topics.log("orders", 0)?.logEndOffset == 0)
        // Metadata too, and a SaslAuthenticate without a handshake.
        let metadata = try EmbeddedKafkaClient(broker.broker)
        try metadata.send(Requests.metadata(nil), version: 12)
        #expect(!metadata.isOpen)
        let early = try EmbeddedKafkaClient(broker.broker)
        try early.send(SaslAuthenticateRequest(authBytes: ByteBuffer(string: "x")), version: 2)
        #expect(!early.isOpen)
    }

    /// Before a required login a frame may hold at most 512 KiB (Kafka's
    /// `sasl.server.max.receive.size`); after it, the configured `socket.request.max.bytes`.
    @Test func framesBeforeLoginAreSmall() throws {
        let broker = try broker()
        defer { broker.remove() }
        let stranger = try EmbeddedKafkaClient(broker.broker)
        var announced = ByteBuffer()
        announced.writeInteger(Int32(1 << 20))
        // The decoder refuses the size at once, and the connection closes, holding nothing.
        _ = try? stranger.channel.writeInbound(announced)
        #expect(!stranger.isOpen)
        let client = try EmbeddedKafkaClient(broker.broker)
        _ = try client.call(SaslHandshakeRequest(mechanism: "PLAIN"), version: 1)
        #expect(try client.authenticatePlainAfterHandshake(user: "admin", password: "admin-secret") == SaslAuthenticateResponse())
        try client.channel.writeInbound(announced)
        #expect(client.isOpen)
    }

    @Test func plainLoginThenRequestsAreServed() throws {
        let broker = try broker()
        defer { broker.remove() }
        let client = try EmbeddedKafkaClient(broker.broker)
        let handshake = try client.call(SaslHandshakeRequest(mechanism: "PLAIN"), version: 1)
        #expect(handshake == SaslHandshakeResponse(mechanisms: ["PLAIN", "SCRAM-SHA-256"]))
        let login = try client.authenticatePlainAfterHandshake(user: "admin", password: "admin-secret")
        #expect(login == SaslAuthenticateResponse())
        #expect(try client.call(Requests.produce("orders"), version: 9).firstErrorCode == 0)
        #expect(broker.broker.failedLogins == 0)
        // A second handshake is an illegal state, answered without closing.
        #expect(try client.call(SaslHandshakeRequest(mechanism: "PLAIN"), version: 1).errorCode == KafkaErrorCode.illegalSaslState.rawValue)
        #expect(client.isOpen)
    }

    @Test func failedLoginIsDelayedCountedAndClosesTheConnection() throws {
        let broker = try broker()
        defer { broker.remove() }
        let client = try EmbeddedKafkaClient(broker.broker)
        _ = try client.call(SaslHandshakeRequest(mechanism: "PLAIN"), version: 1)
        try client.send(SaslAuthenticateRequest(authBytes: ByteBuffer(bytes: [0] + Array("alice".utf8) + [0] + Array("wrong".utf8))), version: 1)
        #expect(try client.response(to: SaslAuthenticateRequest.self, version: 1) == nil)
        #expect(broker.broker.failedLogins == 1)
        client.loop.advanceTime(by: .milliseconds(249))
        #expect(try client.response(to: SaslAuthenticateRequest.self, version: 1) == nil)
        #expect(client.isOpen)
        client.loop.advanceTime(by: .milliseconds(1))
        let answer = try #require(try client.response(to: SaslAuthenticateRequest.self, version: 1))
        #expect(answer.errorCode == KafkaErrorCode.saslAuthenticationFailed.rawValue)
        #expect(answer.errorMessage == "Authentication failed: Invalid username or password")
        #expect(!client.isOpen)
    }

    @Test func scramLoginsAndRefusals() throws {
        let broker = try broker()
        defer { broker.remove() }
        let alice = try EmbeddedKafkaClient(broker.broker)
        #expect(try alice.authenticateSCRAM(user: "alice", password: "alice-secret").errorCode == 0)
        #expect(alice.isOpen)
        let mallory = try EmbeddedKafkaClient(broker.broker)
        let refused = try mallory.authenticateSCRAM(user: "mallory", password: "alice-secret")
        #expect(refused.errorCode == KafkaErrorCode.saslAuthenticationFailed.rawValue)
        #expect(refused.errorMessage == "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256")
        #expect(!mallory.isOpen)
        let wrong = try EmbeddedKafkaClient(broker.broker)
        #expect(try wrong.authenticateSCRAM(user: "alice", password: "nope").errorCode == KafkaErrorCode.saslAuthenticationFailed.rawValue)
        #expect(broker.broker.failedLogins == 2)
    }

    @Test func unsupportedMechanismIsAnsweredThenTheConnectionCloses() throws {
        let broker = try broker()
        defer { broker.remove() }
        let client = try EmbeddedKafkaClient(broker.broker)
        let answer = try client.call(SaslHandshakeRequest(mechanism: "SCRAM-SHA-512"), version: 1)
        #expect(answer == SaslHandshakeResponse(errorCode: KafkaErrorCode.unsupportedSaslMechanism.rawValue, mechanisms: ["PLAIN", "SCRAM-SHA-256"]))
        #expect(!client.isOpen)
        #expect(broker.broker.failedLogins == 0)
    }

    @Test func optionalAuthenticationLeavesUnauthenticatedClientsAsTheyWere() throws {
        let broker = try broker(loopback: .optional, other: .optional)
        defer { broker.remove() }
        let client = try EmbeddedKafkaClient(broker.broker)
        #expect(try client.call(Requests.produce("orders"), version: 9).firstErrorCode == 0)
        #expect(try client.call(Requests.metadata(nil), version: 12).topics.map(\.name) == ["orders"])
        #expect(try client.call(Requests.metadata(["fresh"], autoCreate: true), version: 12).topics[0].errorCode == 0)
        #expect(try client.call(Requests.fetch("orders"), version: 12).firstErrorCode == 0)
        // A client that does authenticate runs as its user.
        let alice = try EmbeddedKafkaClient(broker.broker)
        #expect(try alice.authenticatePlain(user: "alice", password: "alice-secret").errorCode == 0)
        #expect(try alice.call(Requests.produce("orders"), version: 9).firstErrorCode == KafkaErrorCode.topicAuthorizationFailed.rawValue)
    }

    @Test func loopbackAndOtherAddressesFollowTheirOwnRules() throws {
        let broker = try broker(loopback: .optional, other: .required)
        defer { broker.remove() }
        let local = try EmbeddedKafkaClient(broker.broker, from: "127.0.0.1")
        #expect(try local.call(Requests.metadata(["orders"]), version: 12).topics[0].errorCode == 0)
        let remote = try EmbeddedKafkaClient(broker.broker, from: "192.0.2.7")
        try remote.send(Requests.metadata(["orders"]), version: 12)
        #expect(!remote.isOpen)
        let mapped = try EmbeddedKafkaClient(broker.broker, from: "::ffff:127.0.0.1")
        #expect(try mapped.call(Requests.metadata(["orders"]), version: 12).topics[0].errorCode == 0)
    }

    @Test func handshakeV0TakesBareTokens() throws {
        let broker = try broker()
        defer { broker.remove() }
        let client = try EmbeddedKafkaClient(broker.broker)
        #expect(try client.call(SaslHandshakeRequest(mechanism: "PLAIN"), version: 0).errorCode == 0)
        try client.sendRaw([0] + Array("admin".utf8) + [0] + Array("admin-secret".utf8))
        #expect(try client.rawResponse() == [])
        #expect(try client.call(Requests.metadata(["orders"]), version: 12).topics[0].errorCode == 0)

        // A failure has no answer: the connection closes after the delay.
        let wrong = try EmbeddedKafkaClient(broker.broker)
        _ = try wrong.call(SaslHandshakeRequest(mechanism: "SCRAM-SHA-256"), version: 0)
        let scram = SCRAMClient(user: "alice", password: "nope")
        try wrong.sendRaw(scram.clientFirst)
        let serverFirst = String(decoding: try #require(try wrong.rawResponse()), as: UTF8.self)
        try wrong.sendRaw(try scram.clientFinal(serverFirst: serverFirst).0)
        #expect(wrong.isOpen)
        wrong.loop.advanceTime(by: .milliseconds(250))
        #expect(try wrong.rawResponse() == nil)
        #expect(!wrong.isOpen)
    }

    @Test func usersSetAfterStartAreUsedForTheNextLogin() throws {
        let broker = try TemporaryBroker { configuration in
            configuration.authentication = BrokerAuthentication(loopback: .required, other: .required)
        }
        defer { broker.remove() }
        let before = try EmbeddedKafkaClient(broker.broker)
        #expect(try before.authenticatePlain(user: "alice", password: "alice-secret").errorCode == KafkaErrorCode.saslAuthenticationFailed.rawValue)
        broker.broker.users = Self.users
        let after = try EmbeddedKafkaClient(broker.broker)
        #expect(try after.authenticatePlain(user: "alice", password: "alice-secret").errorCode == 0)
    }
}

extension EmbeddedKafkaClient {
    /// Sends the PLAIN token after a handshake the test made itself.
    func authenticatePlainAfterHandshake(user: String, password: String) throws -> SaslAuthenticateResponse {
        try call(SaslAuthenticateRequest(authBytes: ByteBuffer(bytes: [0] + Array(user.utf8) + [0] + Array(password.utf8))), version: 2)
    }
}
