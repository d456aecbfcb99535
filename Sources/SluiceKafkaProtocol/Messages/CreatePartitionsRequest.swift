import NIOCore

/// CreatePartitions request (key 37): raise topics' partition counts.
package struct CreatePartitionsRequest: KafkaRequest {
    package typealias Response = CreatePartitionsResponse
    package static let api = KafkaAPI.createPartitions

    /// The replicas of one new partition.
    package struct Assignment: Sendable, Equatable {
        /// The brokers to hold the new partition's replicas.
        package var brokerIDs: [Int32]

        package init(brokerIDs: [Int32]) {
            self.brokerIDs = brokerIDs
        }
    }

    /// A topic to grow.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// The new total number of partitions.
        package var count: Int32
        /// Where to put the new partitions, one per new partition, or nil to let the broker choose.
        package var assignments: [Assignment]?

        package init(name: String, count: Int32, assignments: [Assignment]? = nil) {
            self.name = name
            self.count = count
            self.assignments = assignments
        }
    }

    /// The topics to grow.
    package var topics: [Topic]
    /// How long to wait for the partitions, in milliseconds.
    package var timeoutMs: Int32
    /// Check the request without changing anything.
    package var validateOnly: Bool

    package init(topics: [Topic], timeoutMs: Int32, validateOnly: Bool = false) {
        self.topics = topics
        self.timeoutMs = timeoutMs
        self.validateOnly = validateOnly
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let count: Int32 = try buffer.readKafkaInteger()
            let assignments = try buffer.readKafkaNullableArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let assignment = Assignment(brokerIDs: try buffer.readKafkaInt32Array(compact: compact))
                if compact { try buffer.skipKafkaTaggedFields() }
                return assignment
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return Topic(name: name, count: count, assignments: assignments)
        }
        timeoutMs = try buffer.readKafkaInteger()
        validateOnly = try buffer.readKafkaBool()
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeInteger(topic.count)
            buffer.writeKafkaNullableArray(topic.assignments, compact: compact) { assignment, buffer in
                buffer.writeKafkaInt32Array(assignment.brokerIDs, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        buffer.writeInteger(timeoutMs)
        buffer.writeKafkaBool(validateOnly)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
