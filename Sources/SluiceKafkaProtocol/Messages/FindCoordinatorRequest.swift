import NIOCore

/// FindCoordinator request (key 10): which broker coordinates a consumer group or a
/// transactional id. Versions 0–3 ask for one key; v4 asks for several (KIP-699).
package struct FindCoordinatorRequest: KafkaRequest {
    package typealias Response = FindCoordinatorResponse
    package static let api = KafkaAPI.findCoordinator

    /// v1+: the kind of key: 0 consumer group, 1 transactional id.
    package var keyType: Int8
    /// The group ids or transactional ids. Versions 0–3 carry exactly one (`Key`); only the first
    /// is written at those versions.
    package var keys: [String]

    package init(keyType: Int8 = 0, keys: [String]) {
        self.keyType = keyType
        self.keys = keys
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(keys: [])
        if version < 4 { keys = [try buffer.readKafkaString(compact: compact)] }
        if version >= 1 { keyType = try buffer.readKafkaInteger() }
        if version >= 4 { keys = try buffer.readKafkaStringArray(compact: compact) }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version < 4 { buffer.writeKafkaString(keys.first ?? "", compact: compact) }
        if version >= 1 { buffer.writeInteger(keyType) }
        if version >= 4 { buffer.writeKafkaStringArray(keys, compact: compact) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
