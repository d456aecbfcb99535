import NIOCore

/// One Kafka record (a message): where it sits in its partition, when, and its bytes.
///
/// Key, value and header values are `ByteBuffer`s: slices of the batch they were decoded from,
/// not copies. nil is Kafka's null (length -1), distinct from an empty buffer.
package struct KafkaRecord: Hashable, Sendable {
    /// The record's absolute offset in its partition.
    package var offset: Int64
    /// Milliseconds since the Unix epoch: the producer's create time, or the broker's append
    /// time when the batch's timestamp type says so.
    package var timestamp: Int64
    package var key: ByteBuffer?
    package var value: ByteBuffer?
    package var headers: [KafkaRecordHeader]

    package init(offset: Int64, timestamp: Int64, key: ByteBuffer?, value: ByteBuffer?, headers: [KafkaRecordHeader] = []) {
        self.offset = offset
        self.timestamp = timestamp
        self.key = key
        self.value = value
        self.headers = headers
    }
}

/// A record header: a string key (never null) and a value (nil for null). Keys may repeat.
package struct KafkaRecordHeader: Hashable, Sendable {
    /// The key, decoded as UTF-8 (ill-formed bytes are replaced with U+FFFD, as Java's decoder does).
    package var key: String
    package var value: ByteBuffer?

    package init(key: String, value: ByteBuffer?) {
        self.key = key
        self.value = value
    }
}
