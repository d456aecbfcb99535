import NIOCore

/// AddPartitionsToTxn response (key 24): whether each partition was added to the transaction.
///
/// The client form (v0–3) only; v4+ group the results by transaction and add a top-level error
/// code.
package struct AddPartitionsToTxnResponse: KafkaResponse {
    package static let api = KafkaAPI.addPartitionsToTxn

    /// The outcome for one partition.
    package struct PartitionResult: Sendable, Equatable {
        /// The partition index.
        package var partitionIndex: Int32
        /// The error code (e.g. CONCURRENT_TRANSACTIONS, 51), or 0.
        package var partitionErrorCode: Int16

        package init(partitionIndex: Int32, partitionErrorCode: Int16 = 0) {
            self.partitionIndex = partitionIndex
            self.partitionErrorCode = partitionErrorCode
        }
    }

    /// The outcomes for one topic.
    package struct TopicResult: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// The outcomes, per partition.
        package var resultsByPartition: [PartitionResult]

        package init(name: String, resultsByPartition: [PartitionResult]) {
            self.name = name
            self.resultsByPartition = resultsByPartition
        }
    }

    /// How long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The outcomes, per topic (the definition's ResultsByTopicV3AndBelow).
    package var resultsByTopic: [TopicResult]

    package init(throttleTimeMs: Int32 = 0, resultsByTopic: [TopicResult]) {
        self.throttleTimeMs = throttleTimeMs
        self.resultsByTopic = resultsByTopic
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        throttleTimeMs = try buffer.readKafkaInteger()
        resultsByTopic = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let partition = PartitionResult(partitionIndex: try buffer.readKafkaInteger(), partitionErrorCode: try buffer.readKafkaInteger())
                if compact { try buffer.skipKafkaTaggedFields() }
                return partition
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return TopicResult(name: name, resultsByPartition: partitions)
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(throttleTimeMs)
        buffer.writeKafkaArray(resultsByTopic, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaArray(topic.resultsByPartition, compact: compact) { partition, buffer in
                buffer.writeInteger(partition.partitionIndex)
                buffer.writeInteger(partition.partitionErrorCode)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
