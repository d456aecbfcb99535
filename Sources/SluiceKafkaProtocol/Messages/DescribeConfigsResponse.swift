import NIOCore

/// DescribeConfigs response (key 32): each resource's configs with their values and sources.
package struct DescribeConfigsResponse: KafkaResponse {
    package static let api = KafkaAPI.describeConfigs

    /// v1+: another definition of a config, in the order the broker resolves them.
    package struct Synonym: Sendable, Equatable {
        /// The synonym's name, e.g. "log.retention.ms" for "retention.ms".
        package var name: String
        /// Its value, or nil.
        package var value: String?
        /// Where it comes from (see `Config.configSource`).
        package var source: Int8

        package init(name: String, value: String?, source: Int8) {
            self.name = name
            self.value = value
            self.source = source
        }
    }

    /// One config of a resource.
    package struct Config: Sendable, Equatable {
        /// The config name.
        package var name: String
        /// The value, or nil (e.g. when sensitive).
        package var value: String?
        /// Whether the config is read-only.
        package var readOnly: Bool
        /// v0 only: whether the value is the default (later versions say so in `configSource`).
        package var isDefault: Bool
        /// v1+: where the value comes from: 1 dynamic topic config, 4 static broker config,
        /// 5 default, …; -1 unknown.
        package var configSource: Int8
        /// Whether the value is sensitive.
        package var isSensitive: Bool
        /// v1+: the config's synonyms, when asked for.
        package var synonyms: [Synonym]
        /// v3+: the value's type: 1 boolean, 2 string, 3 int, 4 short, 5 long, 6 double, 7 list,
        /// 8 class, 9 password; 0 unknown.
        package var configType: Int8
        /// v3+: the config's documentation, or nil.
        package var documentation: String?

        package init(
            name: String,
            value: String?,
            readOnly: Bool = false,
            isDefault: Bool = false,
            configSource: Int8 = -1,
            isSensitive: Bool = false,
            synonyms: [Synonym] = [],
            configType: Int8 = 0,
            documentation: String? = nil
        ) {
            self.name = name
            self.value = value
            self.readOnly = readOnly
            self.isDefault = isDefault
            self.configSource = configSource
            self.isSensitive = isSensitive
            self.synonyms = synonyms
            self.configType = configType
            self.documentation = documentation
        }
    }

    /// The configs of one resource.
    package struct Result: Sendable, Equatable {
        /// The error code, or 0.
        package var errorCode: Int16
        /// A message for the error, or nil.
        package var errorMessage: String?
        /// The resource type, as in the request.
        package var resourceType: Int8
        /// The resource name, as in the request.
        package var resourceName: String
        /// The configs.
        package var configs: [Config]

        package init(errorCode: Int16 = 0, errorMessage: String? = nil, resourceType: Int8, resourceName: String, configs: [Config]) {
            self.errorCode = errorCode
            self.errorMessage = errorMessage
            self.resourceType = resourceType
            self.resourceName = resourceName
            self.configs = configs
        }
    }

    /// How long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The configs, per resource.
    package var results: [Result]

    package init(throttleTimeMs: Int32 = 0, results: [Result]) {
        self.throttleTimeMs = throttleTimeMs
        self.results = results
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        throttleTimeMs = try buffer.readKafkaInteger()
        results = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let result = Result(
                errorCode: try buffer.readKafkaInteger(),
                errorMessage: try buffer.readKafkaNullableString(compact: compact),
                resourceType: try buffer.readKafkaInteger(),
                resourceName: try buffer.readKafkaString(compact: compact),
                configs: try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                    try Config(from: &buffer, version: version)
                }
            )
            if compact { try buffer.skipKafkaTaggedFields() }
            return result
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(throttleTimeMs)
        buffer.writeKafkaArray(results, compact: compact) { result, buffer in
            buffer.writeInteger(result.errorCode)
            buffer.writeKafkaNullableString(result.errorMessage, compact: compact)
            buffer.writeInteger(result.resourceType)
            buffer.writeKafkaString(result.resourceName, compact: compact)
            buffer.writeKafkaArray(result.configs, compact: compact) { config, buffer in
                config.write(to: &buffer, version: version)
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}

extension DescribeConfigsResponse.Config {
    init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        let compact = DescribeConfigsResponse.api.isFlexible(version)
        self.init(
            name: try buffer.readKafkaString(compact: compact),
            value: try buffer.readKafkaNullableString(compact: compact),
            readOnly: try buffer.readKafkaBool()
        )
        // The same position holds is-default in v0 and the config source from v1 on.
        if version == 0 {
            isDefault = try buffer.readKafkaBool()
        } else {
            configSource = try buffer.readKafkaInteger()
        }
        isSensitive = try buffer.readKafkaBool()
        if version >= 1 {
            synonyms = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let synonym = DescribeConfigsResponse.Synonym(
                    name: try buffer.readKafkaString(compact: compact),
                    value: try buffer.readKafkaNullableString(compact: compact),
                    source: try buffer.readKafkaInteger()
                )
                if compact { try buffer.skipKafkaTaggedFields() }
                return synonym
            }
        }
        if version >= 3 {
            configType = try buffer.readKafkaInteger()
            documentation = try buffer.readKafkaNullableString(compact: compact)
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    func write(to buffer: inout ByteBuffer, version: Int16) {
        let compact = DescribeConfigsResponse.api.isFlexible(version)
        buffer.writeKafkaString(name, compact: compact)
        buffer.writeKafkaNullableString(value, compact: compact)
        buffer.writeKafkaBool(readOnly)
        if version == 0 {
            buffer.writeKafkaBool(isDefault)
        } else {
            buffer.writeInteger(configSource)
        }
        buffer.writeKafkaBool(isSensitive)
        if version >= 1 {
            buffer.writeKafkaArray(synonyms, compact: compact) { synonym, buffer in
                buffer.writeKafkaString(synonym.name, compact: compact)
                buffer.writeKafkaNullableString(synonym.value, compact: compact)
                buffer.writeInteger(synonym.source)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
        }
        if version >= 3 {
            buffer.writeInteger(configType)
            buffer.writeKafkaNullableString(documentation, compact: compact)
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
