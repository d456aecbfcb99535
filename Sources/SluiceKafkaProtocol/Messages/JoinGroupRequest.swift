import NIOCore

/// JoinGroup request (key 11): a consumer joins a group, or rejoins it for a rebalance, offering
/// the assignment protocols (e.g. "range", "cooperative-sticky") it supports.
package struct JoinGroupRequest: KafkaRequest {
    package typealias Response = JoinGroupResponse
    package static let api = KafkaAPI.joinGroup

    /// An assignment protocol the member supports, with its subscription.
    package struct GroupProtocol: Sendable, Equatable {
        /// The protocol name, e.g. "range".
        package var name: String
        /// The member's subscription in that protocol's format (ConsumerProtocolSubscription).
        package var metadata: ByteBuffer

        package init(name: String, metadata: ByteBuffer) {
            self.name = name
            self.metadata = metadata
        }
    }

    /// The group id.
    package var groupID: String
    /// How long the coordinator waits for a heartbeat before removing the member, in milliseconds.
    package var sessionTimeoutMs: Int32
    /// v1+: how long the coordinator waits for members to rejoin during a rebalance, or -1
    /// (version 0 uses the session timeout).
    package var rebalanceTimeoutMs: Int32
    /// The member id from an earlier join, or "" on the first join.
    package var memberID: String
    /// v5+: the static member id (KIP-345), or nil.
    package var groupInstanceID: String?
    /// The protocol type, "consumer" for consumer groups.
    package var protocolType: String
    /// The assignment protocols the member supports, preferred first.
    package var protocols: [GroupProtocol]
    /// v8+: why the member joins, for the broker's log, or nil.
    package var reason: String?

    package init(
        groupID: String,
        sessionTimeoutMs: Int32,
        rebalanceTimeoutMs: Int32 = -1,
        memberID: String,
        groupInstanceID: String? = nil,
        protocolType: String,
        protocols: [GroupProtocol],
        reason: String? = nil
    ) {
        self.groupID = groupID
        self.sessionTimeoutMs = sessionTimeoutMs
        self.rebalanceTimeoutMs = rebalanceTimeoutMs
        self.memberID = memberID
        self.groupInstanceID = groupInstanceID
        self.protocolType = protocolType
        self.protocols = protocols
        self.reason = reason
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(groupID: try buffer.readKafkaString(compact: compact), sessionTimeoutMs: try buffer.readKafkaInteger(), memberID: "", protocolType: "", protocols: [])
        if version >= 1 { rebalanceTimeoutMs = try buffer.readKafkaInteger() }
        memberID = try buffer.readKafkaString(compact: compact)
        if version >= 5 { groupInstanceID = try buffer.readKafkaNullableString(compact: compact) }
        protocolType = try buffer.readKafkaString(compact: compact)
        protocols = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let offered = GroupProtocol(name: try buffer.readKafkaString(compact: compact), metadata: try buffer.readKafkaBytes(compact: compact))
            if compact { try buffer.skipKafkaTaggedFields() }
            return offered
        }
        if version >= 8 { reason = try buffer.readKafkaNullableString(compact: compact) }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaString(groupID, compact: compact)
        buffer.writeInteger(sessionTimeoutMs)
        if version >= 1 { buffer.writeInteger(rebalanceTimeoutMs) }
        buffer.writeKafkaString(memberID, compact: compact)
        if version >= 5 { buffer.writeKafkaNullableString(groupInstanceID, compact: compact) }
        buffer.writeKafkaString(protocolType, compact: compact)
        buffer.writeKafkaArray(protocols, compact: compact) { offered, buffer in
            buffer.writeKafkaString(offered.name, compact: compact)
            buffer.writeKafkaBytes(offered.metadata, compact: compact)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if version >= 8 { buffer.writeKafkaNullableString(reason, compact: compact) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
