import NIOCore

/// AlterConfigs request (key 33): replace the dynamic configs of topics or brokers.
///
/// Every dynamic config of a resource that the request does not name is reset to its default;
/// IncrementalAlterConfigs (key 44) changes single configs instead.
package struct AlterConfigsRequest: KafkaRequest {
    package typealias Response = AlterConfigsResponse
    package static let api = KafkaAPI.alterConfigs

    /// One config to set.
    package struct Config: Sendable, Equatable {
        /// The config name.
        package var name: String
        /// The value to set, or nil.
        package var value: String?

        package init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// A resource whose configs to replace.
    package struct Resource: Sendable, Equatable {
        /// The resource type: 2 topic, 4 broker, 8 broker logger.
        package var resourceType: Int8
        /// The resource name: a topic name, or a broker id as text ("" for the cluster default).
        package var resourceName: String
        /// The resource's new dynamic configs, all of them.
        package var configs: [Config]

        package init(resourceType: Int8, resourceName: String, configs: [Config]) {
            self.resourceType = resourceType
            self.resourceName = resourceName
            self.configs = configs
        }
    }

    /// The resources to change.
    package var resources: [Resource]
    /// Check the request without changing anything.
    package var validateOnly: Bool

    package init(resources: [Resource], validateOnly: Bool = false) {
        self.resources = resources
        self.validateOnly = validateOnly
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        resources = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let resourceType: Int8 = try buffer.readKafkaInteger()
            let resourceName = try buffer.readKafkaString(compact: compact)
            let configs = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let config = Config(name: try buffer.readKafkaString(compact: compact), value: try buffer.readKafkaNullableString(compact: compact))
                if compact { try buffer.skipKafkaTaggedFields() }
                return config
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return Resource(resourceType: resourceType, resourceName: resourceName, configs: configs)
        }
        validateOnly = try buffer.readKafkaBool()
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaArray(resources, compact: compact) { resource, buffer in
            buffer.writeInteger(resource.resourceType)
            buffer.writeKafkaString(resource.resourceName, compact: compact)
            buffer.writeKafkaArray(resource.configs, compact: compact) { config, buffer in
                buffer.writeKafkaString(config.name, compact: compact)
                buffer.writeKafkaNullableString(config.value, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        buffer.writeKafkaBool(validateOnly)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
