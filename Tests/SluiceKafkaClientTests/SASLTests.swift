import SluiceAuth
import SluiceKafkaClient
import Testing

@testable import SluiceBroker

extension KafkaClientTests {
    /// librdkafka against the broker's SASL: PLAIN and SCRAM-SHA-256 as a real client speaks them,
    /// and the ACL authorizer's refusals as it reports them.
    @Suite struct SASLTests {
        static let users = FixedUserDirectory(passwords: ["alice": "alice-secret", "admin": "admin-secret"], superusers: ["admin"])

        static func requireSASL(_ configuration: inout BrokerConfiguration) {
            configuration.authentication = BrokerAuthentication(loopback: .required, other: .required, users: users)
        }

        static func sasl(_ mechanism: String, _ user: String, _ password: String, _ more: [String: String] = [:]) -> [String: String] {
            ["security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": mechanism, "sasl.username": user, "sasl.password": password]
                .merging(more) { $1 }
        }

        @Test(arguments: ["PLAIN", "SCRAM-SHA-256"])
        func librdkafkaAuthenticatesProducesAndConsumes(mechanism: String) async throws {
            try await TestBroker.run(configure: Self.requireSASL) { server in
                try server.broker.topics.create("secure", partitions: 1)
                let producer = try KafkaProducer(
                    bootstrapServers: server.bootstrapServers, properties: Self.sasl(mechanism, "admin", "admin-secret", ["linger.ms": "1"]))
                for index in 0 ..< 10 { try producer.produce(topic: "secure", partition: 0, key: nil, value: "m\(index)") }
                try producer.flush(timeout: .seconds(10))
                #expect(producer.deliveryReport.succeeded == 10)
                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers, properties: Self.sasl(mechanism, "admin", "admin-secret"))
                try consumer.assign([KafkaAssignment(topic: "secure", partition: 0, offset: .earliest)])
                #expect(consumer.receive(10).messages.map(\.value) == (0 ..< 10).map { "m\($0)" })
                #expect(server.broker.failedLogins == 0)
            }
        }

        @Test(arguments: ["PLAIN", "SCRAM-SHA-256"])
        func aWrongPasswordDeliversNothing(mechanism: String) async throws {
            try await TestBroker.run(configure: Self.requireSASL) { server in
                try server.broker.topics.create("secure", partitions: 1)
                let producer = try KafkaProducer(
                    bootstrapServers: server.bootstrapServers, properties: Self.sasl(mechanism, "admin", "wrong", ["message.timeout.ms": "1500"]))
                try producer.produce(topic: "secure", partition: 0, key: nil, value: "lost")
                try? producer.flush(timeout: .seconds(10))
                #expect(producer.deliveryReport.succeeded == 0)
                #expect(server.broker.failedLogins >= 1)
                #expect(server.broker.topics.log("secure", 0)?.logEndOffset == 0)
            }
        }

        @Test func anACLLetsAUserProduceButNotConsume() async throws {
            try await TestBroker.run(configure: Self.requireSASL) { server in
                try server.broker.topics.create("orders", partitions: 1)
                try server.broker.acls.add([ACLBinding(resourceName: "orders", principal: "User:alice", operation: .write)])
                let producer = try KafkaProducer(
                    bootstrapServers: server.bootstrapServers, properties: Self.sasl("SCRAM-SHA-256", "alice", "alice-secret", ["linger.ms": "1"]))
                try producer.produce(topic: "orders", partition: 0, key: nil, value: "placed")
                try producer.flush(timeout: .seconds(10))
                #expect(producer.deliveryReport.succeeded == 1)
                let consumer = try KafkaConsumer(
                    bootstrapServers: server.bootstrapServers, properties: Self.sasl("SCRAM-SHA-256", "alice", "alice-secret"))
                try consumer.assign([KafkaAssignment(topic: "orders", partition: 0, offset: .earliest)])
                let received = consumer.receive(1, within: .seconds(10))
                #expect(received.messages.isEmpty)
                #expect(received.errors.first?.name == "TOPIC_AUTHORIZATION_FAILED")
            }
        }
    }
}
