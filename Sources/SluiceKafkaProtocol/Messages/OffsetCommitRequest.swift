import NIOCore

/// OffsetCommit request (key 8): a group member commits the offsets it has consumed up to.
package struct OffsetCommitRequest: KafkaRequest {
    package typealias Response = OffsetCommitResponse
    package static let api = KafkaAPI.offsetCommit

    /// The offset to commit for one partition.
    package struct Partition: Sendable, Equatable {
        /// The partition index.
        package var partitionIndex: Int32
        /// The offset of the next record to consume.
        package var committedOffset: Int64
        /// v6+: the leader epoch of the last consumed record, or -1.
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

    /// The group id.
    package var groupID: String
    /// The member's generation, or -1 for a commit from outside the group (simple consumers).
    package var generationIDOrMemberEpoch: Int32
    /// The member id, or "" from outside the group.
    package var memberID: String
    /// v7+: the static member id, or nil.
    package var groupInstanceID: String?
    /// v2–4: how long to keep the offsets, in milliseconds, or -1 for the broker default.
    package var retentionTimeMs: Int64
    /// The offsets, per topic.
    package var topics: [Topic]

    package init(
        groupID: String,
        generationIDOrMemberEpoch: Int32 = -1,
        memberID: String = "",
        groupInstanceID: String? = nil,
        retentionTimeMs: Int64 = -1,
        topics: [Topic]
    ) {
        self.groupID = groupID
        self.generationIDOrMemberEpoch = generationIDOrMemberEpoch
        self.memberID = memberID
        self.groupInstanceID = groupInstanceID
        self.retentionTimeMs = retentionTimeMs
        self.topics = topics
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        // Supported versions start at 2: generation and member id (v1+) are always there, and no
        // version has v1's per-partition commit timestamp.
        self.init(
            groupID: try buffer.readKafkaString(compact: compact),
            generationIDOrMemberEpoch: try buffer.readKafkaInteger(),
            memberID: try buffer.readKafkaString(compact: compact),
            topics: []
        )
        if version >= 7 { groupInstanceID = try buffer.readKafkaNullableString(compact: compact) }
        if version <= 4 { retentionTimeMs = try buffer.readKafkaInteger() }
        topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                var partition = Partition(partitionIndex: try buffer.readKafkaInteger(), committedOffset: try buffer.readKafkaInteger())
                if version >= 6 { partition.committedLeaderEpoch = try buffer.readKafkaInteger() }
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
        buffer.writeKafkaString(groupID, compact: compact)
        buffer.writeInteger(generationIDOrMemberEpoch)
        buffer.writeKafkaString(memberID, compact: compact)
        if version >= 7 { buffer.writeKafkaNullableString(groupInstanceID, compact: compact) }
        if version <= 4 { buffer.writeInteger(retentionTimeMs) }
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaArray(topic.partitions, compact: compact) { partition, buffer in
                buffer.writeInteger(partition.partitionIndex)
                buffer.writeInteger(partition.committedOffset)
                if version >= 6 { buffer.writeInteger(partition.committedLeaderEpoch) }
                buffer.writeKafkaNullableString(partition.committedMetadata, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
