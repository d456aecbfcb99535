import NIOCore

/// SaslAuthenticate request (key 36): one SASL token from the client, as the mechanism chosen by
/// SaslHandshake v1 defines it (KIP-152). v1 is v0 again; v2 is flexible.
package struct SaslAuthenticateRequest: KafkaRequest {
    package typealias Response = SaslAuthenticateResponse
    package static let api = KafkaAPI.saslAuthenticate

    /// The token (for PLAIN, `authzid NUL authcid NUL password`; for SCRAM, a client message).
    package var authBytes: ByteBuffer

    package init(authBytes: ByteBuffer) {
        self.authBytes = authBytes
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(authBytes: try buffer.readKafkaBytes(compact: compact))
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaBytes(authBytes, compact: compact)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
