import NIOCore

/// Which ACLs a DescribeAcls request, or one filter of a DeleteAcls request, selects: the fields
/// the two share (Kafka's `AclBindingFilter`). Codes stay raw, as Kafka's `ResourceType`,
/// `PatternType`, `AclOperation` and `AclPermissionType` number them; ANY (1) matches every value.
package struct AclBindingFilter: Sendable, Equatable {
    /// The resource type (2 = TOPIC, 1 = ANY, …).
    package var resourceType: Int8
    /// The resource name, or nil for any.
    package var resourceName: String?
    /// v1+: the pattern type (3 = LITERAL, 4 = PREFIXED, 1 = ANY, 2 = MATCH); LITERAL in v0.
    package var patternType: Int8
    /// The principal (`User:alice`), or nil for any.
    package var principal: String?
    /// The host, or nil for any.
    package var host: String?
    /// The operation (3 = READ, 4 = WRITE, 1 = ANY, …).
    package var operation: Int8
    /// The permission type (3 = ALLOW, 2 = DENY, 1 = ANY).
    package var permissionType: Int8

    package init(
        resourceType: Int8, resourceName: String?, patternType: Int8 = 3, principal: String?, host: String?, operation: Int8,
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

    /// Reads the filter's fields (without tagged fields, which the message around them owns).
    init(from buffer: inout ByteBuffer, version: Int16, compact: Bool) throws(KafkaDecodingError) {
        self.init(
            resourceType: try buffer.readKafkaInteger(), resourceName: try buffer.readKafkaNullableString(compact: compact),
            principal: nil, host: nil, operation: 0, permissionType: 0)
        if version >= 1 { patternType = try buffer.readKafkaInteger() }
        principal = try buffer.readKafkaNullableString(compact: compact)
        host = try buffer.readKafkaNullableString(compact: compact)
        operation = try buffer.readKafkaInteger()
        permissionType = try buffer.readKafkaInteger()
    }

    func write(to buffer: inout ByteBuffer, version: Int16, compact: Bool) {
        buffer.writeInteger(resourceType)
        buffer.writeKafkaNullableString(resourceName, compact: compact)
        if version >= 1 { buffer.writeInteger(patternType) }
        buffer.writeKafkaNullableString(principal, compact: compact)
        buffer.writeKafkaNullableString(host, compact: compact)
        buffer.writeInteger(operation)
        buffer.writeInteger(permissionType)
    }
}
