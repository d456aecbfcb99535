import NIOCore

/// AddPartitionsToTxn request (key 24): a transactional producer tells its transaction
/// coordinator which partitions it is about to write to, before the first write (KIP-98).
///
/// Only the client form (v0–3) is read and written: from v4 on the request batches several
/// transactions for brokers that verify partitions (KIP-890), and Sluice does not support those
/// versions.
package struct AddPartitionsToTxnRequest: KafkaRequest {
    package typealias Response = AddPartitionsToTxnResponse
    package static let api = KafkaAPI.addPartitionsToTxn

    /// The partitions of one topic to add to the transaction.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// The partition indexes.
        package var partitions: [Int32]

        package init(name: String, partitions: [Int32]) {
            self.name = name
            self.partitions = partitions
        }
    }

    /// The transactional id.
    package var transactionalID: String
    /// The producer id the transactional id holds.
    package var producerID: Int64
    /// The producer's current epoch.
    package var producerEpoch: Int16
    /// The partitions to add, per topic.
    package var topics: [Topic]

    package init(transactionalID: String, producerID: Int64, producerEpoch: Int16, topics: [Topic]) {
        self.transactionalID = transactionalID
        self.producerID = producerID
        self.producerEpoch = producerEpoch
        self.topics = topics
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        // The definition names these fields V3AndBelow…: v4+ replace them with a transactions array.
        self.init(
            transactionalID: try buffer.readKafkaString(compact: compact),
            producerID: try buffer.readKafkaInteger(),
            producerEpoch: try buffer.readKafkaInteger(),
            topics: try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let topic = Topic(
                    name: try buffer.readKafkaString(compact: compact),
                    partitions: try buffer.readKafkaInt32Array(compact: compact)
                )
                if compact { try buffer.skipKafkaTaggedFields() }
                return topic
            }
        )
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaString(transactionalID, compact: compact)
        buffer.writeInteger(producerID)
        buffer.writeInteger(producerEpoch)
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaInt32Array(topic.partitions, compact: compact)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
