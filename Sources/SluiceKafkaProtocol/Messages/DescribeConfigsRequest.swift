import NIOCore

/// DescribeConfigs request (key 32): the configs of topics or brokers.
package struct DescribeConfigsRequest: KafkaRequest {
    package typealias Response = DescribeConfigsResponse
    package static let api = KafkaAPI.describeConfigs

    /// A resource whose configs to describe.
    package struct Resource: Sendable, Equatable {
        /// The resource type: 2 topic, 4 broker, 8 broker logger.
        package var resourceType: Int8
        /// The resource name: a topic name, or a broker id as text.
        package var resourceName: String
        /// The config names to describe, or nil for all.
        package var configurationKeys: [String]?

        package init(resourceType: Int8, resourceName: String, configurationKeys: [String]? = nil) {
            self.resourceType = resourceType
            self.resourceName = resourceName
            self.configurationKeys = configurationKeys
        }
    }

    /// The resources to describe.
    package var resources: [Resource]
    /// v1+: whether to return each config's synonyms.
    package var includeSynonyms: Bool
    /// v3+: whether to return each config's documentation.
    package var includeDocumentation: Bool

    package init(resources: [Resource], includeSynonyms: Bool = false, includeDocumentation: Bool = false) {
        self.resources = resources
        self.includeSynonyms = includeSynonyms
        self.includeDocumentation = includeDocumentation
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(resources: [])
        resources = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let resource = Resource(
                resourceType: try buffer.readKafkaInteger(),
                resourceName: try buffer.readKafkaString(compact: compact),
                configurationKeys: try buffer.readKafkaNullableStringArray(compact: compact)
            )
            if compact { try buffer.skipKafkaTaggedFields() }
            return resource
        }
        if version >= 1 { includeSynonyms = try buffer.readKafkaBool() }
        if version >= 3 { includeDocumentation = try buffer.readKafkaBool() }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaArray(resources, compact: compact) { resource, buffer in
            buffer.writeInteger(resource.resourceType)
            buffer.writeKafkaString(resource.resourceName, compact: compact)
            buffer.writeKafkaNullableStringArray(resource.configurationKeys, compact: compact)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if version >= 1 { buffer.writeKafkaBool(includeSynonyms) }
        if version >= 3 { buffer.writeKafkaBool(includeDocumentation) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
