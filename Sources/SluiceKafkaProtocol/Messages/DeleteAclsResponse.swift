import NIOCore

/// DeleteAcls response (key 31): per filter, an error or the ACLs it matched and deleted.
package struct DeleteAclsResponse: KafkaResponse {
    package static let api = KafkaAPI.deleteAcls

    /// The outcome of one filter.
    package struct FilterResult: Sendable, Equatable {
        /// The error code (e.g. CLUSTER_AUTHORIZATION_FAILED, 31), or 0.
        package var errorCode: Int16
        /// A message for the error, or nil.
        package var errorMessage: String?
        package var matchingAcls: [MatchingAcl]

        package init(errorCode: Int16 = 0, errorMessage: String? = nil, matchingAcls: [MatchingAcl]) {
            self.errorCode = errorCode
            self.errorMessage = errorMessage
            self.matchingAcls = matchingAcls
        }
    }

    /// One ACL a filter matched, and whether it was deleted.
    package struct MatchingAcl: Sendable, Equatable {
        /// The deletion's error code, or 0.
        package var errorCode: Int16
        /// A message for the error, or nil.
        package var errorMessage: String?
        package var resourceType: Int8
        package var resourceName: String
        /// v1+: the pattern type (3 = LITERAL, 4 = PREFIXED); LITERAL in v0.
        package var patternType: Int8
        package var principal: String
        package var host: String
        package var operation: Int8
        package var permissionType: Int8

        package init(
            errorCode: Int16 = 0, errorMessage: String? = nil, resourceType: Int8, resourceName: String, patternType: Int8 = 3,
            principal: String, host: String, operation: Int8, permissionType: Int8
        ) {
            self.errorCode = errorCode
            self.errorMessage = errorMessage
            self.resourceType = resourceType
            self.resourceName = resourceName
            self.patternType = patternType
            self.principal = principal
            self.host = host
            self.operation = operation
            self.permissionType = permissionType
        }
    }

    /// How long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// One result per filter, in the request's order.
    package var filterResults: [FilterResult]

    package init(throttleTimeMs: Int32 = 0, filterResults: [FilterResult]) {
        self.throttleTimeMs = throttleTimeMs
        self.filterResults = filterResults
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(throttleTimeMs: try buffer.readKafkaInteger(), filterResults: [])
        filterResults = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var result = FilterResult(
                errorCode: try buffer.readKafkaInteger(), errorMessage: try buffer.readKafkaNullableString(compact: compact), matchingAcls: [])
            result.matchingAcls = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                var acl = MatchingAcl(
                    errorCode: try buffer.readKafkaInteger(), errorMessage: try buffer.readKafkaNullableString(compact: compact),
                    resourceType: try buffer.readKafkaInteger(), resourceName: try buffer.readKafkaString(compact: compact), principal: "",
                    host: "", operation: 0, permissionType: 0)
                if version >= 1 { acl.patternType = try buffer.readKafkaInteger() }
                acl.principal = try buffer.readKafkaString(compact: compact)
                acl.host = try buffer.readKafkaString(compact: compact)
                acl.operation = try buffer.readKafkaInteger()
                acl.permissionType = try buffer.readKafkaInteger()
                if compact { try buffer.skipKafkaTaggedFields() }
                return acl
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return result
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(throttleTimeMs)
        buffer.writeKafkaArray(filterResults, compact: compact) { result, buffer in
            buffer.writeInteger(result.errorCode)
            buffer.writeKafkaNullableString(result.errorMessage, compact: compact)
            buffer.writeKafkaArray(result.matchingAcls, compact: compact) { acl, buffer in
                buffer.writeInteger(acl.errorCode)
                buffer.writeKafkaNullableString(acl.errorMessage, compact: compact)
                buffer.writeInteger(acl.resourceType)
                buffer.writeKafkaString(acl.resourceName, compact: compact)
                if version >= 1 { buffer.writeInteger(acl.patternType) }
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
