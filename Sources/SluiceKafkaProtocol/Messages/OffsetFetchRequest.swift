import NIOCore

/// OffsetFetch request (key 9): the committed offsets of one group, for some or all partitions.
/// (v8+ batch several groups; Sluice stops at v7.)
package struct OffsetFetchRequest: KafkaRequest {
    package typealias Response = OffsetFetchResponse
    package static let api = KafkaAPI.offsetFetch

    /// The partitions to look up of one topic.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// The partition indexes.
        package var partitionIndexes: [Int32]

        package init(name: String, partitionIndexes: [Int32]) {
            self.name = name
            self.partitionIndexes = partitionIndexes
        }
    }

    /// The group id.
    package var groupID: String
    /// The partitions to look up, or nil (v2+) for all partitions the group has offsets for.
    /// Version 1 has no null; nil is written there as an empty array.
    package var topics: [Topic]?
    /// v7+: whether to wait for pending transactional offsets rather than return them unstable.
    package var requireStable: Bool

    package init(groupID: String, topics: [Topic]?, requireStable: Bool = false) {
        self.groupID = groupID
        self.topics = topics
        self.requireStable = requireStable
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(groupID: try buffer.readKafkaString(compact: compact), topics: nil)
        let readTopic = { (buffer: inout ByteBuffer) throws(KafkaDecodingError) -> Topic in
            let topic = Topic(name: try buffer.readKafkaString(compact: compact), partitionIndexes: try buffer.readKafkaInt32Array(compact: compact))
            if compact { try buffer.skipKafkaTaggedFields() }
            return topic
        }
        topics = try version >= 2
            ? buffer.readKafkaNullableArray(compact: compact, readTopic)
            : buffer.readKafkaArray(compact: compact, readTopic)
        if version >= 7 { requireStable = try buffer.readKafkaBool() }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaString(groupID, compact: compact)
        buffer.writeKafkaNullableArray(version >= 2 ? topics : (topics ?? []), compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaInt32Array(topic.partitionIndexes, compact: compact)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if version >= 7 { buffer.writeKafkaBool(requireStable) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
