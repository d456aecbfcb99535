import NIOCore

/// Heartbeat request (key 12): a group member says it is alive between rebalances.
package struct HeartbeatRequest: KafkaRequest {
    package typealias Response = HeartbeatResponse
    package static let api = KafkaAPI.heartbeat

    /// The group id.
    package var groupID: String
    /// The generation the member belongs to.
    package var generationID: Int32
    /// The member id the coordinator assigned.
    package var memberID: String
    /// v3+: the static member id (KIP-345), or nil.
    package var groupInstanceID: String?

    package init(groupID: String, generationID: Int32, memberID: String, groupInstanceID: String? = nil) {
        self.groupID = groupID
        self.generationID = generationID
        self.memberID = memberID
        self.groupInstanceID = groupInstanceID
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
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaString(groupID, compact: compact)
        buffer.writeInteger(generationID)
        buffer.writeKafkaString(memberID, compact: compact)
        if version >= 3 { buffer.writeKafkaNullableString(groupInstanceID, compact: compact) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
