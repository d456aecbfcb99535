import NIOCore

/// CreatePartitions response (key 37): whether each topic's partitions were added.
package struct CreatePartitionsResponse: KafkaResponse {
    package static let api = KafkaAPI.createPartitions

    /// The outcome for one topic.
    package struct Result: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// The error code (e.g. INVALID_PARTITIONS, 37), or 0.
        package var errorCode: Int16
        /// A message for the error, or nil.
        package var errorMessage: String?

        package init(name: String, errorCode: Int16 = 0, errorMessage: String? = nil) {
            self.name = name
            self.errorCode = errorCode
            self.errorMessage = errorMessage
        }
    }

    /// How long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The outcomes, per topic.
    package var results: [Result]

    package init(throttleTimeMs: Int32 = 0, results: [Result]) {
        self.throttleTimeMs = throttleTimeMs
        self.results = results
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        throttleTimeMs = try buffer.readKafkaInteger()
        results = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let result = Result(
                name: try buffer.readKafkaString(compact: compact),
                errorCode: try buffer.readKafkaInteger(),
                errorMessage: try buffer.readKafkaNullableString(compact: compact)
            )
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
            buffer.writeKafkaString(result.name, compact: compact)
            buffer.writeInteger(result.errorCode)
            buffer.writeKafkaNullableString(result.errorMessage, compact: compact)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
