import NIOCore

/// OffsetFetch response (key 9): the group's committed offsets.
package struct OffsetFetchResponse: KafkaResponse {
    package static let api = KafkaAPI.offsetFetch

    /// The committed offset of one partition.
    package struct Partition: Sendable, Equatable {
        /// The partition index.
        package var partitionIndex: Int32
        /// The committed offset, or -1 when there is none.
        package var committedOffset: Int64
        /// v5+: the leader epoch committed with the offset, or -1.
        package var committedLeaderEpoch: Int32
        /// The metadata committed with the offset, or nil.
        package var metadata: String?
        /// The error code, or 0.
        package var errorCode: Int16

        package init(partitionIndex: Int32, committedOffset: Int64, committedLeaderEpoch: Int32 = -1, metadata: String? = nil, errorCode: Int16 = 0) {
            self.partitionIndex = partitionIndex
            self.committedOffset = committedOffset
            self.committedLeaderEpoch = committedLeaderEpoch
            self.metadata = metadata
            self.errorCode = errorCode
        }
    }

    /// The committed offsets of one topic.
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

    /// v3+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The offsets, per topic.
    package var topics: [Topic]
    /// v2+: the top-level error code (e.g. COORDINATOR_LOAD_IN_PROGRESS, 14), or 0.
    package var errorCode: Int16

    package init(throttleTimeMs: Int32 = 0, topics: [Topic], errorCode: Int16 = 0) {
        self.throttleTimeMs = throttleTimeMs
        self.topics = topics
        self.errorCode = errorCode
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(topics: [])
        if version >= 3 { throttleTimeMs = try buffer.readKafkaInteger() }
        topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                var partition = Partition(partitionIndex: try buffer.readKafkaInteger(), committedOffset: try buffer.readKafkaInteger())
                if version >= 5 { partition.committedLeaderEpoch = try buffer.readKafkaInteger() }
                partition.metadata = try buffer.readKafkaNullableString(compact: compact)
                partition.errorCode = try buffer.readKafkaInteger()
                if compact { try buffer.skipKafkaTaggedFields() }
                return partition
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return Topic(name: name, partitions: partitions)
        }
        if version >= 2 { errorCode = try buffer.readKafkaInteger() }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 3 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaArray(topic.partitions, compact: compact) { partition, buffer in
                buffer.writeInteger(partition.partitionIndex)
                buffer.writeInteger(partition.committedOffset)
                if version >= 5 { buffer.writeInteger(partition.committedLeaderEpoch) }
                buffer.writeKafkaNullableString(partition.metadata, compact: compact)
                buffer.writeInteger(partition.errorCode)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if version >= 2 { buffer.writeInteger(errorCode) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
