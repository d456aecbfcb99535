import NIOCore

/// Produce request (key 0): record batches to append, per topic and partition.
///
/// The records stay a slice of the request's buffer; the record-batch layer parses and checks them.
package struct ProduceRequest: KafkaRequest {
    package typealias Response = ProduceResponse
    package static let api = KafkaAPI.produce

    /// The records for one partition.
    package struct Partition: Sendable, Equatable {
        /// The partition index.
        package var index: Int32
        /// The record batches (v2 format from Produce v3 on), as sent; nil if the client sent null.
        package var records: ByteBuffer?

        package init(index: Int32, records: ByteBuffer?) {
            self.index = index
            self.records = records
        }
    }

    /// The partitions of one topic.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var name: String
        /// The partitions to append to.
        package var partitionData: [Partition]

        package init(name: String, partitionData: [Partition]) {
            self.name = name
            self.partitionData = partitionData
        }
    }

    /// The transactional id of a transactional producer, or nil.
    package var transactionalID: String?
    /// 0: no response; 1: the leader has the records; -1: all in-sync replicas have them.
    package var acks: Int16
    /// How long the broker may wait for the acknowledgements, in milliseconds.
    package var timeoutMs: Int32
    /// The records, per topic.
    package var topicData: [Topic]

    package init(transactionalID: String? = nil, acks: Int16, timeoutMs: Int32, topicData: [Topic]) {
        self.transactionalID = transactionalID
        self.acks = acks
        self.timeoutMs = timeoutMs
        self.topicData = topicData
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        // Every supported version (3+) has the transactional id.
        transactionalID = try buffer.readKafkaNullableString(compact: compact)
        acks = try buffer.readKafkaInteger()
        timeoutMs = try buffer.readKafkaInteger()
        topicData = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let partition = Partition(
                    index: try buffer.readKafkaInteger(),
                    records: try buffer.readKafkaNullableBytes(compact: compact)
                )
                if compact { try buffer.skipKafkaTaggedFields() }
                return partition
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return Topic(name: name, partitionData: partitions)
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeKafkaNullableString(transactionalID, compact: compact)
        buffer.writeInteger(acks)
        buffer.writeInteger(timeoutMs)
        buffer.writeKafkaArray(topicData, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.name, compact: compact)
            buffer.writeKafkaArray(topic.partitionData, compact: compact) { partition, buffer in
                buffer.writeInteger(partition.index)
                buffer.writeKafkaNullableBytes(partition.records, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
