import NIOCore

/// LeaveGroup request (key 13): members leave a group. Versions 0–2 name one member (`MemberId`);
/// v3 lists several, with their static ids (KIP-345).
package struct LeaveGroupRequest: KafkaRequest {
    package typealias Response = LeaveGroupResponse
    package static let api = KafkaAPI.leaveGroup

    /// A member that leaves.
    package struct Member: Sendable, Equatable {
        /// The member id.
        package var memberID: String
        /// v3+: the static member id, or nil.
        package var groupInstanceID: String?
        /// v5+: why the member leaves, for the broker's log, or nil.
        package var reason: String?

        package init(memberID: String, groupInstanceID: String? = nil, reason: String? = nil) {
            self.memberID = memberID
            self.groupInstanceID = groupInstanceID
            self.reason = reason
        }
    }

    /// The group id.
    package var groupID: String
    /// The members that leave. Versions 0–2 carry exactly one; only the first is written there.
    package var members: [Member]

    package init(groupID: String, members: [Member]) {
        self.groupID = groupID
        self.members = members
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        groupID = try buffer.readKafkaString(compact: compact)
        if version >= 3 {
            members = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                var member = Member(memberID: try buffer.readKafkaString(compact: compact))
                member.groupInstanceID = try buffer.readKafkaNullableString(compact: compact)
                if version >= 5 { member.reason = try buffer.readKafkaNullableString(compact: compact) }
                if compact { try buffer.skipKafkaTaggedFields() }
                return member
            }
        } else {
            members = [Member(memberID: try buffer.readKafkaString(compact: compact))]
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaString(groupID, compact: compact)
        if version >= 3 {
            buffer.writeKafkaArray(members, compact: compact) { member, buffer in
                buffer.writeKafkaString(member.memberID, compact: compact)
                buffer.writeKafkaNullableString(member.groupInstanceID, compact: compact)
                if version >= 5 { buffer.writeKafkaNullableString(member.reason, compact: compact) }
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
        } else {
            buffer.writeKafkaString(members.first?.memberID ?? "", compact: compact)
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
