import NIOCore

/// ListOffsets response (key 2): the offset found for each partition.
package struct ListOffsetsResponse: KafkaResponse {
    package static let api = KafkaAPI.listOffsets

    /// The offset found for one partition.
    package struct Partition: Sendable, Equatable {
        /// The partition index.
        package var partitionIndex: Int32
        /// The error code, or 0.
        package var errorCode: Int16
        /// The timestamp of the record at `offset`, or -1.
        package var timestamp: Int64
        /// The offset found, or -1.
        package var offset: Int64
        /// v4+: the leader epoch of the record at `offset`, or -1.
        package var leaderEpoch: Int32

        package init(partitionIndex: Int32, errorCode: Int16 = 0, timestamp: Int64 = -1, offset: Int64 = -1, leaderEpoch: Int32 = -1) {
            self.partitionIndex = partitionIndex
            self.errorCode = errorCode
            self.timestamp = timestamp
            self.offset = offset
            self.leaderEpoch = leaderEpoch
        }
    }

    /// The offsets found for one topic.
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

    /// v2+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The offsets, per topic.
    package var topics: [Topic]

    package init(throttleTimeMs: Int32 = 0, topics: [Topic]) {
        self.throttleTimeMs = throttleTimeMs
        self.topics = topics
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(topics: [])
        if version >= 2 { throttleTimeMs = try buffer.readKafkaInteger() }
        topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                // Supported versions start at 1: timestamp and offset replace v0's offset list.
                var partition = Partition(
                    partitionIndex: try buffer.readKafkaInteger(),
                    errorCode: try buffer.readKafkaInteger(),
                    timestamp: try buffer.readKafkaInteger(),
                    offset: try buffer.readKafkaInteger()
                )
                if version >= 4 { partition.leaderEpoch = try buffer.readKafkaInteger() }
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
        if version >= 2 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaArray(topic.partitions, compact: compact) { partition, buffer in
                buffer.writeInteger(partition.partitionIndex)
                buffer.writeInteger(partition.errorCode)
                buffer.writeInteger(partition.timestamp)
                buffer.writeInteger(partition.offset)
                if version >= 4 { buffer.writeInteger(partition.leaderEpoch) }
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
