import NIOCore

/// DescribeAcls response (key 29): the matching ACLs, grouped by resource pattern, or one error
/// (e.g. CLUSTER_AUTHORIZATION_FAILED, 31) for the whole request.
package struct DescribeAclsResponse: KafkaResponse {
    package static let api = KafkaAPI.describeAcls

    /// A resource pattern and its ACLs.
    package struct Resource: Sendable, Equatable {
        /// The resource type (2 = TOPIC, …).
        package var resourceType: Int8
        package var resourceName: String
        /// v1+: the pattern type (3 = LITERAL, 4 = PREFIXED); LITERAL in v0.
        package var patternType: Int8
        package var acls: [Acl]

        package init(resourceType: Int8, resourceName: String, patternType: Int8 = 3, acls: [Acl]) {
            self.resourceType = resourceType
            self.resourceName = resourceName
            self.patternType = patternType
            self.acls = acls
        }
    }

    /// One entry of a resource's access-control list.
    package struct Acl: Sendable, Equatable {
        package var principal: String
        package var host: String
        package var operation: Int8
        package var permissionType: Int8

        package init(principal: String, host: String, operation: Int8, permissionType: Int8) {
            self.principal = principal
            self.host = host
            self.operation = operation
            self.permissionType = permissionType
        }
    }

    /// How long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The error code, or 0.
    package var errorCode: Int16
    /// A message for the error, or nil.
    package var errorMessage: String?
    package var resources: [Resource]

    package init(throttleTimeMs: Int32 = 0, errorCode: Int16 = 0, errorMessage: String? = nil, resources: [Resource]) {
        self.throttleTimeMs = throttleTimeMs
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.resources = resources
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(
            throttleTimeMs: try buffer.readKafkaInteger(), errorCode: try buffer.readKafkaInteger(),
            errorMessage: try buffer.readKafkaNullableString(compact: compact), resources: [])
        resources = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var resource = Resource(resourceType: try buffer.readKafkaInteger(), resourceName: try buffer.readKafkaString(compact: compact), acls: [])
            if version >= 1 { resource.patternType = try buffer.readKafkaInteger() }
            resource.acls = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let acl = Acl(
                    principal: try buffer.readKafkaString(compact: compact), host: try buffer.readKafkaString(compact: compact),
                    operation: try buffer.readKafkaInteger(), permissionType: try buffer.readKafkaInteger())
                if compact { try buffer.skipKafkaTaggedFields() }
                return acl
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return resource
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(throttleTimeMs)
        buffer.writeInteger(errorCode)
        buffer.writeKafkaNullableString(errorMessage, compact: compact)
        buffer.writeKafkaArray(resources, compact: compact) { resource, buffer in
            buffer.writeInteger(resource.resourceType)
            buffer.writeKafkaString(resource.resourceName, compact: compact)
            if version >= 1 { buffer.writeInteger(resource.patternType) }
            buffer.writeKafkaArray(resource.acls, compact: compact) { acl, buffer in
                buffer.writeKafkaString(acl.principal, compact: compact)
                buffer.writeKafkaString(acl.host, compact: compact)
                buffer.writeInteger(acl.operation)
                buffer.writeInteger(acl.permissionType)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
