import NIOCore

/// DescribeGroups response (key 15): each group's state, protocol and members with their
/// subscriptions and assignments.
package struct DescribeGroupsResponse: KafkaResponse {
    package static let api = KafkaAPI.describeGroups

    /// A member of a group.
    package struct Member: Sendable, Equatable {
        /// The member id.
        package var memberID: String
        /// v4+: the static member id, or nil.
        package var groupInstanceID: String?
        /// The client id the member connected with.
        package var clientID: String
        /// The host the member connected from.
        package var clientHost: String
        /// The member's subscription, in the group protocol's format.
        package var memberMetadata: ByteBuffer
        /// The member's assignment, in the group protocol's format.
        package var memberAssignment: ByteBuffer

        package init(
            memberID: String,
            groupInstanceID: String? = nil,
            clientID: String,
            clientHost: String,
            memberMetadata: ByteBuffer,
            memberAssignment: ByteBuffer
        ) {
            self.memberID = memberID
            self.groupInstanceID = groupInstanceID
            self.clientID = clientID
            self.clientHost = clientHost
            self.memberMetadata = memberMetadata
            self.memberAssignment = memberAssignment
        }
    }

    /// One group.
    package struct Group: Sendable, Equatable {
        /// The error code, or 0.
        package var errorCode: Int16
        /// The group id.
        package var groupID: String
        /// The group state: "Stable", "PreparingRebalance", "CompletingRebalance", "Empty", "Dead".
        package var groupState: String
        /// The protocol type, e.g. "consumer", or "".
        package var protocolType: String
        /// The chosen protocol, e.g. "range", or "".
        package var protocolData: String
        /// The members.
        package var members: [Member]
        /// v3+: a bit field of the operations the client may perform on the group.
        package var authorizedOperations: Int32

        package init(
            errorCode: Int16 = 0,
            groupID: String,
            groupState: String,
            protocolType: String,
            protocolData: String,
            members: [Member],
            authorizedOperations: Int32 = Int32.min
        ) {
            self.errorCode = errorCode
            self.groupID = groupID
            self.groupState = groupState
            self.protocolType = protocolType
            self.protocolData = protocolData
            self.members = members
            self.authorizedOperations = authorizedOperations
        }
    }

    /// v1+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The groups.
    package var groups: [Group]

    package init(throttleTimeMs: Int32 = 0, groups: [Group]) {
        self.throttleTimeMs = throttleTimeMs
        self.groups = groups
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(groups: [])
        if version >= 1 { throttleTimeMs = try buffer.readKafkaInteger() }
        groups = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var group = Group(
                errorCode: try buffer.readKafkaInteger(),
                groupID: try buffer.readKafkaString(compact: compact),
                groupState: try buffer.readKafkaString(compact: compact),
                protocolType: try buffer.readKafkaString(compact: compact),
                protocolData: try buffer.readKafkaString(compact: compact),
                members: []
            )
            group.members = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                var member = Member(
                    memberID: try buffer.readKafkaString(compact: compact),
                    clientID: "",
                    clientHost: "",
                    memberMetadata: ByteBuffer(),
                    memberAssignment: ByteBuffer()
                )
                if version >= 4 { member.groupInstanceID = try buffer.readKafkaNullableString(compact: compact) }
                member.clientID = try buffer.readKafkaString(compact: compact)
                member.clientHost = try buffer.readKafkaString(compact: compact)
                member.memberMetadata = try buffer.readKafkaBytes(compact: compact)
                member.memberAssignment = try buffer.readKafkaBytes(compact: compact)
                if compact { try buffer.skipKafkaTaggedFields() }
                return member
            }
            if version >= 3 { group.authorizedOperations = try buffer.readKafkaInteger() }
            if compact { try buffer.skipKafkaTaggedFields() }
            return group
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 1 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeKafkaArray(groups, compact: compact) { group, buffer in
            buffer.writeInteger(group.errorCode)
            buffer.writeKafkaString(group.groupID, compact: compact)
            buffer.writeKafkaString(group.groupState, compact: compact)
            buffer.writeKafkaString(group.protocolType, compact: compact)
            buffer.writeKafkaString(group.protocolData, compact: compact)
            buffer.writeKafkaArray(group.members, compact: compact) { member, buffer in
                buffer.writeKafkaString(member.memberID, compact: compact)
                if version >= 4 { buffer.writeKafkaNullableString(member.groupInstanceID, compact: compact) }
                buffer.writeKafkaString(member.clientID, compact: compact)
                buffer.writeKafkaString(member.clientHost, compact: compact)
                buffer.writeKafkaBytes(member.memberMetadata, compact: compact)
                buffer.writeKafkaBytes(member.memberAssignment, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if version >= 3 { buffer.writeInteger(group.authorizedOperations) }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
