import NIOCore

/// AlterConfigs response (key 33): whether each resource's configs were replaced.
package struct AlterConfigsResponse: KafkaResponse {
    package static let api = KafkaAPI.alterConfigs

    /// The outcome for one resource (also the element of IncrementalAlterConfigs responses, whose
    /// definition has the same fields).
    package struct ResourceResponse: Sendable, Equatable {
        /// The error code (e.g. INVALID_CONFIG, 40), or 0.
        package var errorCode: Int16
        /// A message for the error, or nil.
        package var errorMessage: String?
        /// The resource type, as in the request.
        package var resourceType: Int8
        /// The resource name, as in the request.
        package var resourceName: String

        package init(errorCode: Int16 = 0, errorMessage: String? = nil, resourceType: Int8, resourceName: String) {
            self.errorCode = errorCode
            self.errorMessage = errorMessage
            self.resourceType = resourceType
            self.resourceName = resourceName
        }
    }

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

extension AlterConfigsResponse.ResourceResponse {
    // The same in AlterConfigs and IncrementalAlterConfigs, which differ only in the version they
    // turn flexible at; hence `compact` rather than a version.
    init(from buffer: inout ByteBuffer, compact: Bool) throws(KafkaDecodingError) {
        self.init(
            errorCode: try buffer.readKafkaInteger(),
            errorMessage: try buffer.readKafkaNullableString(compact: compact),
            resourceType: try buffer.readKafkaInteger(),
            resourceName: try buffer.readKafkaString(compact: compact)
        )
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    func write(to buffer: inout ByteBuffer, compact: Bool) {
        buffer.writeInteger(errorCode)
        buffer.writeKafkaNullableString(errorMessage, compact: compact)
        buffer.writeInteger(resourceType)
        buffer.writeKafkaString(resourceName, compact: compact)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
