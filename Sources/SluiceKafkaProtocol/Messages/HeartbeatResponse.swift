import NIOCore

/// Heartbeat response (key 12): 0, or e.g. REBALANCE_IN_PROGRESS (27) to make the member rejoin.
package struct HeartbeatResponse: KafkaResponse {
    package static let api = KafkaAPI.heartbeat

    /// v1+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The error code, or 0.
    package var errorCode: Int16

    package init(throttleTimeMs: Int32 = 0, errorCode: Int16 = 0) {
        self.throttleTimeMs = throttleTimeMs
        self.errorCode = errorCode
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        self.init()
        if version >= 1 { throttleTimeMs = try buffer.readKafkaInteger() }
        errorCode = try buffer.readKafkaInteger()
        if Self.api.isFlexible(version) { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        if version >= 1 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeInteger(errorCode)
        if Self.api.isFlexible(version) { buffer.writeKafkaEmptyTaggedFields() }
    }
}
