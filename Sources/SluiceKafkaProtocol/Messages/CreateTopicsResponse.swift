import NIOCore

/// CreateTopics response (key 19): per topic, whether it was created, and from v5 on the
/// partition count, replication factor and configs it got.
package struct CreateTopicsResponse: KafkaResponse {
    package static let api = KafkaAPI.createTopics

    /// v5+: a config the created topic has.
    package struct Config: Sendable, Equatable {
        /// The config name.
        package var name: String
        /// The value, or nil (e.g. for a sensitive config).
        package var value: String?
        /// Whether the config is read-only.
        package var readOnly: Bool
        /// Where the value comes from (DescribeConfigs' config source), or -1.
        package var configSource: Int8
        /// Whether the value is sensitive.
        package var isSensitive: Bool

        package init(name: String, value: String?, readOnly: Bool = false, configSource: Int8 = -1, isSensitive: Bool = false) {
            self.name = name
            self.value = value
            self.readOnly = readOnly
            self.configSource = configSource
            self.isSensitive = isSensitive
        }
    }

    /// The outcome for one topic.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// v7+: the new topic's id, or zero.
        package var topicID: KafkaUUID
        /// The error code (e.g. TOPIC_ALREADY_EXISTS, 36), or 0.
        package var errorCode: Int16
        /// v1+: a message for the error, or nil.
        package var errorMessage: String?
        /// v5+ (tagged field 0): why the configs could not be returned, or 0.
        package var topicConfigErrorCode: Int16
        /// v5+: the number of partitions, or -1.
        package var numPartitions: Int32
        /// v5+: the replication factor, or -1.
        package var replicationFactor: Int16
        /// v5+: the topic's configs, or nil.
        package var configs: [Config]?

        package init(
            name: String,
            topicID: KafkaUUID = .zero,
            errorCode: Int16 = 0,
            errorMessage: String? = nil,
            topicConfigErrorCode: Int16 = 0,
            numPartitions: Int32 = -1,
            replicationFactor: Int16 = -1,
            configs: [Config]? = nil
        ) {
            self.name = name
            self.topicID = topicID
            self.errorCode = errorCode
            self.errorMessage = errorMessage
            self.topicConfigErrorCode = topicConfigErrorCode
            self.numPartitions = numPartitions
            self.replicationFactor = replicationFactor
            self.configs = configs
        }
    }

    /// v2+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The outcomes, per topic.
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
            try Topic(from: &buffer, version: version)
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 2 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in topic.write(to: &buffer, version: version) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}

extension CreateTopicsResponse.Topic {
    init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        let compact = CreateTopicsResponse.api.isFlexible(version)
        self.init(name: try buffer.readKafkaString(compact: compact))
        if version >= 7 { topicID = try buffer.readKafkaUUID() }
        errorCode = try buffer.readKafkaInteger()
        if version >= 1 { errorMessage = try buffer.readKafkaNullableString(compact: compact) }
        if version >= 5 {
            numPartitions = try buffer.readKafkaInteger()
            replicationFactor = try buffer.readKafkaInteger()
            configs = try buffer.readKafkaNullableArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let config = CreateTopicsResponse.Config(
                    name: try buffer.readKafkaString(compact: compact),
                    value: try buffer.readKafkaNullableString(compact: compact),
                    readOnly: try buffer.readKafkaBool(),
                    configSource: try buffer.readKafkaInteger(),
                    isSensitive: try buffer.readKafkaBool()
                )
                if compact { try buffer.skipKafkaTaggedFields() }
                return config
            }
        }
        if compact {
            var topicConfigErrorCode: Int16 = 0
            try buffer.readKafkaTaggedFields { tag, field throws(KafkaDecodingError) in
                if tag == 0 { topicConfigErrorCode = try field.readKafkaInteger() }
            }
            self.topicConfigErrorCode = topicConfigErrorCode
        }
    }

    func write(to buffer: inout ByteBuffer, version: Int16) {
        let compact = CreateTopicsResponse.api.isFlexible(version)
        buffer.writeKafkaString(name, compact: compact)
        if version >= 7 { buffer.writeKafkaUUID(topicID) }
        buffer.writeInteger(errorCode)
        if version >= 1 { buffer.writeKafkaNullableString(errorMessage, compact: compact) }
        if version >= 5 {
            buffer.writeInteger(numPartitions)
            buffer.writeInteger(replicationFactor)
            buffer.writeKafkaNullableArray(configs, compact: compact) { config, buffer in
                buffer.writeKafkaString(config.name, compact: compact)
                buffer.writeKafkaNullableString(config.value, compact: compact)
                buffer.writeKafkaBool(config.readOnly)
                buffer.writeInteger(config.configSource)
                buffer.writeKafkaBool(config.isSensitive)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
        }
        if compact {
            // A tagged field is written only when it differs from its default (0).
            if topicConfigErrorCode != 0 {
                let code = topicConfigErrorCode
                buffer.writeKafkaTaggedFields([(0, { $0.writeInteger(code) })])
            } else {
                buffer.writeKafkaEmptyTaggedFields()
            }
        }
    }
}
