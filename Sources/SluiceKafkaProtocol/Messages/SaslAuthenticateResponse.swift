import NIOCore

/// SaslAuthenticate response (key 36): the broker's token, or SASL_AUTHENTICATION_FAILED (58)
/// with a message (the broker then closes the connection).
package struct SaslAuthenticateResponse: KafkaResponse {
    package static let api = KafkaAPI.saslAuthenticate

    /// The error code, or 0.
    package var errorCode: Int16
    /// A message for the error, or nil.
    package var errorMessage: String?
    /// The broker's token (empty when the mechanism has nothing to say, as PLAIN).
    package var authBytes: ByteBuffer
    /// v1+: milliseconds until the client must authenticate again (KIP-368), 0 for never.
    package var sessionLifetimeMs: Int64

    package init(errorCode: Int16 = 0, errorMessage: String? = nil, authBytes: ByteBuffer = ByteBuffer(), sessionLifetimeMs: Int64 = 0) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.authBytes = authBytes
        self.sessionLifetimeMs = sessionLifetimeMs
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(
            errorCode: try buffer.readKafkaInteger(),
            errorMessage: try buffer.readKafkaNullableString(compact: compact),
            authBytes: try buffer.readKafkaBytes(compact: compact)
        )
        if version >= 1 { sessionLifetimeMs = try buffer.readKafkaInteger() }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(errorCode)
        buffer.writeKafkaNullableString(errorMessage, compact: compact)
        buffer.writeKafkaBytes(authBytes, compact: compact)
        if version >= 1 { buffer.writeInteger(sessionLifetimeMs) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
