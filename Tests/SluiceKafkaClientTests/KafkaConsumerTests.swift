import SluiceKafkaClient
import Testing

@testable import SluiceBroker

extension KafkaClientTests {
    @Suite struct ConsumerTests {
        @Test func consumesTenThousandKeyedMessagesFromEarliestWithExactOffsets() async throws {
            try await TestBroker.run { server in
                try server.broker.topics.create("events", partitions: 1)
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers)
                let before = nowMilliseconds()
                for index in 0 ..< 10_000 {
                    try producer.produce(topic: "events", key: "key-\(index)", value: "{\"n\":\(index)}")
                }
                try producer.flush(timeout: .seconds(30))
                #expect(producer.deliveryReport == KafkaDeliveryReport(succeeded: 10_000, failed: 0, lastError: nil))
                #expect(producer.outstandingMessages == 0)

                // Partition-end events are asked for, and must still never reach the batch.
                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers, properties: ["enable.partition.eof": "true"])
                try consumer.assign([KafkaAssignment(topic: "events", partition: 0, offset: .earliest)])
                let (messages, errors) = consumer.receive(10_000)
                #expect(errors.isEmpty)
                #expect(messages.count == 10_000)
                for (index, message) in messages.enumerated() where message.offset != Int64(index) || message.key != "key-\(index)" {
                    Issue.record("message \(index): \(message)")
                    break
                }
                #expect(messages.last?.value == "{\"n\":9999}")
                #expect(messages.allSatisfy { $0.partition == 0 && ($0.timestamp ?? 0) >= before - 1000 })
                // At the end: nothing more, and no end-of-partition entry.
                #expect(consumer.poll(timeout: .milliseconds(300)) { _ in } == 0)
                consumer.close()
                #expect(consumer.isClosed)
            }
        }

        /// librdkafka stops fetching while its prefetch queue is over `queued.min.messages` and
        /// looks again only once a second: a backlog of 100,000 messages behind a threshold of
        /// 1,000 (fetched 8 KiB at a time) takes 17 to 25 seconds without the consumer waking the
        /// fetcher as the queue drains, and well under one with it.
        @Test func aBacklogBeyondThePrefetchThresholdIsReadWithoutStalls() async throws {
            try await TestBroker.run { server in
                try server.broker.topics.create("backlog", partitions: 1)
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers)
                for index in 0 ..< 100_000 { try producer.produce(topic: "backlog", key: nil, value: "{\"n\":\(index)}") }
                try producer.flush(timeout: .seconds(30))
                let consumer = try KafkaConsumer(
                    bootstrapServers: server.bootstrapServers,
                    properties: ["queued.min.messages": "1000", "max.partition.fetch.bytes": "8192"])
                try consumer.assign([KafkaAssignment(topic: "backlog", partition: 0, offset: .earliest)])
                let (messages, errors) = consumer.receive(100_000, within: .seconds(10))
                #expect(errors.isEmpty)
                #expect(messages.count == 100_000)
                #expect(messages.enumerated().allSatisfy { $0.element.offset == Int64($0.offset) })
                #expect(consumer.fetcherWakes > 0)
                consumer.close()
            }
        }

        @Test func assignedAtLatestOnlyNewerMessagesArrive() async throws {
            try await TestBroker.run { server in
                try server.broker.topics.create("tail", partitions: 1)
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers)
                for index in 0 ..< 5 { try producer.produce(topic: "tail", key: nil, value: "old-\(index)") }
                try producer.flush(timeout: .seconds(10))

                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers)
                try consumer.assign([KafkaAssignment(topic: "tail", partition: 0, offset: .latest)])
                // Let the consumer resolve the end offset before anything new is produced.
                #expect(consumer.receive(1, within: .seconds(1)).messages.isEmpty)
                for index in 0 ..< 3 { try producer.produce(topic: "tail", key: nil, value: "new-\(index)") }
                try producer.flush(timeout: .seconds(10))
                let messages = consumer.receive(3).messages
                #expect(messages.map(\.value) == ["new-0", "new-1", "new-2"])
                #expect(messages.map(\.offset) == [5, 6, 7])
                #expect(messages.allSatisfy { $0.key == nil })
            }
        }

        @Test func assignedAtAnExactOffsetReadsFromThere() async throws {
            try await TestBroker.run { server in
                try server.broker.topics.create("exact", partitions: 1)
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers)
                for index in 0 ..< 20 { try producer.produce(topic: "exact", key: "k", value: "\(index)") }
                try producer.flush(timeout: .seconds(10))
                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers)
                try consumer.assign([KafkaAssignment(topic: "exact", partition: 0, offset: .exact(17))])
                #expect(consumer.receive(3).messages.map(\.value) == ["17", "18", "19"])
                // Reassigning replaces the assignment.
                try consumer.assign([KafkaAssignment(topic: "exact", partition: 0, offset: .exact(2))])
                #expect(consumer.receive(2).messages.prefix(2).map(\.offset) == [2, 3])
            }
        }

        @Test func offsetsForATimestampPointAtTheFirstMessageAtOrAfterIt() async throws {
            try await TestBroker.run { server in
                try server.broker.topics.create("timed", partitions: 2)
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers)
                for index in 0 ..< 4 { try producer.produce(topic: "timed", partition: 0, key: nil, value: "early-\(index)") }
                try producer.flush(timeout: .seconds(10))
                try await Task.sleep(for: .milliseconds(50))
                let cut = nowMilliseconds()
                try await Task.sleep(for: .milliseconds(50))
                for index in 0 ..< 3 { try producer.produce(topic: "timed", partition: 0, key: nil, value: "late-\(index)") }
                try producer.flush(timeout: .seconds(10))

                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers)
                let starts = try consumer.offsets(forTimestamp: cut, topic: "timed", partitions: [0, 1])
                #expect(starts == [
                    KafkaAssignment(topic: "timed", partition: 0, offset: .exact(4)),
                    KafkaAssignment(topic: "timed", partition: 1, offset: .latest),
                ])
                #expect(try consumer.offsets(forTimestamp: 0, topic: "timed", partitions: [0]) == [KafkaAssignment(topic: "timed", partition: 0, offset: .exact(0))])
                #expect(try consumer.offsets(forTimestamp: cut + 3_600_000, topic: "timed", partitions: [0]) == [KafkaAssignment(topic: "timed", partition: 0, offset: .latest)])
                // The answer can be assigned as it is.
                try consumer.assign(starts)
                #expect(consumer.receive(3).messages.map(\.value) == ["late-0", "late-1", "late-2"])
            }
        }

        @Test func watermarksSpanThePartitionsMessages() async throws {
            try await TestBroker.run { server in
                try server.broker.topics.create("marks", partitions: 2)
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers)
                for index in 0 ..< 10 { try producer.produce(topic: "marks", partition: 1, key: nil, value: "\(index)") }
                try producer.flush(timeout: .seconds(10))
                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers)
                #expect(try consumer.watermarks(topic: "marks", partition: 0) == KafkaWatermarks(low: 0, high: 0))
                #expect(try consumer.watermarks(topic: "marks", partition: 1) == KafkaWatermarks(low: 0, high: 10))
                #expect(throws: KafkaClientError.self) { try consumer.watermarks(topic: "marks", partition: 7, timeout: .seconds(3)) }
            }
        }

        @Test func partitionsOfAThreePartitionTopic() async throws {
            try await TestBroker.run(configure: { $0.defaultPartitions = 3 }) { server in
                try server.broker.topics.create("three", partitions: 3)
                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers)
                #expect(try consumer.partitions(of: "three") == [0, 1, 2])

                // A topic the producer creates gets the broker's default partition count; keyed
                // messages spread over it and all come back.
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers)
                for index in 0 ..< 300 { try producer.produce(topic: "auto", key: "user-\(index)", value: "\(index)") }
                try producer.flush(timeout: .seconds(10))
                #expect(producer.deliveryReport.succeeded == 300)
                let partitions = try consumer.partitions(of: "auto")
                #expect(partitions == [0, 1, 2])
                try consumer.assign(partitions.map { KafkaAssignment(topic: "auto", partition: $0, offset: .earliest) })
                let messages = consumer.receive(300).messages
                #expect(messages.count == 300)
                #expect(Set(messages.map(\.partition)) == [0, 1, 2])
                // One key, one partition.
                let byKey = Dictionary(grouping: messages, by: { $0.key! })
                #expect(byKey.count == 300)
            }
        }

        @Test func anUnknownTopicIsAnErrorAndIsNotCreated() async throws {
            try await TestBroker.run { server in
                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers)
                let error = #expect(throws: KafkaClientError.self) { try consumer.partitions(of: "missing", timeout: .seconds(5)) }
                #expect(error?.isUnknownTopic == true)
                #expect(error?.isBrokerUnreachable == false)
                #expect(error?.message.contains("missing") == true)
                #expect(server.broker.topics.topic("missing") == nil)
            }
        }

        @Test func anUnknownPropertyIsAClearError() throws {
            let error = #expect(throws: KafkaClientError.self) {
                try KafkaConsumer(bootstrapServers: "127.0.0.1:9", properties: ["no.such.property": "1"])
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("no.such.property") == true)
            let invalid = #expect(throws: KafkaClientError.self) {
                try KafkaConsumer(bootstrapServers: "127.0.0.1:9", properties: ["fetch.wait.max.ms": "soon"])
            }
            #expect(invalid?.code == .invalidArgument)
            #expect(invalid?.message.contains("fetch.wait.max.ms") == true)
            #expect(invalid?.sluiceError.code == .invalidParameterValue)
        }

        @Test func anUnreachableBrokerIsAnErrorWithinTheTimeout() throws {
            let logs = LogCollector()
            // Port 1: nothing listens there, so connections are refused.
            let consumer = try KafkaConsumer(bootstrapServers: "127.0.0.1:1", callbacks: logs.callbacks)
            let clock = ContinuousClock()
            let start = clock.now
            let error = #expect(throws: KafkaClientError.self) { try consumer.partitions(of: "anything", timeout: .seconds(2)) }
            let elapsed = clock.now - start
            #expect(error?.isBrokerUnreachable == true)
            #expect(error?.isUnknownTopic == false)
            #expect(elapsed < .seconds(6))
            let watermarks = #expect(throws: KafkaClientError.self) { try consumer.watermarks(topic: "anything", partition: 0, timeout: .seconds(1)) }
            #expect(watermarks?.isBrokerUnreachable == true)
            consumer.close()
            #expect(clock.now - start < .seconds(15))
            #expect(Librdkafka.allHandlesDestroyed(within: .seconds(10)))
            // librdkafka's logs came through the callback, not standard error.
            #expect(!logs.lines.withLock { $0.isEmpty })
        }

        @Test func committedOffsetsAreVisibleToTheGroup() async throws {
            try await TestBroker.run { server in
                try server.broker.topics.create("progress", partitions: 2)
                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers)
                try consumer.commit(
                    [KafkaPartitionOffset(topic: "progress", partition: 0, offset: 42), KafkaPartitionOffset(topic: "progress", partition: 1, offset: 7)],
                    group: "sluice-source-1")
                #expect(try consumer.committedOffsets(group: "sluice-source-1", topic: "progress", partitions: [0, 1]) == [42, 7])
                #expect(try consumer.committedOffsets(group: "someone-else", topic: "progress", partitions: [0]) == [nil])
                // The broker stored them for the group, as lag tools will read them.
                #expect(server.broker.groups.offsets.offset(group: "sluice-source-1", topic: "progress", partition: 0)?.offset == 42)
                // A later commit moves them; the consumer's own group works too.
                try consumer.commit([KafkaPartitionOffset(topic: "progress", partition: 0, offset: 50)], group: "sluice-source-1")
                try consumer.commit([KafkaPartitionOffset(topic: "progress", partition: 1, offset: 3)], group: KafkaConsumer.defaultGroupID)
                #expect(try consumer.committedOffsets(group: "sluice-source-1", topic: "progress", partitions: [0, 1]) == [50, 7])
                #expect(server.broker.groups.offsets.offset(group: KafkaConsumer.defaultGroupID, topic: "progress", partition: 1)?.offset == 3)
                // Committing for a partition that does not exist fails.
                #expect(throws: KafkaClientError.self) {
                    try consumer.commit([KafkaPartitionOffset(topic: "progress", partition: 9, offset: 1)], group: "sluice-source-1")
                }
            }
        }

        @Test func anOffsetOutOfRangeComesAsAnErrorEntry() async throws {
            try await TestBroker.run { server in
                try server.broker.topics.create("short", partitions: 1)
                let producer = try KafkaProducer(bootstrapServers: server.bootstrapServers)
                try producer.produce(topic: "short", key: nil, value: "only")
                try producer.flush(timeout: .seconds(10))
                let consumer = try KafkaConsumer(bootstrapServers: server.bootstrapServers, properties: ["auto.offset.reset": "error"])
                try consumer.assign([KafkaAssignment(topic: "short", partition: 0, offset: .exact(100))])
                let (messages, errors) = consumer.receive(1, within: .seconds(10))
                #expect(messages.isEmpty)
                #expect(errors.first?.name == "_AUTO_OFFSET_RESET")
                #expect(errors.first?.message.contains("OFFSET_OUT_OF_RANGE") == true || errors.first?.message.contains("out of range") == true)
            }
        }
    }
}
