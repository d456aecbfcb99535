import NIOCore

/// SyncGroup request (key 14): after a join, every member asks for its assignment; the leader
/// sends the assignments of all members.
package struct SyncGroupRequest: KafkaRequest {
    package typealias Response = SyncGroupResponse
    package static let api = KafkaAPI.syncGroup

    /// The assignment of one member, computed by the leader.
    package struct Assignment: Sendable, Equatable {
        /// The member id.
        package var memberID: String
        /// The assignment in the protocol's format (ConsumerProtocolAssignment).
        package var assignment: ByteBuffer

        package init(memberID: String, assignment: ByteBuffer) {
            self.memberID = memberID
            self.assignment = assignment
        }
    }

    /// The group id.
    package var groupID: String
    /// The generation from the JoinGroup response.
    package var generationID: Int32
    /// The member id.
    package var memberID: String
    /// v3+: the static member id, or nil.
    package var groupInstanceID: String?
    /// v5+: the group's protocol type, to check against the coordinator's, or nil.
    package var protocolType: String?
    /// v5+: the chosen protocol, to check against the coordinator's, or nil.
    package var protocolName: String?
    /// Every member's assignment when sent by the leader; empty from the others.
    package var assignments: [Assignment]

    package init(
        groupID: String,
        generationID: Int32,
        memberID: String,
        groupInstanceID: String? = nil,
        protocolType: String? = nil,
        protocolName: String? = nil,
        assignments: [Assignment] = []
    ) {
        self.groupID = groupID
        self.generationID = generationID
        self.memberID = memberID
        self.groupInstanceID = groupInstanceID
        self.protocolType = protocolType
        self.protocolName = protocolName
        self.assignments = assignments
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(
            groupID: try buffer.readKafkaString(compact: compact),
            generationID: try buffer.readKafkaInteger(),
            memberID: try buffer.readKafkaString(compact: compact)
        )
        if version >= 3 { groupInstanceID = try buffer.readKafkaNullableString(compact: compact) }
        if version >= 5 {
            protocolType = try buffer.readKafkaNullableString(compact: compact)
            protocolName = try buffer.readKafkaNullableString(compact: compact)
        }
        assignments = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let assignment = Assignment(memberID: try buffer.readKafkaString(compact: compact), assignment: try buffer.readKafkaBytes(compact: compact))
            if compact { try buffer.skipKafkaTaggedFields() }
            return assignment
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaString(groupID, compact: compact)
        buffer.writeInteger(generationID)
        buffer.writeKafkaString(memberID, compact: compact)
        if version >= 3 { buffer.writeKafkaNullableString(groupInstanceID, compact: compact) }
        if version >= 5 {
            buffer.writeKafkaNullableString(protocolType, compact: compact)
            buffer.writeKafkaNullableString(protocolName, compact: compact)
        }
        buffer.writeKafkaArray(assignments, compact: compact) { assignment, buffer in
            buffer.writeKafkaString(assignment.memberID, compact: compact)
            buffer.writeKafkaBytes(assignment.assignment, compact: compact)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
