import NIOCore

/// DescribeAcls request (key 29): the ACLs that match one filter.
package struct DescribeAclsRequest: KafkaRequest {
    package typealias Response = DescribeAclsResponse
    package static let api = KafkaAPI.describeAcls

    /// Which ACLs to describe.
    package var filter: AclBindingFilter

    package init(filter: AclBindingFilter) {
        self.filter = filter
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(filter: try AclBindingFilter(from: &buffer, version: version, compact: compact))
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        filter.write(to: &buffer, version: version, compact: compact)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
