import NIOCore

/// DescribeGroups request (key 15): the state and members of some groups.
package struct DescribeGroupsRequest: KafkaRequest {
    package typealias Response = DescribeGroupsResponse
    package static let api = KafkaAPI.describeGroups

    /// The group ids.
    package var groups: [String]
    /// v3+: whether to return each group's authorized operations.
    package var includeAuthorizedOperations: Bool

    package init(groups: [String], includeAuthorizedOperations: Bool = false) {
        self.groups = groups
        self.includeAuthorizedOperations = includeAuthorizedOperations
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(groups: try buffer.readKafkaStringArray(compact: compact))
        if version >= 3 { includeAuthorizedOperations = try buffer.readKafkaBool() }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaStringArray(groups, compact: compact)
        if version >= 3 { buffer.writeKafkaBool(includeAuthorizedOperations) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
