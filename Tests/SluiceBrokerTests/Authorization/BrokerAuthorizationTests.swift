import NIOCore
import SluiceAuth
import SluiceKafkaProtocol
import Synchronization
import Testing

@testable import SluiceBroker

/// Which requests the authorizer is asked about, and how refusals are answered.
@Suite struct BrokerAuthorizationTests {
    static let refused = KafkaErrorCode.topicAuthorizationFailed.rawValue

    func broker(_ configure: (inout BrokerConfiguration) -> Void = { _ in }) throws -> TemporaryBroker {
        let broker = try TemporaryBroker { configuration in
            configuration.authentication = BrokerAuthentication(loopback: .required, other: .required, users: BrokerAuthenticationTests.users)
            configure(&configuration)
        }
        try broker.broker.topics.create("orders", partitions: 1)
        try broker.broker.topics.create("logs.app", partitions: 1)
        return broker
    }

    func login(_ broker: TemporaryBroker, _ user: String) throws -> EmbeddedKafkaClient {
        let client = try EmbeddedKafkaClient(broker.broker)
        #expect(try client.authenticatePlain(user: user, password: "\(user)-secret").errorCode == 0)
        return client
    }

    @Test func aUserWithoutACLsIsRefusedTopicByTopic() throws {
        let broker = try broker()
        defer { broker.remove() }
        let alice = try login(broker, "alice")
        #expect(try alice.call(Requests.produce("orders"), version: 9).firstErrorCode == Self.refused)
        #expect(try alice.call(Requests.produce("orders"), version: 3).firstErrorCode == Self.refused)
        #expect(try alice.call(Requests.fetch("orders"), version: 12).firstErrorCode == Self.refused)
        #expect(try alice.call(Requests.fetch("orders"), version: 4).firstErrorCode == Self.refused)
        #expect(try alice.call(Requests.listOffsets("orders"), version: 7).topics[0].partitions[0].errorCode == Self.refused)
        #expect(try alice.call(Requests.offsetCommit("orders"), version: 8).topics[0].partitions[0].errorCode == Self.refused)
        #expect(try alice.call(Requests.offsetFetch(["orders"]), version: 7).topics[0].partitions[0].errorCode == Self.refused)
        // Named topics are refused; an all-topics listing leaves them out.
        let named = try alice.call(Requests.metadata(["orders", "unknown"]), version: 12)
        #expect(named.topics.map(\.errorCode) == [Self.refused, Self.refused])
        #expect(try alice.call(Requests.metadata(nil), version: 12).topics.isEmpty)
        #expect(try alice.call(Requests.metadata([]), version: 0).topics.isEmpty)
        // Creating, by request or by asking for a missing topic, and deleting.
        let created = try alice.call(CreateTopicsRequest(topics: [.init(name: "new", numPartitions: 1, replicationFactor: 1)]), version: 7)
        #expect(created.topics[0].errorCode == Self.refused)
        #expect(try alice.call(DeleteTopicsRequest(topics: [.init(name: "orders")], timeoutMs: 1000), version: 6).responses[0].errorCode == Self.refused)
        #expect(broker.broker.topics.topic("new") == nil && broker.broker.topics.topic("orders") != nil)
        let partitions = try alice.call(CreatePartitionsRequest(topics: [.init(name: "orders", count: 2)], timeoutMs: 1000, validateOnly: false), version: 3)
        #expect(partitions.results[0].errorCode == Self.refused)
        let configs = try alice.call(DescribeConfigsRequest(resources: [.init(resourceType: 2, resourceName: "orders")]), version: 4)
        #expect(configs.results[0].errorCode == Self.refused)
        #expect(broker.broker.topics.log("orders", 0)?.logEndOffset == 0)
        #expect(alice.isOpen)
    }

    @Test func superusersMayDoEverything() throws {
        let broker = try broker()
        defer { broker.remove() }
        let admin = try login(broker, "admin")
        #expect(try admin.call(Requests.produce("orders"), version: 9).firstErrorCode == 0)
        #expect(try admin.call(Requests.fetch("orders"), version: 12).firstErrorCode == 0)
        #expect(try admin.call(Requests.metadata(nil), version: 12).topics.map(\.name) == ["logs.app", "orders"])
        #expect(try admin.call(Requests.metadata(["fresh"], autoCreate: true), version: 12).topics[0].errorCode == 0)
        #expect(broker.broker.topics.topic("fresh") != nil)
    }

    @Test func aclsGrantTopicsToUsers() throws {
        let broker = try broker()
        defer { broker.remove() }
        let admin = try login(broker, "admin")
        let grants = try admin.call(CreateAclsRequest(creations: [
            .init(resourceType: 2, resourceName: "orders", principal: "User:alice", host: "*", operation: ACLOperation.write.rawValue, permissionType: 3),
            .init(resourceType: 2, resourceName: "logs.", patternType: 4, principal: "User:alice", host: "*", operation: ACLOperation.read.rawValue, permissionType: 3),
        ]), version: 3)
        #expect(grants.results.map(\.errorCode) == [0, 0])

        let alice = try login(broker, "alice")
        #expect(try alice.call(Requests.produce("orders"), version: 9).firstErrorCode == 0)
        // WRITE does not grant READ, but it grants DESCRIBE.
        #expect(try alice.call(Requests.fetch("orders"), version: 12).firstErrorCode == Self.refused)
        #expect(try alice.call(Requests.metadata(["orders"]), version: 12).topics[0].errorCode == 0)
        #expect(try alice.call(Requests.listOffsets("orders"), version: 7).topics[0].partitions[0].errorCode == 0)
        // The prefixed READ covers logs.app, not orders' neighbours.
        #expect(try alice.call(Requests.fetch("logs.app"), version: 12).firstErrorCode == 0)
        #expect(try alice.call(Requests.produce("logs.app"), version: 9).firstErrorCode == Self.refused)
        #expect(try alice.call(Requests.metadata(nil), version: 12).topics.map(\.name) == ["logs.app", "orders"])
        // Creating a topic under the prefix needs CREATE, which READ does not grant.
        #expect(try alice.call(Requests.metadata(["logs.new"], autoCreate: true), version: 12).topics[0].errorCode == Self.refused)
        #expect(try alice.call(Requests.metadata(["logs.new"], autoCreate: false), version: 12).topics[0].errorCode
            == KafkaErrorCode.unknownTopicOrPartition.rawValue)
    }

    @Test func theConfiguredAuthorizerDecidesForUsersButNotForSuperusers() throws {
        final class Recording: BrokerAuthorizer {
            let questions = Mutex<[String]>([])
            func allows(_ principal: KafkaPrincipal, _ operation: ACLOperation, topic: String) -> Bool {
                questions.withLock { $0.append("\(principal) \(operation.kafkaName) \(topic)") }
                return operation == .read
            }
        }
        let recording = Recording()
        let broker = try broker { $0.authorizer = recording }
        defer { broker.remove() }
        let alice = try login(broker, "alice")
        #expect(try alice.call(Requests.produce("orders"), version: 9).firstErrorCode == Self.refused)
        #expect(try alice.call(Requests.fetch("orders"), version: 12).firstErrorCode == 0)
        let admin = try login(broker, "admin")
        #expect(try admin.call(Requests.produce("orders"), version: 9).firstErrorCode == 0)
        #expect(recording.questions.withLock { $0 } == ["User:alice WRITE orders", "User:alice READ orders"])
    }

    @Test func allowEveryoneIfNoACLFoundOpensTopicsWithoutACLs() throws {
        let broker = try broker { $0.allowEveryoneIfNoACLFound = true }
        defer { broker.remove() }
        try broker.broker.acls.add([ACLBinding(resourceName: "orders", principal: "User:bob", operation: .all)])
        let alice = try login(broker, "alice")
        #expect(try alice.call(Requests.produce("logs.app"), version: 9).firstErrorCode == 0)
        #expect(try alice.call(Requests.produce("orders"), version: 9).firstErrorCode == Self.refused)
    }

    @Test func aclMatchingFollowsKafka() {
        let literal = ACLBinding(resourceName: "orders", principal: "User:alice", operation: .read)
        #expect(literal.covers("orders") && !literal.covers("orders2"))
        #expect(ACLBinding(resourceName: "*", principal: "User:*", operation: .read).covers("anything"))
        let prefixed = ACLBinding(resourceName: "logs.", patternType: .prefixed, principal: "User:*", operation: .all)
        #expect(prefixed.covers("logs.app") && !prefixed.covers("log"))
        #expect(prefixed.applies(to: KafkaPrincipal(user: "bob")) && !literal.applies(to: KafkaPrincipal(user: "bob")))
        #expect(literal.grants(.describe) && !literal.grants(.write))
        #expect(prefixed.grants(.delete))
        #expect(ACLBinding(resourceName: "t", principal: "User:a", operation: .alterConfigs).grants(.describeConfigs))
        #expect(!ACLBinding(resourceName: "t", principal: "User:a", operation: .create).grants(.describe))
    }
}
