import NIOCore

/// ListGroups request (key 16): the groups the broker coordinates, optionally filtered.
package struct ListGroupsRequest: KafkaRequest {
    package typealias Response = ListGroupsResponse
    package static let api = KafkaAPI.listGroups

    /// v4+: only groups in these states (e.g. "Stable", "Empty"); empty for all.
    package var statesFilter: [String]
    /// v5+: only groups of these types ("classic", "consumer"); empty for all.
    package var typesFilter: [String]

    package init(statesFilter: [String] = [], typesFilter: [String] = []) {
        self.statesFilter = statesFilter
        self.typesFilter = typesFilter
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init()
        if version >= 4 { statesFilter = try buffer.readKafkaStringArray(compact: compact) }
        if version >= 5 { typesFilter = try buffer.readKafkaStringArray(compact: compact) }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 4 { buffer.writeKafkaStringArray(statesFilter, compact: compact) }
        if version >= 5 { buffer.writeKafkaStringArray(typesFilter, compact: compact) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
