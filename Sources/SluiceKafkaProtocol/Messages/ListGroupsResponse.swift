import NIOCore

/// ListGroups response (key 16): the groups, with their protocol types.
package struct ListGroupsResponse: KafkaResponse {
    package static let api = KafkaAPI.listGroups

    /// One group.
    package struct Group: Sendable, Equatable {
        /// The group id.
        package var groupID: String
        /// The protocol type, "consumer" for consumer groups, "" for groups that only commit.
        package var protocolType: String
        /// v4+: the group state, e.g. "Stable".
        package var groupState: String
        /// v5+: the group type, "classic" or "consumer".
        package var groupType: String

        package init(groupID: String, protocolType: String, groupState: String = "", groupType: String = "") {
            self.groupID = groupID
            self.protocolType = protocolType
            self.groupState = groupState
            self.groupType = groupType
        }
    }

    /// v1+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The error code, or 0.
    package var errorCode: Int16
    /// The groups.
    package var groups: [Group]

    package init(throttleTimeMs: Int32 = 0, errorCode: Int16 = 0, groups: [Group]) {
        self.throttleTimeMs = throttleTimeMs
        self.errorCode = errorCode
        self.groups = groups
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(groups: [])
        if version >= 1 { throttleTimeMs = try buffer.readKafkaInteger() }
        errorCode = try buffer.readKafkaInteger()
        groups = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var group = Group(groupID: try buffer.readKafkaString(compact: compact), protocolType: try buffer.readKafkaString(compact: compact))
            if version >= 4 { group.groupState = try buffer.readKafkaString(compact: compact) }
            if version >= 5 { group.groupType = try buffer.readKafkaString(compact: compact) }
            if compact { try buffer.skipKafkaTaggedFields() }
            return group
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 1 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeInteger(errorCode)
        buffer.writeKafkaArray(groups, compact: compact) { group, buffer in
            buffer.writeKafkaString(group.groupID, compact: compact)
            buffer.writeKafkaString(group.protocolType, compact: compact)
            if version >= 4 { buffer.writeKafkaString(group.groupState, compact: compact) }
            if version >= 5 { buffer.writeKafkaString(group.groupType, compact: compact) }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
