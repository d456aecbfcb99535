import CRdKafka
import SluiceCore

/// A transactional producer's calls (KIP-98, librdkafka's `rd_kafka_*_transaction`): made with
/// `transactionalID`, a producer calls ``initTransactions(timeout:)`` once, then runs
/// transactions of ``produce(topic:partition:key:value:)`` calls between
/// ``beginTransaction()`` and ``commitTransaction(timeout:)`` or ``abortTransaction(timeout:)``.
extension KafkaProducer {
    /// Registers the transactional id with its coordinator: fences earlier producers with the
    /// same id and aborts what they left open.
    package func initTransactions(timeout: Duration) throws(KafkaClientError) {
        try check(rd_kafka_init_transactions(try open(), timeout.kafkaMilliseconds))
    }

    package func beginTransaction() throws(KafkaClientError) {
        try check(rd_kafka_begin_transaction(try open()))
    }

    /// Flushes what is outstanding and commits the transaction.
    package func commitTransaction(timeout: Duration) throws(KafkaClientError) {
        try check(rd_kafka_commit_transaction(try open(), timeout.kafkaMilliseconds))
    }

    /// Purges what is outstanding and aborts the transaction.
    package func abortTransaction(timeout: Duration) throws(KafkaClientError) {
        try check(rd_kafka_abort_transaction(try open(), timeout.kafkaMilliseconds))
    }

    /// Makes `offset` of `topic`'s `partition` the committed offset of consumer group `group`
    /// when (and only when) the transaction commits.
    package func sendOffsetsToTransaction(group: String, topic: String, partition: Int32, offset: Int64, timeout: Duration)
        throws(KafkaClientError)
    {
        let pointer = try open()
        guard let metadata = rd_kafka_consumer_group_metadata_new(group) else {
            throw KafkaClientError(RD_KAFKA_RESP_ERR__CRIT_SYS_RESOURCE, "could not allocate group metadata")
        }
        defer { rd_kafka_consumer_group_metadata_destroy(metadata) }
        guard let list = rd_kafka_topic_partition_list_new(1) else {
            throw KafkaClientError(RD_KAFKA_RESP_ERR__CRIT_SYS_RESOURCE, "could not allocate a partition list")
        }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        rd_kafka_topic_partition_list_add(list, topic, partition).pointee.offset = offset
        try check(rd_kafka_send_offsets_to_transaction(pointer, list, metadata, timeout.kafkaMilliseconds))
    }

    /// The producer id and epoch the coordinator gave this producer, from librdkafka's
    /// statistics (their `eos` object), waiting up to `timeout` for statistics that show them.
    /// With them a transaction can be committed after this producer is gone (see
    /// `KafkaTransactionResumer`).
    package func transactionalIdentity(timeout: Duration) throws(KafkaClientError) -> (producerID: Int64, epoch: Int16) {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let statistics = latestStatistics, let identity = Self.identity(inStatistics: statistics) { return identity }
            guard ContinuousClock.now < deadline else {
                throw KafkaClientError(RD_KAFKA_RESP_ERR__TIMED_OUT, "librdkafka's statistics did not show the producer id within \(timeout)")
            }
            poll(timeout: .milliseconds(100))
        }
    }

    /// The producer id and epoch in librdkafka's statistics JSON (`"eos": {…, "producer_id": n,
    /// "producer_epoch": n, …}`), nil while no id is assigned (-1).
    static func identity(inStatistics json: String) -> (producerID: Int64, epoch: Int16)? {
        let bytes = Array(json.utf8)
        guard let eos = find(Array("\"eos\":".utf8), in: bytes, from: 0),
            let id = integer(after: "\"producer_id\":", in: bytes, from: eos), id >= 0,
            let epoch = integer(after: "\"producer_epoch\":", in: bytes, from: eos), epoch >= 0, epoch <= Int64(Int16.max)
        else { return nil }
        return (id, Int16(epoch))
    }

    private static func integer(after key: String, in bytes: [UInt8], from start: Int) -> Int64? {
        guard var index = find(Array(key.utf8), in: bytes, from: start) else { return nil }
        index += key.utf8.count
        while index < bytes.count && bytes[index] == UInt8(ascii: " ") { index += 1 }
        var negative = false
        if index < bytes.count && bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"), digits < 18 {
            value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        guard digits > 0 else { return nil }
        return negative ? -value : value
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0] && bytes[index ..< index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private func open() throws(KafkaClientError) -> OpaquePointer {
        guard let pointer else { throw KafkaClientError(RD_KAFKA_RESP_ERR__DESTROY, "the producer is closed") }
        return pointer
    }

    /// Throws the error a transactional call returned (and destroys it), noting whether it is
    /// fatal or requires an abort.
    private func check(_ error: OpaquePointer?) throws(KafkaClientError) {
        guard let error else { return }
        let fatal = rd_kafka_error_is_fatal(error) != 0
        let abortable = rd_kafka_error_txn_requires_abort(error) != 0
        let retriable = rd_kafka_error_is_retriable(error) != 0
        var failure = KafkaClientError(consuming: error)
        failure.transactionState = fatal ? .fatal : abortable ? .requiresAbort : retriable ? .retriable : .other
        throw failure
    }
}
