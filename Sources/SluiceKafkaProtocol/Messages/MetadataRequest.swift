import NIOCore

/// Metadata request (key 3): which brokers exist and who leads each partition of some topics.
package struct MetadataRequest: KafkaRequest {
    package typealias Response = MetadataResponse
    package static let api = KafkaAPI.metadata

    /// A topic to describe.
    package struct Topic: Sendable, Equatable {
        /// v10+: the topic id; zero when the topic is named.
        package var topicID: KafkaUUID
        /// The topic name; nil (v12+) when the topic is given by id.
        package var name: String?

        package init(name: String?, topicID: KafkaUUID = .zero) {
            self.topicID = topicID
            self.name = name
        }
    }

    /// The topics to describe; nil asks for all topics. Version 0 has no null and sends an empty
    /// array for "all topics": it is read as nil, and nil or empty is written as empty.
    package var topics: [Topic]?
    /// v4+: whether the broker may create topics that do not exist (if configured to).
    package var allowAutoTopicCreation: Bool
    /// v8–10: whether to return the cluster's authorized operations.
    package var includeClusterAuthorizedOperations: Bool
    /// v8+: whether to return each topic's authorized operations.
    package var includeTopicAuthorizedOperations: Bool

    package init(
        topics: [Topic]?,
        allowAutoTopicCreation: Bool = true,
        includeClusterAuthorizedOperations: Bool = false,
        includeTopicAuthorizedOperations: Bool = false
    ) {
        self.topics = topics
        self.allowAutoTopicCreation = allowAutoTopicCreation
        self.includeClusterAuthorizedOperations = includeClusterAuthorizedOperations
        self.includeTopicAuthorizedOperations = includeTopicAuthorizedOperations
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(topics: nil)
        let topics = try buffer.readKafkaNullableArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var topic = Topic(name: nil)
            if version >= 10 { topic.topicID = try buffer.readKafkaUUID() }
            topic.name = try version >= 10
                ? buffer.readKafkaNullableString(compact: compact)
                : buffer.readKafkaString(compact: compact)
            if compact { try buffer.skipKafkaTaggedFields() }
            return topic
        }
        if version == 0 {
            guard let topics else { throw .unexpectedNull }
            self.topics = topics.isEmpty ? nil : topics
        } else {
            self.topics = topics
        }
        if version >= 4 { allowAutoTopicCreation = try buffer.readKafkaBool() }
        if (8 ... 10).contains(version) { includeClusterAuthorizedOperations = try buffer.readKafkaBool() }
        if version >= 8 { includeTopicAuthorizedOperations = try buffer.readKafkaBool() }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaNullableArray(version == 0 ? (topics ?? []) : topics, compact: compact) { topic, buffer in
            if version >= 10 {
                buffer.writeKafkaUUID(topic.topicID)
                buffer.writeKafkaNullableString(topic.name, compact: compact)
            } else {
                buffer.writeKafkaString(topic.name ?? "", compact: compact)
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if version >= 4 { buffer.writeKafkaBool(allowAutoTopicCreation) }
        if (8 ... 10).contains(version) { buffer.writeKafkaBool(includeClusterAuthorizedOperations) }
        if version >= 8 { buffer.writeKafkaBool(includeTopicAuthorizedOperations) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
