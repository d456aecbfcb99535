import NIOCore

/// InitProducerId request (key 22): an idempotent or transactional producer asks for its
/// producer id and epoch (KIP-98).
package struct InitProducerIdRequest: KafkaRequest {
    package typealias Response = InitProducerIdResponse
    package static let api = KafkaAPI.initProducerID

    /// The transactional id, or nil for an idempotent producer without transactions.
    package var transactionalID: String?
    /// How long a transaction may stay open, in milliseconds.
    package var transactionTimeoutMs: Int32
    /// v3+: the producer's current id, to bump its epoch (KIP-360), or -1.
    package var producerID: Int64
    /// v3+: the producer's current epoch, or -1.
    package var producerEpoch: Int16

    package init(transactionalID: String? = nil, transactionTimeoutMs: Int32, producerID: Int64 = -1, producerEpoch: Int16 = -1) {
        self.transactionalID = transactionalID
        self.transactionTimeoutMs = transactionTimeoutMs
        self.producerID = producerID
        self.producerEpoch = producerEpoch
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(
            transactionalID: try buffer.readKafkaNullableString(compact: compact),
            transactionTimeoutMs: try buffer.readKafkaInteger()
        )
        if version >= 3 {
            producerID = try buffer.readKafkaInteger()
            producerEpoch = try buffer.readKafkaInteger()
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaNullableString(transactionalID, compact: compact)
        buffer.writeInteger(transactionTimeoutMs)
        if version >= 3 {
            buffer.writeInteger(producerID)
            buffer.writeInteger(producerEpoch)
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
