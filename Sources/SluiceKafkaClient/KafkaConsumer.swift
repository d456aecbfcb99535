import CRdKafka

/// A Kafka consumer that reads the partitions it is assigned from the offsets it is given and
/// never joins a consumer group: the engine tracks its own offsets (in checkpoints) and only
/// commits them, with ``commit(_:group:timeout:)``, so that lag tools see a source's progress.
///
/// librdkafka needs a `group.id` for its assign API, so the consumer sets `sluice-assign` unless
/// the properties name one; assigning does not join that group, and nothing is committed to it
/// unless asked (`enable.auto.commit` is off by default).
///
/// Not `Sendable`: use a consumer from one thread at a time. ``close()`` (or `deinit`) destroys
/// its librdkafka handles.
package final class KafkaConsumer {
    /// The group id librdkafka's handle carries when the properties name none.
    package static let defaultGroupID = "sluice-assign"

    let handle: KafkaHandle
    /// The consumer queue, which the main queue is forwarded to; nil once closed.
    private var queue: OpaquePointer?
    /// The handle's `group.id`.
    let groupID: String
    /// What other handles (for committing to other groups) are created from.
    let bootstrapServers: String
    let properties: [String: String]
    let callbacks: KafkaClientCallbacks
    /// One handle per group committed to other than ``groupID``, created on first use.
    var committers: [String: KafkaHandle] = [:]
    /// Where `rd_kafka_consume_batch_queue` writes message pointers; grown when a poll asks for more.
    private var slots: UnsafeMutableBufferPointer<UnsafeMutablePointer<rd_kafka_message_t>?>

    /// Creates a consumer for the cluster at `bootstrapServers` ("host:port[,host:port…]").
    ///
    /// `properties` are librdkafka configuration properties passed through unchanged (Kafka's
    /// names: `fetch.max.bytes`, `security.protocol`, …); they override this consumer's
    /// defaults (`enable.auto.commit=false`, `enable.auto.offset.store=false`,
    /// `enable.partition.eof=false`, `group.id=sluice-assign`).
    ///
    /// - Throws: ``KafkaClientError`` `_INVALID_ARG` with librdkafka's message for an unknown
    ///   property or an invalid value. Connecting happens later: an unreachable broker shows in
    ///   the first call that needs it.
    package init(bootstrapServers: String, properties: [String: String] = [:], callbacks: KafkaClientCallbacks = .init()) throws(KafkaClientError) {
        self.bootstrapServers = bootstrapServers
        self.properties = properties
        self.callbacks = callbacks
        self.groupID = properties["group.id"] ?? Self.defaultGroupID
        handle = try KafkaHandle(
            kind: RD_KAFKA_CONSUMER, properties: Self.configuration(bootstrapServers, properties, group: groupID), callbacks: callbacks)
        // Client-level events (errors, when there is no error callback) arrive with the messages.
        let redirected = rd_kafka_poll_set_consumer(handle.pointer)
        guard redirected == RD_KAFKA_RESP_ERR_NO_ERROR else {
            handle.destroy()
            throw KafkaClientError(redirected)
        }
        queue = rd_kafka_queue_get_consumer(handle.pointer)
        slots = .allocate(capacity: 1024)
    }

    /// The properties a handle of this consumer is created with: defaults, then the caller's
    /// (in key order, so aliases resolve the same way every time), then the group.
    static func configuration(_ bootstrapServers: String, _ properties: [String: String], group: String) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = [
            ("bootstrap.servers", bootstrapServers),
            ("enable.auto.commit", "false"),
            ("enable.auto.offset.store", "false"),
            ("enable.partition.eof", "false"),
        ]
        result += properties.sorted { $0.key < $1.key }.filter { $0.key != "group.id" }
        result.append(("group.id", group))
        return result
    }

    deinit {
        close()
        slots.deallocate()
    }

    /// Whether ``close()`` was called.
    package var isClosed: Bool { queue == nil }

    /// Stops consuming and destroys every librdkafka handle of this consumer. Later calls do nothing.
    package func close() {
        guard let queue else { return }
        self.queue = nil
        // librdkafka: the consumer queue must be released before rd_kafka_consumer_close().
        rd_kafka_queue_destroy(queue)
        if let pointer = handle.pointer { _ = rd_kafka_consumer_close(pointer) }
        handle.destroy()
        for committer in committers.values { committer.destroy() }
        committers = [:]
    }

    /// Replaces the assignment: from now on the consumer reads exactly these partitions, each
    /// from its offset. An empty list stops reading.
    ///
    /// - Throws: ``KafkaClientError`` when librdkafka rejects the assignment.
    package func assign(_ assignments: [KafkaAssignment]) throws(KafkaClientError) {
        let pointer = try open()
        let error: rd_kafka_resp_err_t
        if assignments.isEmpty {
            error = rd_kafka_assign(pointer, nil)
        } else {
            error = try withPartitionList(assignments.lazy.map { ($0.topic, $0.partition, $0.offset.rawValue) }) { list in
                rd_kafka_assign(pointer, list)
            }
        }
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaClientError(error) }
    }

    /// Waits up to `timeout` for messages and hands at most `maxMessages` of them to `body` as
    /// one batch, read in place (no copy of keys or values). Partition-end events are dropped;
    /// errors come as entries with ``KafkaMessage/isError`` set. `body` is not called when
    /// nothing arrived.
    ///
    /// Every message is destroyed when `body` returns or throws, so nothing of the batch may
    /// escape it.
    ///
    /// - Returns: The number of entries handed to `body` (data and errors).
    /// - Complexity: O(messages); one C call fills the batch.
    @discardableResult
    package func poll<Failure: Error>(
        maxMessages: Int = 1024, timeout: Duration, _ body: (KafkaMessageBatch) throws(Failure) -> Void
    ) throws(Failure) -> Int {
        guard let queue else { preconditionFailure("KafkaConsumer.poll after close()") }
        precondition(maxMessages > 0, "maxMessages must be positive")
        if slots.count < maxMessages {
            slots.deallocate()
            slots = .allocate(capacity: maxMessages)
        }
        let received = rd_kafka_consume_batch_queue(queue, timeout.kafkaMilliseconds, slots.baseAddress, maxMessages)
        // -1 only for invalid arguments, which the consumer never passes.
        precondition(received >= 0, "rd_kafka_consume_batch_queue failed: a bug in KafkaConsumer")
        var kept = 0
        for index in 0 ..< received {
            let message = slots[index].unsafelyUnwrapped
            if message.pointee.err == RD_KAFKA_RESP_ERR__PARTITION_EOF {
                rd_kafka_message_destroy(message)
            } else {
                slots[kept] = message
                kept += 1
            }
        }
        defer {
            for index in 0 ..< kept { rd_kafka_message_destroy(slots[index]) }
        }
        if kept > 0 { try body(KafkaMessageBatch(UnsafeBufferPointer(rebasing: slots[0 ..< kept]))) }
        return kept
    }

    /// The handle, or an error after ``close()``.
    func open() throws(KafkaClientError) -> OpaquePointer {
        guard !isClosed, let pointer = handle.pointer else { throw KafkaClientError(RD_KAFKA_RESP_ERR__DESTROY, "the consumer is closed") }
        return pointer
    }
}
