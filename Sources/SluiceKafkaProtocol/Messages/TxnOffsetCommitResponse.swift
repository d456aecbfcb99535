import NIOCore

/// TxnOffsetCommit response (key 28): whether each partition's offset was added to the
/// transaction.
package struct TxnOffsetCommitResponse: KafkaResponse {
    package static let api = KafkaAPI.txnOffsetCommit

    /// The outcome for one partition.
    package struct Partition: Sendable, Equatable {
        /// The partition index.
        package var partitionIndex: Int32
        /// The error code (e.g. ILLEGAL_GENERATION, 22, from v3 on), or 0.
        package var errorCode: Int16

        package init(partitionIndex: Int32, errorCode: Int16 = 0) {
            self.partitionIndex = partitionIndex
            self.errorCode = errorCode
        }
    }

    /// The outcomes for one topic.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// The outcomes, per partition.
        package var partitions: [Partition]

        package init(name: String, partitions: [Partition]) {
            self.name = name
            self.partitions = partitions
        }
    }

    /// How long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The outcomes, per topic.
    package var topics: [Topic]

    package init(throttleTimeMs: Int32 = 0, topics: [Topic]) {
        self.throttleTimeMs = throttleTimeMs
        self.topics = topics
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        throttleTimeMs = try buffer.readKafkaInteger()
        topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let partition = Partition(partitionIndex: try buffer.readKafkaInteger(), errorCode: try buffer.readKafkaInteger())
                if compact { try buffer.skipKafkaTaggedFields() }
                return partition
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return Topic(name: name, partitions: partitions)
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(throttleTimeMs)
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaArray(topic.partitions, compact: compact) { partition, buffer in
                buffer.writeInteger(partition.partitionIndex)
                buffer.writeInteger(partition.errorCode)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
