import NIOCore

/// AddOffsetsToTxn request (key 25): a transactional producer tells its transaction coordinator
/// that the transaction will commit offsets for a consumer group, so that the coordinator writes
/// the transaction's markers to that group's offsets partition too (KIP-98).
package struct AddOffsetsToTxnRequest: KafkaRequest {
    package typealias Response = AddOffsetsToTxnResponse
    package static let api = KafkaAPI.addOffsetsToTxn

    /// The transactional id.
    package var transactionalID: String
    /// The producer id the transactional id holds.
    package var producerID: Int64
    /// The producer's current epoch.
    package var producerEpoch: Int16
    /// The consumer group whose offsets the transaction commits.
    package var groupID: String

    package init(transactionalID: String, producerID: Int64, producerEpoch: Int16, groupID: String) {
        self.transactionalID = transactionalID
        self.producerID = producerID
        self.producerEpoch = producerEpoch
        self.groupID = groupID
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(
            transactionalID: try buffer.readKafkaString(compact: compact),
            producerID: try buffer.readKafkaInteger(),
            producerEpoch: try buffer.readKafkaInteger(),
            groupID: try buffer.readKafkaString(compact: compact)
        )
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaString(transactionalID, compact: compact)
        buffer.writeInteger(producerID)
        buffer.writeInteger(producerEpoch)
        buffer.writeKafkaString(groupID, compact: compact)
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
