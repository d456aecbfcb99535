import NIOCore

/// ApiVersions request (key 18): a client asks which versions of each API the broker supports.
/// Clients send it first on every connection, at their highest version; a broker that does not
/// support that version answers with a version 0 response carrying UNSUPPORTED_VERSION (35) and
/// its table, without reading the body.
package struct ApiVersionsRequest: KafkaRequest {
    package typealias Response = ApiVersionsResponse
    package static let api = KafkaAPI.apiVersions

    /// v3+: the client library's name, e.g. "librdkafka" or "apache-kafka-java" (KIP-511).
    package var clientSoftwareName: String
    /// v3+: the client library's version, e.g. "2.6.1".
    package var clientSoftwareVersion: String

    package init(clientSoftwareName: String = "", clientSoftwareVersion: String = "") {
        self.clientSoftwareName = clientSoftwareName
        self.clientSoftwareVersion = clientSoftwareVersion
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        self.init()
        // Versions 0–2 have an empty body.
        if version >= 3 {
            clientSoftwareName = try buffer.readKafkaString(compact: true)
            clientSoftwareVersion = try buffer.readKafkaString(compact: true)
            try buffer.skipKafkaTaggedFields()
        }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        if version >= 3 {
            buffer.writeKafkaString(clientSoftwareName, compact: true)
            buffer.writeKafkaString(clientSoftwareVersion, compact: true)
            buffer.writeKafkaEmptyTaggedFields()
        }
    }
}
