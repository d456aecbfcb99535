import NIOCore

/// CreateAcls response (key 30): one result per creation, in the request's order.
package struct CreateAclsResponse: KafkaResponse {
    package static let api = KafkaAPI.createAcls

    /// Whether one binding was created.
    package struct Result: Sendable, Equatable {
        /// The error code (e.g. INVALID_REQUEST, 42), or 0.
        package var errorCode: Int16
        /// A message for the error, or nil.
        package var errorMessage: String?

        package init(errorCode: Int16 = 0, errorMessage: String? = nil) {
            self.errorCode = errorCode
            self.errorMessage = errorMessage
        }
    }

    /// How long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    package var results: [Result]

    package init(throttleTimeMs: Int32 = 0, results: [Result]) {
        self.throttleTimeMs = throttleTimeMs
        self.results = results
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(throttleTimeMs: try buffer.readKafkaInteger(), results: [])
        results = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let result = Result(errorCode: try buffer.readKafkaInteger(), errorMessage: try buffer.readKafkaNullableString(compact: compact))
            if compact { try buffer.skipKafkaTaggedFields() }
            return result
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(throttleTimeMs)
        buffer.writeKafkaArray(results, compact: compact) { result, buffer in
            buffer.writeInteger(result.errorCode)
            buffer.writeKafkaNullableString(result.errorMessage, compact: compact)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
