import CRdKafka

/// A Kafka producer for many small messages (the event generators, Kafka sinks).
///
/// Messages are copied into librdkafka's queue (`RD_KAFKA_MSG_F_COPY`) and sent in batches
/// from its threads. Defaults favour throughput: `linger.ms=5`, `compression.codec=none`,
/// `partitioner=murmur2_random` (keyed messages land on the partition Java clients choose);
/// any of them can be overridden through the properties.
///
/// Not `Sendable`: call a producer from one thread at a time. Delivery reports are served on
/// that thread, inside ``produce(topic:partition:key:value:)``, ``poll(timeout:)`` and
/// ``flush(timeout:)``.
package final class KafkaProducer {
    private let handle: KafkaHandle
    /// librdkafka topic handles by name, destroyed before the client handle.
    private var topics: [String: OpaquePointer] = [:]
    /// The topic of the previous message, looked up without hashing when it repeats.
    private var lastTopic: (name: String, handle: OpaquePointer)?
    /// Messages produced since delivery reports were last served.
    private var sinceLastPoll = 0

    /// Creates a producer for the cluster at `bootstrapServers` ("host:port[,host:port…]").
    ///
    /// `properties` are librdkafka configuration properties passed through unchanged; they
    /// override the defaults above.
    ///
    /// - Throws: ``KafkaClientError`` `_INVALID_ARG` with librdkafka's message for an unknown
    ///   property or an invalid value.
    ///
    /// With `transactionalID` the producer is transactional (see `KafkaProducer+Transactions`):
    /// its statistics are turned on, every 250 ms unless the properties say otherwise, because
    /// they are where librdkafka shows the producer id and epoch it was given.
    package init(
        bootstrapServers: String, properties: [String: String] = [:], callbacks: KafkaClientCallbacks = .init(), transactionalID: String? = nil
    ) throws(KafkaClientError) {
        var configuration: [(key: String, value: String)] = [
            ("bootstrap.servers", bootstrapServers),
            ("linger.ms", "5"),
            ("compression.codec", "none"),
            ("partitioner", "murmur2_random"),
        ]
        if let transactionalID {
            configuration += [("transactional.id", transactionalID), ("statistics.interval.ms", "250")]
        }
        configuration += properties.sorted { $0.key < $1.key }
        handle = try KafkaHandle(
            kind: RD_KAFKA_PRODUCER, properties: configuration, callbacks: callbacks, deliveryReports: true, statistics: transactionalID != nil)
    }

    /// Checks producer `properties` as ``init(bootstrapServers:properties:callbacks:transactionalID:)``
    /// would (an unknown property or a bad value is an error), without making a producer.
    package static func check(properties: [String: String]) throws(KafkaClientError) {
        try KafkaHandle.check(properties.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) })
    }

    /// The underlying `rd_kafka_t`, nil once closed (for the transactional calls).
    var pointer: OpaquePointer? { handle.pointer }

    /// The statistics librdkafka last emitted (JSON), nil before the first.
    var latestStatistics: String? { handle.callbackContext.latestStatistics.withLock { $0 } }

    deinit {
        // Without close(), unsent messages are dropped rather than waited for.
        if let pointer = handle.pointer { _ = rd_kafka_purge(pointer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT) }
        destroyHandles()
    }

    /// Whether ``close(timeout:)`` was called.
    package var isClosed: Bool { handle.pointer == nil }

    /// What the delivery reports served so far said.
    package var deliveryReport: KafkaDeliveryReport { handle.callbackContext.deliveryReport }

    /// Messages produced but not yet reported delivered or failed (`rd_kafka_outq_len`).
    package var outstandingMessages: Int {
        guard let pointer = handle.pointer else { return 0 }
        return Int(rd_kafka_outq_len(pointer))
    }

    /// Queues one message, copying `key` and `value`; a nil key or value is Kafka's null.
    ///
    /// `partition` nil lets the partitioner choose (by key; at random without one). When
    /// librdkafka's queue is full, serves delivery reports until there is room.
    ///
    /// - Throws: ``KafkaClientError`` for a message librdkafka refuses (too large, unknown
    ///   partition, closed producer). Delivery failures later show in ``deliveryReport``.
    package func produce(topic: String, partition: Int32? = nil, key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?)
        throws(KafkaClientError)
    {
        guard let pointer = handle.pointer else { throw KafkaClientError(RD_KAFKA_RESP_ERR__DESTROY, "the producer is closed") }
        let topicHandle = try self.topic(named: topic, on: pointer)
        // RD_KAFKA_PARTITION_UA (-1): the partitioner decides.
        let target = partition ?? -1
        // RD_KAFKA_MSG_F_COPY (0x2): librdkafka copies the payload before returning.
        let flags: Int32 = 0x2
        let payload = UnsafeMutableRawPointer(mutating: value?.baseAddress)
        while rd_kafka_produce(topicHandle, target, flags, payload, value?.count ?? 0, key?.baseAddress, key?.count ?? 0, nil) != 0 {
            let error = rd_kafka_last_error()
            guard error == RD_KAFKA_RESP_ERR__QUEUE_FULL else {
                throw KafkaClientError(error, "cannot produce to \(topic)\(partition.map { "[\($0)]" } ?? ""): \(String(cString: rd_kafka_err2str(error)))")
            }
            // Returns as soon as a delivery report frees room.
            rd_kafka_poll(pointer, 100)
            sinceLastPoll = 0
        }
        // Serve delivery reports now and then, so they don't pile up until the queue is full.
        sinceLastPoll += 1
        if sinceLastPoll >= 1024 {
            rd_kafka_poll(pointer, 0)
            sinceLastPoll = 0
        }
    }

    /// Queues one message, copying `key` and `value`; see ``produce(topic:partition:key:value:)``.
    package func produce(topic: String, partition: Int32? = nil, key: [UInt8]?, value: [UInt8]?) throws(KafkaClientError) {
        try withOptionalBytes(key) { (key) throws(KafkaClientError) in
            try withOptionalBytes(value) { (value) throws(KafkaClientError) in
                try produce(topic: topic, partition: partition, key: key, value: value)
            }
        }
    }

    /// Serves delivery reports, waiting up to `timeout` for the first one.
    ///
    /// - Returns: The number of events served.
    @discardableResult
    package func poll(timeout: Duration = .zero) -> Int {
        guard let pointer = handle.pointer else { return 0 }
        sinceLastPoll = 0
        return Int(rd_kafka_poll(pointer, timeout.kafkaMilliseconds))
    }

    /// Waits until every queued message is delivered or failed, serving delivery reports.
    ///
    /// - Throws: ``KafkaClientError`` `_TIMED_OUT` when messages are still outstanding after `timeout`.
    package func flush(timeout: Duration) throws(KafkaClientError) {
        guard let pointer = handle.pointer else { return }
        sinceLastPoll = 0
        let error = rd_kafka_flush(pointer, timeout.kafkaMilliseconds)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaClientError(error, "\(rd_kafka_outq_len(pointer)) messages still outstanding after flushing for \(timeout)")
        }
    }

    /// Flushes for up to `timeout`, then destroys the producer (dropping what is still
    /// outstanding). Later calls do nothing.
    ///
    /// - Throws: ``KafkaClientError`` `_TIMED_OUT` when messages were dropped; the producer is closed anyway.
    package func close(timeout: Duration = .seconds(30)) throws(KafkaClientError) {
        guard handle.pointer != nil else { return }
        defer { destroyHandles() }
        try flush(timeout: timeout)
    }

    private func destroyHandles() {
        for topicHandle in topics.values { rd_kafka_topic_destroy(topicHandle) }
        topics = [:]
        lastTopic = nil
        handle.destroy()
    }

    /// The topic handle for `name`, created on first use.
    private func topic(named name: String, on pointer: OpaquePointer) throws(KafkaClientError) -> OpaquePointer {
        if let lastTopic, lastTopic.name == name { return lastTopic.handle }
        let topicHandle: OpaquePointer
        if let existing = topics[name] {
            topicHandle = existing
        } else {
            guard let created = rd_kafka_topic_new(pointer, name, nil) else {
                let error = rd_kafka_last_error()
                throw KafkaClientError(error, "cannot use topic \"\(name)\": \(String(cString: rd_kafka_err2str(error)))")
            }
            topics[name] = created
            topicHandle = created
        }
        lastTopic = (name, topicHandle)
        return topicHandle
    }
}

/// Calls `body` with the bytes of `array`, or nil.
private func withOptionalBytes<Result>(
    _ array: [UInt8]?, _ body: (UnsafeRawBufferPointer?) throws(KafkaClientError) -> Result
) throws(KafkaClientError) -> Result {
    guard let array else { return try body(nil) }
    do {
        return try array.withUnsafeBytes { bytes in try body(bytes) }
    } catch let error as KafkaClientError {
        throw error
    } catch {
        preconditionFailure("unreachable: body throws only KafkaClientError")
    }
}
