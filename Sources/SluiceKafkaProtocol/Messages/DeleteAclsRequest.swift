import NIOCore

/// DeleteAcls request (key 31): filters; every ACL a filter matches is deleted.
package struct DeleteAclsRequest: KafkaRequest {
    package typealias Response = DeleteAclsResponse
    package static let api = KafkaAPI.deleteAcls

    package var filters: [AclBindingFilter]

    package init(filters: [AclBindingFilter]) {
        self.filters = filters
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(filters: [])
        filters = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let filter = try AclBindingFilter(from: &buffer, version: version, compact: compact)
            if compact { try buffer.skipKafkaTaggedFields() }
            return filter
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaArray(filters, compact: compact) { filter, buffer in
            filter.write(to: &buffer, version: version, compact: compact)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
