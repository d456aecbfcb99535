import NIOCore

/// CreateAcls request (key 30): ACL bindings to add.
package struct CreateAclsRequest: KafkaRequest {
    package typealias Response = CreateAclsResponse
    package static let api = KafkaAPI.createAcls

    /// One binding to create: a resource pattern and an access-control entry.
    package struct Creation: Sendable, Equatable {
        /// The resource type (2 = TOPIC, 3 = GROUP, 4 = CLUSTER, …).
        package var resourceType: Int8
        package var resourceName: String
        /// v1+: the pattern type (3 = LITERAL, 4 = PREFIXED); LITERAL in v0.
        package var patternType: Int8
        /// The principal, `User:alice` or `User:*`.
        package var principal: String
        /// The host the entry applies to, `*` for any.
        package var host: String
        /// The operation (2 = ALL, 3 = READ, 4 = WRITE, …).
        package var operation: Int8
        /// The permission type (3 = ALLOW, 2 = DENY).
        package var permissionType: Int8

        package init(
            resourceType: Int8, resourceName: String, patternType: Int8 = 3, principal: String, host: String, operation: Int8,
            permissionType: Int8
        ) {
            self.resourceType = resourceType
            self.resourceName = resourceName
            self.patternType = patternType
            self.principal = principal
            self.host = host
            self.operation = operation
            self.permissionType = permissionType
        }
    }

    package var creations: [Creation]

    package init(creations: [Creation]) {
        self.creations = creations
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(creations: [])
        creations = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var creation = Creation(
                resourceType: try buffer.readKafkaInteger(), resourceName: try buffer.readKafkaString(compact: compact), principal: "",
                host: "", operation: 0, permissionType: 0)
            if version >= 1 { creation.patternType = try buffer.readKafkaInteger() }
            creation.principal = try buffer.readKafkaString(compact: compact)
            creation.host = try buffer.readKafkaString(compact: compact)
            creation.operation = try buffer.readKafkaInteger()
            creation.permissionType = try buffer.readKafkaInteger()
            if compact { try buffer.skipKafkaTaggedFields() }
            return creation
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaArray(creations, compact: compact) { creation, buffer in
            buffer.writeInteger(creation.resourceType)
            buffer.writeKafkaString(creation.resourceName, compact: compact)
            if version >= 1 { buffer.writeInteger(creation.patternType) }
            buffer.writeKafkaString(creation.principal, compact: compact)
            buffer.writeKafkaString(creation.host, compact: compact)
            buffer.writeInteger(creation.operation)
            buffer.writeInteger(creation.permissionType)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
