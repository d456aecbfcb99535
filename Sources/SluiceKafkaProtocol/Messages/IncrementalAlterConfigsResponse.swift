import NIOCore

/// IncrementalAlterConfigs response (key 44): whether each resource's configs were changed.
package struct IncrementalAlterConfigsResponse: KafkaResponse {
    package static let api = KafkaAPI.incrementalAlterConfigs

    /// The outcome for one resource: the same fields as in AlterConfigs responses.
    package typealias ResourceResponse = AlterConfigsResponse.ResourceResponse

    /// How long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The outcomes, per resource.
    package var responses: [ResourceResponse]

    package init(throttleTimeMs: Int32 = 0, responses: [ResourceResponse]) {
        self.throttleTimeMs = throttleTimeMs
        self.responses = responses
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        throttleTimeMs = try buffer.readKafkaInteger()
        responses = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            try ResourceResponse(from: &buffer, compact: compact)
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(throttleTimeMs)
        buffer.writeKafkaArray(responses, compact: compact) { response, buffer in
            response.write(to: &buffer, compact: compact)
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
