import NIOCore

/// LeaveGroup response (key 13): the outcome, and from v3 on the outcome per member.
package struct LeaveGroupResponse: KafkaResponse {
    package static let api = KafkaAPI.leaveGroup

    /// v3+: the outcome for one member.
    package struct Member: Sendable, Equatable {
        /// The member id.
        package var memberID: String
        /// The static member id, or nil.
        package var groupInstanceID: String?
        /// The error code (e.g. UNKNOWN_MEMBER_ID, 25), or 0.
        package var errorCode: Int16

        package init(memberID: String, groupInstanceID: String? = nil, errorCode: Int16 = 0) {
            self.memberID = memberID
            self.groupInstanceID = groupInstanceID
            self.errorCode = errorCode
        }
    }

    /// v1+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The top-level error code, or 0.
    package var errorCode: Int16
    /// v3+: the outcome per member.
    package var members: [Member]

    package init(throttleTimeMs: Int32 = 0, errorCode: Int16 = 0, members: [Member] = []) {
        self.throttleTimeMs = throttleTimeMs
        self.errorCode = errorCode
        self.members = members
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init()
        if version >= 1 { throttleTimeMs = try buffer.readKafkaInteger() }
        errorCode = try buffer.readKafkaInteger()
        if version >= 3 {
            members = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let member = Member(
                    memberID: try buffer.readKafkaString(compact: compact),
                    groupInstanceID: try buffer.readKafkaNullableString(compact: compact),
                    errorCode: try buffer.readKafkaInteger()
                )
                if compact { try buffer.skipKafkaTaggedFields() }
                return member
            }
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 1 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeInteger(errorCode)
        if version >= 3 {
            buffer.writeKafkaArray(members, compact: compact) { member, buffer in
                buffer.writeKafkaString(member.memberID, compact: compact)
                buffer.writeKafkaNullableString(member.groupInstanceID, compact: compact)
                buffer.writeInteger(member.errorCode)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
