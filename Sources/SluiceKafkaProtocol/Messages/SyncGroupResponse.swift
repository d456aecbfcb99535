import NIOCore

/// SyncGroup response (key 14): the member's assignment.
package struct SyncGroupResponse: KafkaResponse {
    package static let api = KafkaAPI.syncGroup

    /// v1+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The error code, or 0.
    package var errorCode: Int16
    /// v5+: the group's protocol type, or nil.
    package var protocolType: String?
    /// v5+: the chosen protocol, or nil.
    package var protocolName: String?
    /// The member's assignment, in the protocol's format.
    package var assignment: ByteBuffer

    package init(throttleTimeMs: Int32 = 0, errorCode: Int16 = 0, protocolType: String? = nil, protocolName: String? = nil, assignment: ByteBuffer) {
        self.throttleTimeMs = throttleTimeMs
        self.errorCode = errorCode
        self.protocolType = protocolType
        self.protocolName = protocolName
        self.assignment = assignment
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(assignment: ByteBuffer())
        if version >= 1 { throttleTimeMs = try buffer.readKafkaInteger() }
        errorCode = try buffer.readKafkaInteger()
        if version >= 5 {
            protocolType = try buffer.readKafkaNullableString(compact: compact)
            protocolName = try buffer.readKafkaNullableString(compact: compact)
        }
        assignment = try buffer.readKafkaBytes(compact: compact)
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 1 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeInteger(errorCode)
        if version >= 5 {
            buffer.writeKafkaNullableString(protocolType, compact: compact)
            buffer.writeKafkaNullableString(protocolName, compact: compact)
        }
        buffer.writeKafkaBytes(assignment, compact: compact)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
