import NIOCore

/// IncrementalAlterConfigs request (key 44): set, delete, append to or subtract from single
/// configs of topics or brokers, leaving the others as they are (KIP-339).
package struct IncrementalAlterConfigsRequest: KafkaRequest {
    package typealias Response = IncrementalAlterConfigsResponse
    package static let api = KafkaAPI.incrementalAlterConfigs

    /// One change to a config.
    package struct Config: Sendable, Equatable {
        /// The config name.
        package var name: String
        /// The operation: 0 set, 1 delete (back to the default), 2 append to a list, 3 subtract
        /// from a list.
        package var configOperation: Int8
        /// The value to set, append or subtract, or nil (for a delete).
        package var value: String?

        package init(name: String, configOperation: Int8, value: String?) {
            self.name = name
            self.configOperation = configOperation
            self.value = value
        }
    }

    /// A resource whose configs to change.
    package struct Resource: Sendable, Equatable {
        /// The resource type: 2 topic, 4 broker, 8 broker logger.
        package var resourceType: Int8
        /// The resource name: a topic name, or a broker id as text ("" for the cluster default).
        package var resourceName: String
        /// The changes.
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
                let config = Config(
                    name: try buffer.readKafkaString(compact: compact),
                    configOperation: try buffer.readKafkaInteger(),
                    value: try buffer.readKafkaNullableString(compact: compact)
                )
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
                buffer.writeInteger(config.configOperation)
                buffer.writeKafkaNullableString(config.value, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        buffer.writeKafkaBool(validateOnly)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
