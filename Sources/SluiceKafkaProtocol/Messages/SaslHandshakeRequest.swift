import NIOCore

/// SaslHandshake request (key 17): the SASL mechanism the client wants to authenticate with
/// (KIP-43). After v0 the client sends the mechanism's tokens as bare size-prefixed frames; after
/// v1, inside SaslAuthenticate requests (KIP-152). Never flexible.
package struct SaslHandshakeRequest: KafkaRequest {
    package typealias Response = SaslHandshakeResponse
    package static let api = KafkaAPI.saslHandshake

    /// The mechanism chosen by the client, e.g. `PLAIN` or `SCRAM-SHA-256`.
    package var mechanism: String

    package init(mechanism: String) {
        self.mechanism = mechanism
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        self.init(mechanism: try buffer.readKafkaString(compact: false))
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        buffer.writeKafkaString(mechanism, compact: false)
    }
}
