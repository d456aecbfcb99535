import NIOCore

/// ListOffsets request (key 2): the offset of the first record at or after a timestamp, or the
/// earliest (-2) or latest (-1) offset, per partition.
package struct ListOffsetsRequest: KafkaRequest {
    package typealias Response = ListOffsetsResponse
    package static let api = KafkaAPI.listOffsets

    /// One partition to look up.
    package struct Partition: Sendable, Equatable {
        /// The partition index.
        package var partitionIndex: Int32
        /// v4+: the leader epoch the client knows, or -1.
        package var currentLeaderEpoch: Int32
        /// The timestamp in milliseconds, or -1 (latest), -2 (earliest), -3 (max timestamp, v7+).
        package var timestamp: Int64

        package init(partitionIndex: Int32, currentLeaderEpoch: Int32 = -1, timestamp: Int64) {
            self.partitionIndex = partitionIndex
            self.currentLeaderEpoch = currentLeaderEpoch
            self.timestamp = timestamp
        }
    }

    /// The partitions to look up of one topic.
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

    /// The requesting broker's id, or -1 for a consumer.
    package var replicaID: Int32
    /// v2+: 0 sees all records; 1 (read committed) sees up to the last stable offset.
    package var isolationLevel: Int8
    /// The partitions to look up.
    package var topics: [Topic]

    package init(replicaID: Int32 = -1, isolationLevel: Int8 = 0, topics: [Topic]) {
        self.replicaID = replicaID
        self.isolationLevel = isolationLevel
        self.topics = topics
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(replicaID: try buffer.readKafkaInteger(), topics: [])
        if version >= 2 { isolationLevel = try buffer.readKafkaInteger() }
        topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                var partition = Partition(partitionIndex: try buffer.readKafkaInteger(), timestamp: 0)
                if version >= 4 { partition.currentLeaderEpoch = try buffer.readKafkaInteger() }
                partition.timestamp = try buffer.readKafkaInteger()
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
        buffer.writeInteger(replicaID)
        if version >= 2 { buffer.writeInteger(isolationLevel) }
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaArray(topic.partitions, compact: compact) { partition, buffer in
                buffer.writeInteger(partition.partitionIndex)
                if version >= 4 { buffer.writeInteger(partition.currentLeaderEpoch) }
                buffer.writeInteger(partition.timestamp)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
