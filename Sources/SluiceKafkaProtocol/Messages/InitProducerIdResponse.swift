import NIOCore

/// InitProducerId response (key 22): the producer id and epoch to stamp on record batches.
package struct InitProducerIdResponse: KafkaResponse {
    package static let api = KafkaAPI.initProducerID

    /// How long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The error code, or 0.
    package var errorCode: Int16
    /// The producer id, or -1 on error.
    package var producerID: Int64
    /// The producer epoch.
    package var producerEpoch: Int16

    package init(throttleTimeMs: Int32 = 0, errorCode: Int16 = 0, producerID: Int64, producerEpoch: Int16) {
        self.throttleTimeMs = throttleTimeMs
        self.errorCode = errorCode
        self.producerID = producerID
        self.producerEpoch = producerEpoch
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        throttleTimeMs = try buffer.readKafkaInteger()
        errorCode = try buffer.readKafkaInteger()
        producerID = try buffer.readKafkaInteger()
        producerEpoch = try buffer.readKafkaInteger()
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(throttleTimeMs)
        buffer.writeInteger(errorCode)
        buffer.writeInteger(producerID)
        buffer.writeInteger(producerEpoch)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
