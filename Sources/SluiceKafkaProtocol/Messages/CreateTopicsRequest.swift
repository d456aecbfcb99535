import NIOCore

/// CreateTopics request (key 19): topics to create, with partition counts or explicit
/// assignments, and configs.
package struct CreateTopicsRequest: KafkaRequest {
    package typealias Response = CreateTopicsResponse
    package static let api = KafkaAPI.createTopics

    /// An explicit replica assignment for one partition.
    package struct Assignment: Sendable, Equatable {
        /// The partition index.
        package var partitionIndex: Int32
        /// The brokers to hold the partition's replicas, the preferred leader first.
        package var brokerIDs: [Int32]

        package init(partitionIndex: Int32, brokerIDs: [Int32]) {
            self.partitionIndex = partitionIndex
            self.brokerIDs = brokerIDs
        }
    }

    /// A topic config to set.
    package struct Config: Sendable, Equatable {
        /// The config name, e.g. "retention.ms".
        package var name: String
        /// The value, or nil.
        package var value: String?

        package init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// A topic to create.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// The number of partitions, or -1 for the broker default (or when `assignments` is given).
        package var numPartitions: Int32
        /// The replication factor, or -1 for the broker default (or when `assignments` is given).
        package var replicationFactor: Int16
        /// Explicit assignments; empty to let the broker place the partitions.
        package var assignments: [Assignment]
        /// Configs to set on the topic.
        package var configs: [Config]

        package init(name: String, numPartitions: Int32, replicationFactor: Int16, assignments: [Assignment] = [], configs: [Config] = []) {
            self.name = name
            self.numPartitions = numPartitions
            self.replicationFactor = replicationFactor
            self.assignments = assignments
            self.configs = configs
        }
    }

    /// The topics to create.
    package var topics: [Topic]
    /// How long to wait for the creation, in milliseconds.
    package var timeoutMs: Int32
    /// v1+: check the request without creating anything.
    package var validateOnly: Bool

    package init(topics: [Topic], timeoutMs: Int32 = 60_000, validateOnly: Bool = false) {
        self.topics = topics
        self.timeoutMs = timeoutMs
        self.validateOnly = validateOnly
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(topics: [])
        topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var topic = Topic(
                name: try buffer.readKafkaString(compact: compact),
                numPartitions: try buffer.readKafkaInteger(),
                replicationFactor: try buffer.readKafkaInteger()
            )
            topic.assignments = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let assignment = Assignment(
                    partitionIndex: try buffer.readKafkaInteger(),
                    brokerIDs: try buffer.readKafkaInt32Array(compact: compact)
                )
                if compact { try buffer.skipKafkaTaggedFields() }
                return assignment
            }
            topic.configs = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let config = Config(
                    name: try buffer.readKafkaString(compact: compact),
                    value: try buffer.readKafkaNullableString(compact: compact)
                )
                if compact { try buffer.skipKafkaTaggedFields() }
                return config
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return topic
        }
        timeoutMs = try buffer.readKafkaInteger()
        if version >= 1 { validateOnly = try buffer.readKafkaBool() }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeInteger(topic.numPartitions)
            buffer.writeInteger(topic.replicationFactor)
            buffer.writeKafkaArray(topic.assignments, compact: compact) { assignment, buffer in
                buffer.writeInteger(assignment.partitionIndex)
                buffer.writeKafkaInt32Array(assignment.brokerIDs, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            buffer.writeKafkaArray(topic.configs, compact: compact) { config, buffer in
                buffer.writeKafkaString(config.name, compact: compact)
                buffer.writeKafkaNullableString(config.value, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        buffer.writeInteger(timeoutMs)
        if version >= 1 { buffer.writeKafkaBool(validateOnly) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
