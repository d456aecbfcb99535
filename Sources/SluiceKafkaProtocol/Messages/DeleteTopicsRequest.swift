import NIOCore

/// DeleteTopics request (key 20): topics to delete, by name, or from v6 on by name or id.
package struct DeleteTopicsRequest: KafkaRequest {
    package typealias Response = DeleteTopicsResponse
    package static let api = KafkaAPI.deleteTopics

    /// A topic to delete. Versions 0–5 send names only (`TopicNames`); v6 sends both fields.
    package struct Topic: Sendable, Equatable {
        /// The topic name, or nil (v6+) when the topic is given by id.
        package var name: String?
        /// v6+: the topic id, or zero when the topic is given by name.
        package var topicID: KafkaUUID

        package init(name: String?, topicID: KafkaUUID = .zero) {
            self.name = name
            self.topicID = topicID
        }
    }

    /// The topics to delete.
    package var topics: [Topic]
    /// How long to wait for the deletion, in milliseconds.
    package var timeoutMs: Int32

    package init(topics: [Topic], timeoutMs: Int32) {
        self.topics = topics
        self.timeoutMs = timeoutMs
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        if version >= 6 {
            topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let topic = Topic(name: try buffer.readKafkaNullableString(compact: compact), topicID: try buffer.readKafkaUUID())
                if compact { try buffer.skipKafkaTaggedFields() }
                return topic
            }
        } else {
            topics = try buffer.readKafkaStringArray(compact: compact).map { Topic(name: $0) }
        }
        timeoutMs = try buffer.readKafkaInteger()
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 6 {
            buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
                buffer.writeKafkaNullableString(topic.name, compact: compact)
                buffer.writeKafkaUUID(topic.topicID)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
        } else {
            buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
                buffer.writeKafkaString(topic.name ?? "", compact: compact)
            }
        }
        buffer.writeInteger(timeoutMs)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
