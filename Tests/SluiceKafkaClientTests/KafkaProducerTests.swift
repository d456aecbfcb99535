import SluiceKafkaClient
import Testing

@testable import SluiceBroker

extension KafkaClientTests {
    @Suite struct ProducerTests {
        @Test func producesToAnExplicitPartitionAndCountsDeliveries() async throws {
            try await TestBroker.run { server in
                try server.broker.topics.create("out", partitions: 3)
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers, properties: ["linger.ms": "1"])
                for index in 0 ..< 50 { try producer.produce(topic: "out", partition: 2, key: "k\(index)", value: nil) }
                try producer.flush(timeout: .seconds(10))
                #expect(producer.deliveryReport.succeeded == 50)
                #expect(server.broker.topics.log("out", 2)?.logEndOffset == 50)
                #expect(server.broker.topics.log("out", 0)?.logEndOffset == 0)
                // Null values (tombstones) come back as nil.
                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers)
                try consumer.assign([KafkaAssignment(topic: "out", partition: 2, offset: .earliest)])
                let messages = consumer.receive(50).messages
                #expect(messages.count == 50 && messages.allSatisfy { $0.value == nil && $0.key != nil })
                try producer.close()
                #expect(producer.isClosed)
                #expect(throws: KafkaClientError.self) { try producer.produce(topic: "out", key: nil, value: "late") }
            }
        }

        @Test func aFullQueueIsWaitedOutNotAnError() async throws {
            try await TestBroker.run { server in
                try server.broker.topics.create("burst", partitions: 1)
                // A queue of 100 messages fills at once; produce must wait for deliveries and go on.
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers, properties: ["queue.buffering.max.messages": "100"])
                for index in 0 ..< 5_000 { try producer.produce(topic: "burst", key: nil, value: "\(index)") }
                try producer.flush(timeout: .seconds(30))
                #expect(producer.deliveryReport == KafkaDeliveryReport(succeeded: 5_000, failed: 0, lastError: nil))
                #expect(server.broker.topics.log("burst", 0)?.logEndOffset == 5_000)
            }
        }

        @Test func deliveryFailuresAreCountedWithTheirError() async throws {
            try await TestBroker.run(configure: { $0.autoCreateTopics = false }) { server in
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers, properties: ["message.timeout.ms": "1500"])
                try producer.produce(topic: "nowhere", key: nil, value: "lost")
                try? producer.flush(timeout: .seconds(10))
                #expect(producer.deliveryReport.succeeded == 0)
                #expect(producer.deliveryReport.failed == 1)
                #expect(producer.deliveryReport.lastError?.name == "_MSG_TIMED_OUT")
                #expect(producer.deliveryReport.lastError?.message.contains("timed out") == true)
            }
        }

        @Test func anInvalidPropertyValueIsAClearError() {
            let error = #expect(throws: KafkaClientError.self) {
                try KafkaProducer(bootstrapServers: "127.0.0.1:9", properties: ["linger.ms": "a while"])
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.name == "_INVALID_ARG")
            #expect(error?.message.contains("linger.ms") == true)
        }
    }
}

@Test func theLinkedLibrdkafkaReportsItsVersion() {
    #expect(Librdkafka.version.first?.isNumber == true)
}
