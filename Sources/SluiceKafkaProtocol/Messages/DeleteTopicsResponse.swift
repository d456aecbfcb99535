import NIOCore

/// DeleteTopics response (key 20): whether each topic was deleted.
package struct DeleteTopicsResponse: KafkaResponse {
    package static let api = KafkaAPI.deleteTopics

    /// The outcome for one topic.
    package struct Result: Sendable, Equatable {
        /// The topic name; nil (v6+) for a topic given by an id that does not exist.
        package var name: String?
        /// v6+: the topic id, or zero.
        package var topicID: KafkaUUID
        /// The error code (e.g. UNKNOWN_TOPIC_OR_PARTITION, 3), or 0.
        package var errorCode: Int16
        /// v5+: a message for the error, or nil.
        package var errorMessage: String?

        package init(name: String?, topicID: KafkaUUID = .zero, errorCode: Int16 = 0, errorMessage: String? = nil) {
            self.name = name
            self.topicID = topicID
            self.errorCode = errorCode
            self.errorMessage = errorMessage
        }
    }

    /// v1+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The outcomes, per topic.
    package var responses: [Result]

    package init(throttleTimeMs: Int32 = 0, responses: [Result]) {
        self.throttleTimeMs = throttleTimeMs
        self.responses = responses
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(responses: [])
        if version >= 1 { throttleTimeMs = try buffer.readKafkaInteger() }
        responses = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var result = Result(
                name: try version >= 6
                    ? buffer.readKafkaNullableString(compact: compact)
                    : buffer.readKafkaString(compact: compact)
            )
            if version >= 6 { result.topicID = try buffer.readKafkaUUID() }
            result.errorCode = try buffer.readKafkaInteger()
            if version >= 5 { result.errorMessage = try buffer.readKafkaNullableString(compact: compact) }
            if compact { try buffer.skipKafkaTaggedFields() }
            return result
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 1 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeKafkaArray(responses, compact: compact) { result, buffer in
            if version >= 6 {
                buffer.writeKafkaNullableString(result.name, compact: compact)
                buffer.writeKafkaUUID(result.topicID)
            } else {
                buffer.writeKafkaString(result.name ?? "", compact: compact)
            }
            buffer.writeInteger(result.errorCode)
            if version >= 5 { buffer.writeKafkaNullableString(result.errorMessage, compact: compact) }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
