import NIOCore

/// SaslHandshake response (key 17): 0, or UNSUPPORTED_SASL_MECHANISM (33), with the mechanisms
/// the broker enables either way. The same in v0 and v1.
package struct SaslHandshakeResponse: KafkaResponse {
    package static let api = KafkaAPI.saslHandshake

    /// The error code, or 0.
    package var errorCode: Int16
    /// The mechanisms enabled in the broker.
    package var mechanisms: [String]

    package init(errorCode: Int16 = 0, mechanisms: [String]) {
        self.errorCode = errorCode
        self.mechanisms = mechanisms
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        self.init(errorCode: try buffer.readKafkaInteger(), mechanisms: try buffer.readKafkaStringArray(compact: false))
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        buffer.writeInteger(errorCode)
        buffer.writeKafkaStringArray(mechanisms, compact: false)
    }
}
