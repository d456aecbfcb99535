import NIOCore

/// EndTxn request (key 26): a transactional producer asks its transaction coordinator to commit
/// or abort the open transaction (KIP-98).
package struct EndTxnRequest: KafkaRequest {
    package typealias Response = EndTxnResponse
    package static let api = KafkaAPI.endTxn

    /// The transactional id.
    package var transactionalID: String
    /// The producer id the transactional id holds.
    package var producerID: Int64
    /// The producer's current epoch.
    package var producerEpoch: Int16
    /// True to commit the transaction, false to abort it.
    package var committed: Bool

    package init(transactionalID: String, producerID: Int64, producerEpoch: Int16, committed: Bool) {
        self.transactionalID = transactionalID
        self.producerID = producerID
        self.producerEpoch = producerEpoch
        self.committed = committed
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(
            transactionalID: try buffer.readKafkaString(compact: compact),
            producerID: try buffer.readKafkaInteger(),
            producerEpoch: try buffer.readKafkaInteger(),
            committed: try buffer.readKafkaBool()
        )
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaString(transactionalID, compact: compact)
        buffer.writeInteger(producerID)
        buffer.writeInteger(producerEpoch)
        buffer.writeKafkaBool(committed)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
