import NIOCore

/// EndTxn response (key 26): whether the transaction was committed or aborted.
///
/// v5 (not supported) adds the producer id and epoch the producer continues with (KIP-890).
package struct EndTxnResponse: KafkaResponse {
    package static let api = KafkaAPI.endTxn

    /// How long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The error code (e.g. INVALID_TXN_STATE, 48), or 0.
    package var errorCode: Int16

    package init(throttleTimeMs: Int32 = 0, errorCode: Int16 = 0) {
        self.throttleTimeMs = throttleTimeMs
        self.errorCode = errorCode
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        throttleTimeMs = try buffer.readKafkaInteger()
        errorCode = try buffer.readKafkaInteger()
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(throttleTimeMs)
        buffer.writeInteger(errorCode)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
