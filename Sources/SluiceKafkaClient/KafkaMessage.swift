import CRdKafka

/// One consumed message, read in place from librdkafka's buffers.
///
/// Valid only inside the ``KafkaConsumer/poll(maxMessages:timeout:_:)`` closure that received it:
/// the consumer destroys the underlying `rd_kafka_message_t` when the closure returns, so neither
/// the message nor its `key`/`value` buffers may escape it. Copy what must be kept. (librdkafka
/// cannot destroy a handle while a message it delivered is alive: closing would hang.)
package struct KafkaMessage {
    @usableFromInline let pointer: UnsafeMutablePointer<rd_kafka_message_t>

    @inlinable init(_ pointer: UnsafeMutablePointer<rd_kafka_message_t>) {
        self.pointer = pointer
    }

    /// Whether this entry reports an error instead of carrying data; see ``error``.
    @inlinable package var isError: Bool { pointer.pointee.err != RD_KAFKA_RESP_ERR_NO_ERROR }

    /// The error this entry reports (a partition's fetch failing, say, or every broker being
    /// down when the consumer has no error callback); nil for data.
    package var error: KafkaClientError? {
        guard isError else { return nil }
        // An error entry's payload is librdkafka's error text, `len` bytes long.
        guard let text = pointer.pointee.payload else { return KafkaClientError(pointer.pointee.err) }
        return KafkaClientError(pointer.pointee.err, String(decoding: UnsafeRawBufferPointer(start: text, count: pointer.pointee.len), as: UTF8.self))
    }

    /// Whether this entry says the consumer reached the end of ``partition`` (its fetch position,
    /// ``offset``, is the partition's end: past any transaction markers before it). Delivered
    /// only to a consumer made with `enable.partition.eof=true`; ``isError`` is true for it.
    @inlinable package var isPartitionEnd: Bool { pointer.pointee.err == RD_KAFKA_RESP_ERR__PARTITION_EOF }

    /// The partition; -1 for client-level errors.
    @inlinable package var partition: Int32 { pointer.pointee.partition }

    /// The message's offset in its partition.
    @inlinable package var offset: Int64 { pointer.pointee.offset }

    /// The key's bytes; nil for a null key.
    @inlinable package var key: UnsafeRawBufferPointer? {
        guard !isError, let key = pointer.pointee.key else { return nil }
        return UnsafeRawBufferPointer(start: key, count: pointer.pointee.key_len)
    }

    /// The value's bytes; nil for a null value (a tombstone).
    @inlinable package var value: UnsafeRawBufferPointer? {
        guard !isError, let payload = pointer.pointee.payload else { return nil }
        return UnsafeRawBufferPointer(start: payload, count: pointer.pointee.len)
    }

    /// The timestamp in milliseconds since the Unix epoch (create or log-append time, as the
    /// topic keeps it); nil when the message has none.
    package var timestamp: Int64? {
        let milliseconds = rd_kafka_message_timestamp(pointer, nil)
        return milliseconds == -1 ? nil : milliseconds
    }

    /// The topic's name; nil for client-level errors. Builds a `String`: keep it off per-message paths.
    package var topic: String? {
        guard let topic = pointer.pointee.rkt else { return nil }
        return String(cString: rd_kafka_topic_name(topic))
    }
}

/// The messages one poll returned, in the order librdkafka delivered them (offset order within
/// each partition). Partition-end events are never in a batch; error entries are, flagged by
/// ``KafkaMessage/isError``.
///
/// Valid only inside the poll closure that received it (see ``KafkaMessage``).
package struct KafkaMessageBatch: RandomAccessCollection {
    @usableFromInline let messages: UnsafeBufferPointer<UnsafeMutablePointer<rd_kafka_message_t>?>

    @usableFromInline init(_ messages: UnsafeBufferPointer<UnsafeMutablePointer<rd_kafka_message_t>?>) {
        self.messages = messages
    }

    @inlinable package var startIndex: Int { 0 }
    @inlinable package var endIndex: Int { messages.count }

    @inlinable package subscript(position: Int) -> KafkaMessage {
        KafkaMessage(messages[position].unsafelyUnwrapped)
    }
}
