/// Where a consumer starts reading a partition.
package enum KafkaOffset: Sendable, Hashable {
    /// The first offset still in the log (the low watermark).
    case earliest
    /// The end of the log (the high watermark): only messages produced after the assignment.
    case latest
    /// This exact offset: the next message read is the one at `offset`.
    case exact(Int64)

    /// librdkafka's value: `RD_KAFKA_OFFSET_BEGINNING` (-2), `RD_KAFKA_OFFSET_END` (-1) or the offset.
    var rawValue: Int64 {
        switch self {
        case .earliest: -2
        case .latest: -1
        case .exact(let offset): offset
        }
    }
}

/// One partition of a consumer's assignment and where to start reading it.
package struct KafkaAssignment: Sendable, Hashable {
    package var topic: String
    package var partition: Int32
    package var offset: KafkaOffset

    package init(topic: String, partition: Int32, offset: KafkaOffset) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}

/// An offset of one partition: committed by a group, or to commit. As Kafka defines it, a
/// group's committed offset is the next offset to read (the last one processed plus one).
package struct KafkaPartitionOffset: Sendable, Hashable {
    package var topic: String
    package var partition: Int32
    package var offset: Int64

    package init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}

/// A partition's offset range: `low` is the first offset in the log, `high` the offset the next
/// message will get (so the partition holds `high - low` messages).
package struct KafkaWatermarks: Sendable, Hashable {
    package var low: Int64
    package var high: Int64

    package init(low: Int64, high: Int64) {
        self.low = low
        self.high = high
    }
}
