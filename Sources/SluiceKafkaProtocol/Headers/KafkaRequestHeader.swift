import NIOCore

/// The header that starts every Kafka request, after its INT32 size (Kafka's RequestHeader.json).
///
/// Version 1 holds the API key, API version, correlation id and client id; version 2, used by
/// flexible API versions, adds a tagged-field section. The client id is a NULLABLE_STRING with an
/// INT16 length in both, so that any broker can read the header of any ApiVersions request.
package struct KafkaRequestHeader: Sendable, Equatable {
    /// The API of the request body that follows (`KafkaAPI` when Sluice knows it).
    package var apiKey: Int16
    /// The version of the request body; the response uses the same version.
    package var apiVersion: Int16
    /// Echoed in the response header so the client can match responses to requests.
    package var correlationID: Int32
    /// The client's self-chosen id, e.g. "rdkafka"; nil when the client sends null.
    package var clientID: String?

    package init(apiKey: Int16, apiVersion: Int16, correlationID: Int32, clientID: String?) {
        self.apiKey = apiKey
        self.apiVersion = apiVersion
        self.correlationID = correlationID
        self.clientID = clientID
    }

    package init(api: KafkaAPI, apiVersion: Int16, correlationID: Int32, clientID: String?) {
        self.init(apiKey: api.key, apiVersion: apiVersion, correlationID: correlationID, clientID: clientID)
    }

    /// The API, or nil when Sluice does not know the key.
    package var api: KafkaAPI? { KafkaAPI(rawValue: apiKey) }

    /// The header version that goes with this header's API and version: v2 for flexible versions of
    /// a known API, else v1 (an unknown API's body is never read, so its tagged fields need not be).
    package var headerVersion: Int16 {
        api?.requestHeaderVersion(for: apiVersion) ?? 1
    }

    /// Reads a header, choosing its version from the API key and version it starts with. Versions
    /// outside the supported range are read too, so the broker can answer them with
    /// UNSUPPORTED_VERSION.
    package init(from buffer: inout ByteBuffer) throws(KafkaDecodingError) {
        try self.init(from: &buffer, headerVersion: nil)
    }

    /// Reads a header of version 1 or 2.
    package init(from buffer: inout ByteBuffer, headerVersion: Int16) throws(KafkaDecodingError) {
        try self.init(from: &buffer, headerVersion: Optional(headerVersion))
    }

    private init(from buffer: inout ByteBuffer, headerVersion: Int16?) throws(KafkaDecodingError) {
        apiKey = try buffer.readKafkaInteger()
        apiVersion = try buffer.readKafkaInteger()
        correlationID = try buffer.readKafkaInteger()
        // Never compact, even in header v2.
        clientID = try buffer.readKafkaNullableString(compact: false)
        if (headerVersion ?? self.headerVersion) >= 2 {
            try buffer.skipKafkaTaggedFields()
        }
    }

    /// Writes the header in the version its API and version call for.
    package func write(to buffer: inout ByteBuffer) {
        write(to: &buffer, headerVersion: headerVersion)
    }

    /// Writes the header as version 1 or 2.
    package func write(to buffer: inout ByteBuffer, headerVersion: Int16) {
        buffer.writeInteger(apiKey)
        buffer.writeInteger(apiVersion)
        buffer.writeInteger(correlationID)
        buffer.writeKafkaNullableString(clientID, compact: false)
        if headerVersion >= 2 {
            buffer.writeKafkaEmptyTaggedFields()
        }
    }
}
