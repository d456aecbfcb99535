import NIOCore

/// Produce response (key 0): per partition, where the records landed or why they did not.
package struct ProduceResponse: KafkaResponse {
    package static let api = KafkaAPI.produce

    /// v8+: a record that made the broker drop its batch (KIP-467).
    package struct RecordError: Sendable, Equatable {
        /// The index of the record in the batch.
        package var batchIndex: Int32
        /// Why the record was rejected, or nil.
        package var batchIndexErrorMessage: String?

        package init(batchIndex: Int32, batchIndexErrorMessage: String? = nil) {
            self.batchIndex = batchIndex
            self.batchIndexErrorMessage = batchIndexErrorMessage
        }
    }

    /// The outcome for one partition.
    package struct Partition: Sendable, Equatable {
        /// The partition index.
        package var index: Int32
        /// The error code, or 0.
        package var errorCode: Int16
        /// The offset given to the first record.
        package var baseOffset: Int64
        /// v2+: the append time when the topic uses LogAppendTime, else -1.
        package var logAppendTimeMs: Int64
        /// v5+: the partition's log start offset.
        package var logStartOffset: Int64
        /// v8+: the records that made the batch fail.
        package var recordErrors: [RecordError]
        /// v8+: a message for the error, or nil.
        package var errorMessage: String?

        package init(
            index: Int32,
            errorCode: Int16 = 0,
            baseOffset: Int64,
            logAppendTimeMs: Int64 = -1,
            logStartOffset: Int64 = -1,
            recordErrors: [RecordError] = [],
            errorMessage: String? = nil
        ) {
            self.index = index
            self.errorCode = errorCode
            self.baseOffset = baseOffset
            self.logAppendTimeMs = logAppendTimeMs
            self.logStartOffset = logStartOffset
            self.recordErrors = recordErrors
            self.errorMessage = errorMessage
        }
    }

    /// The outcomes for one topic.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// One outcome per partition of the request.
        package var partitionResponses: [Partition]

        package init(name: String, partitionResponses: [Partition]) {
            self.name = name
            self.partitionResponses = partitionResponses
        }
    }

    /// The outcomes, per topic.
    package var responses: [Topic]
    /// v1+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32

    package init(responses: [Topic], throttleTimeMs: Int32 = 0) {
        self.responses = responses
        self.throttleTimeMs = throttleTimeMs
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        responses = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                try Partition(from: &buffer, version: version)
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return Topic(name: name, partitionResponses: partitions)
        }
        // Every supported version (3+) has the throttle time, after the responses.
        throttleTimeMs = try buffer.readKafkaInteger()
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaArray(responses, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaArray(topic.partitionResponses, compact: compact) { partition, buffer in
                partition.write(to: &buffer, version: version)
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        buffer.writeInteger(throttleTimeMs)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}

extension ProduceResponse.Partition {
    init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        let compact = ProduceResponse.api.isFlexible(version)
        self.init(index: try buffer.readKafkaInteger(), errorCode: try buffer.readKafkaInteger(), baseOffset: try buffer.readKafkaInteger())
        // Supported versions start at 3, so the append time (v2+) is always there.
        logAppendTimeMs = try buffer.readKafkaInteger()
        if version >= 5 { logStartOffset = try buffer.readKafkaInteger() }
        if version >= 8 {
            recordErrors = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let error = ProduceResponse.RecordError(
                    batchIndex: try buffer.readKafkaInteger(),
                    batchIndexErrorMessage: try buffer.readKafkaNullableString(compact: compact)
                )
                if compact { try buffer.skipKafkaTaggedFields() }
                return error
            }
            errorMessage = try buffer.readKafkaNullableString(compact: compact)
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    func write(to buffer: inout ByteBuffer, version: Int16) {
        let compact = ProduceResponse.api.isFlexible(version)
        buffer.writeInteger(index)
        buffer.writeInteger(errorCode)
        buffer.writeInteger(baseOffset)
        buffer.writeInteger(logAppendTimeMs)
        if version >= 5 { buffer.writeInteger(logStartOffset) }
        if version >= 8 {
            buffer.writeKafkaArray(recordErrors, compact: compact) { error, buffer in
                buffer.writeInteger(error.batchIndex)
                buffer.writeKafkaNullableString(error.batchIndexErrorMessage, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            buffer.writeKafkaNullableString(errorMessage, compact: compact)
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
