import NIOCore

/// TxnOffsetCommit request (key 28): a transactional producer commits a consumer group's offsets
/// as part of its transaction, to the group coordinator; they become visible when the transaction
/// commits (KIP-98, and KIP-447 for the group fields of v3).
package struct TxnOffsetCommitRequest: KafkaRequest {
    package typealias Response = TxnOffsetCommitResponse
    package static let api = KafkaAPI.txnOffsetCommit

    /// The offset to commit for one partition.
    package struct Partition: Sendable, Equatable {
        /// The partition index.
        package var partitionIndex: Int32
        /// The offset of the next record to consume.
        package var committedOffset: Int64
        /// v2+: the leader epoch of the last consumed record, or -1.
        package var committedLeaderEpoch: Int32
        /// Client metadata to store with the offset, or nil.
        package var committedMetadata: String?

        package init(partitionIndex: Int32, committedOffset: Int64, committedLeaderEpoch: Int32 = -1, committedMetadata: String? = nil) {
            self.partitionIndex = partitionIndex
            self.committedOffset = committedOffset
            self.committedLeaderEpoch = committedLeaderEpoch
            self.committedMetadata = committedMetadata
        }
    }

    /// The offsets to commit for one topic.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// The partitions.
        package var partitions: [Partition]

        package init(name: String, partitions: [Partition]) {
            self.name = name
            self.partitions = partitions
        }
    }

    /// The transactional id.
    package var transactionalID: String
    /// The consumer group whose offsets to commit.
    package var groupID: String
    /// The producer id the transactional id holds.
    package var producerID: Int64
    /// The producer's current epoch.
    package var producerEpoch: Int16
    /// v3+: the consumer's generation in the group, or -1, so that the coordinator can fence a
    /// zombie consumer (KIP-447).
    package var generationID: Int32
    /// v3+: the consumer's member id, or "".
    package var memberID: String
    /// v3+: the consumer's static member id, or nil.
    package var groupInstanceID: String?
    /// The offsets, per topic.
    package var topics: [Topic]

    package init(
        transactionalID: String,
        groupID: String,
        producerID: Int64,
        producerEpoch: Int16,
        generationID: Int32 = -1,
        memberID: String = "",
        groupInstanceID: String? = nil,
        topics: [Topic]
    ) {
        self.transactionalID = transactionalID
        self.groupID = groupID
        self.producerID = producerID
        self.producerEpoch = producerEpoch
        self.generationID = generationID
        self.memberID = memberID
        self.groupInstanceID = groupInstanceID
        self.topics = topics
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(
            transactionalID: try buffer.readKafkaString(compact: compact),
            groupID: try buffer.readKafkaString(compact: compact),
            producerID: try buffer.readKafkaInteger(),
            producerEpoch: try buffer.readKafkaInteger(),
            topics: []
        )
        // The group fields sit between the producer epoch and the topics.
        if version >= 3 {
            generationID = try buffer.readKafkaInteger()
            memberID = try buffer.readKafkaString(compact: compact)
            groupInstanceID = try buffer.readKafkaNullableString(compact: compact)
        }
        topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                var partition = Partition(partitionIndex: try buffer.readKafkaInteger(), committedOffset: try buffer.readKafkaInteger())
                if version >= 2 { partition.committedLeaderEpoch = try buffer.readKafkaInteger() }
                partition.committedMetadata = try buffer.readKafkaNullableString(compact: compact)
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
        buffer.writeKafkaString(transactionalID, compact: compact)
        buffer.writeKafkaString(groupID, compact: compact)
        buffer.writeInteger(producerID)
        buffer.writeInteger(producerEpoch)
        if version >= 3 {
            buffer.writeInteger(generationID)
            buffer.writeKafkaString(memberID, compact: compact)
            buffer.writeKafkaNullableString(groupInstanceID, compact: compact)
        }
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaArray(topic.partitions, compact: compact) { partition, buffer in
                buffer.writeInteger(partition.partitionIndex)
                buffer.writeInteger(partition.committedOffset)
                if version >= 2 { buffer.writeInteger(partition.committedLeaderEpoch) }
                buffer.writeKafkaNullableString(partition.committedMetadata, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
