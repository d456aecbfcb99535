import NIOCore

/// JoinGroup response (key 11): the new generation, the chosen protocol and the leader; the
/// leader also gets every member's subscription, to compute the assignment it sends in SyncGroup.
package struct JoinGroupResponse: KafkaResponse {
    package static let api = KafkaAPI.joinGroup

    /// A member of the group, as the leader sees it.
    package struct Member: Sendable, Equatable {
        /// The member id.
        package var memberID: String
        /// v5+: the static member id, or nil.
        package var groupInstanceID: String?
        /// The member's subscription in the chosen protocol.
        package var metadata: ByteBuffer

        package init(memberID: String, groupInstanceID: String? = nil, metadata: ByteBuffer) {
            self.memberID = memberID
            self.groupInstanceID = groupInstanceID
            self.metadata = metadata
        }
    }

    /// v2+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The error code (e.g. MEMBER_ID_REQUIRED, 79, with the id to rejoin with), or 0.
    package var errorCode: Int16
    /// The generation id, or -1.
    package var generationID: Int32
    /// v7+: the group's protocol type, or nil.
    package var protocolType: String?
    /// The chosen assignment protocol; nil only from v7 on (written as "" before).
    package var protocolName: String?
    /// The leader's member id.
    package var leader: String
    /// v9+: whether the leader should skip computing the assignment (KIP-814).
    package var skipAssignment: Bool
    /// The member id of the member that joined.
    package var memberID: String
    /// Every member's subscription, for the leader; empty for the others.
    package var members: [Member]

    package init(
        throttleTimeMs: Int32 = 0,
        errorCode: Int16 = 0,
        generationID: Int32 = -1,
        protocolType: String? = nil,
        protocolName: String?,
        leader: String,
        skipAssignment: Bool = false,
        memberID: String,
        members: [Member] = []
    ) {
        self.throttleTimeMs = throttleTimeMs
        self.errorCode = errorCode
        self.generationID = generationID
        self.protocolType = protocolType
        self.protocolName = protocolName
        self.leader = leader
        self.skipAssignment = skipAssignment
        self.memberID = memberID
        self.members = members
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(protocolName: nil, leader: "", memberID: "")
        if version >= 2 { throttleTimeMs = try buffer.readKafkaInteger() }
        errorCode = try buffer.readKafkaInteger()
        generationID = try buffer.readKafkaInteger()
        if version >= 7 {
            protocolType = try buffer.readKafkaNullableString(compact: compact)
            protocolName = try buffer.readKafkaNullableString(compact: compact)
        } else {
            protocolName = try buffer.readKafkaString(compact: compact)
        }
        leader = try buffer.readKafkaString(compact: compact)
        if version >= 9 { skipAssignment = try buffer.readKafkaBool() }
        memberID = try buffer.readKafkaString(compact: compact)
        members = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var member = Member(memberID: try buffer.readKafkaString(compact: compact), metadata: ByteBuffer())
            if version >= 5 { member.groupInstanceID = try buffer.readKafkaNullableString(compact: compact) }
            member.metadata = try buffer.readKafkaBytes(compact: compact)
            if compact { try buffer.skipKafkaTaggedFields() }
            return member
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 2 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeInteger(errorCode)
        buffer.writeInteger(generationID)
        if version >= 7 {
            buffer.writeKafkaNullableString(protocolType, compact: compact)
            buffer.writeKafkaNullableString(protocolName, compact: compact)
        } else {
            buffer.writeKafkaString(protocolName ?? "", compact: compact)
        }
        buffer.writeKafkaString(leader, compact: compact)
        if version >= 9 { buffer.writeKafkaBool(skipAssignment) }
        buffer.writeKafkaString(memberID, compact: compact)
        buffer.writeKafkaArray(members, compact: compact) { member, buffer in
            buffer.writeKafkaString(member.memberID, compact: compact)
            if version >= 5 { buffer.writeKafkaNullableString(member.groupInstanceID, compact: compact) }
            buffer.writeKafkaBytes(member.metadata, compact: compact)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
