import CRdKafka
import Dispatch
import Synchronization
import SluiceCore

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
    /// The assignment's partitions with the offset after the last message taken from each (-1:
    /// not known), for ``wakeFetcherIfStalled()``.
    private var taken: [(topic: String, partition: Int32, next: Int64)] = []
    /// librdkafka's prefetch thresholds: `queued.min.messages` and `queued.max.messages.kbytes`
    /// in bytes.
    private let prefetchMessages: Int
    private let prefetchBytes: Int
    /// Made with `enable.partition.eof=true`: the end-of-partition entries reach ``poll(maxMessages:timeout:_:)``'s
    /// caller (``KafkaMessage/isPartitionEnd``); otherwise they are dropped.
    private let deliversPartitionEnds: Bool
    /// Value bytes and messages taken so far, for the average message size.
    private var takenBytes = 0
    private var takenMessages = 0
    /// What librdkafka holds fetched for this consumer (its queue's length times the average
    /// message so far), in the process's memory ledger; set at each poll.
    private let prefetched = MemoryShare(.sourceBuffers)
    private var lastWake = ContinuousClock.now
    private let waker = FetcherWaker()
    /// How many times the consumer woke librdkafka's fetcher (``wakeFetcherIfStalled()``).
    package private(set) var fetcherWakes = 0

    /// Value bytes of the messages taken so far.
    package var bytesTaken: Int { takenBytes }

    /// Messages behind the end of the assigned partitions, from the high watermarks librdkafka
    /// last fetched (no request); nil until a watermark of each partition with a position is known.
    package func lag() -> Int? {
        guard let pointer = handle.pointer, !taken.isEmpty else { return nil }
        var behind = 0
        for entry in taken where entry.next >= 0 {
            var low: Int64 = -1
            var high: Int64 = -1
            guard rd_kafka_get_watermark_offsets(pointer, entry.topic, entry.partition, &low, &high) == RD_KAFKA_RESP_ERR_NO_ERROR, high >= 0
            else { return nil }
            behind += Int(max(0, high - entry.next))
        }
        return behind
    }

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
        prefetchMessages = properties["queued.min.messages"].flatMap { Int($0) } ?? 100_000
        prefetchBytes = (properties["queued.max.messages.kbytes"].flatMap { Int($0) } ?? 65_536) * 1024
        deliversPartitionEnds = properties["enable.partition.eof"] == "true"
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
        prefetched.set(0)
        waker.finish()
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
        taken = assignments.map { assignment in
            if case .exact(let offset) = assignment.offset { return (assignment.topic, assignment.partition, offset) }
            return (assignment.topic, assignment.partition, -1)
        }
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
        wakeFetcherIfStalled()
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
            if message.pointee.err == RD_KAFKA_RESP_ERR__PARTITION_EOF && !deliversPartitionEnds {
                rd_kafka_message_destroy(message)
            } else {
                takenBytes &+= message.pointee.len
                slots[kept] = message
                kept += 1
            }
        }
        takenMessages &+= kept
        prefetched.set(takenMessages > 0 ? Int(rd_kafka_queue_length(queue)) * (takenBytes / takenMessages) : 0)
        // The position reached in each partition: its last message in the batch.
        var seen = 0
        for index in stride(from: kept - 1, through: 0, by: -1) where seen < taken.count {
            let message = slots[index].unsafelyUnwrapped.pointee
            guard message.err == RD_KAFKA_RESP_ERR_NO_ERROR,
                  let slot = taken.firstIndex(where: { $0.partition == message.partition }), taken[slot].next <= message.offset
            else { continue }
            taken[slot].next = message.offset + 1
            seen += 1
        }
        defer {
            for index in 0 ..< kept { rd_kafka_message_destroy(slots[index]) }
        }
        if kept > 0 { try body(KafkaMessageBatch(UnsafeBufferPointer(rebasing: slots[0 ..< kept]))) }
        return kept
    }

    /// Keeps librdkafka's fetcher going while the consumer reads a backlog.
    ///
    /// librdkafka (2.0) stops fetching a partition whose prefetch queue holds more than
    /// `queued.min.messages` messages or `queued.max.messages.kbytes`, and looks again only when
    /// its broker thread wakes: on a response, a request to send, or its one-second timer. A
    /// consumer reading a backlog fills the queue, drains it in a fraction of that second and then
    /// waits for the rest, so it reads a backlog at `queued.min.messages` a second whatever its
    /// speed. So when the queue has dropped below half of either threshold and the high watermarks
    /// of the last fetches show messages not fetched yet, the consumer asks the leader of the
    /// partition furthest behind for its watermarks: a request that wakes the broker thread, which
    /// then finds the partition fetchable again. The request is sent from another thread (it may
    /// wait behind a fetch), one at a time, at most every 2 ms.
    private func wakeFetcherIfStalled() {
        guard let queue, let pointer = handle.pointer, !taken.isEmpty, !waker.isBusy else { return }
        let averageSize = takenMessages > 0 ? max(1, takenBytes / takenMessages) : 1
        let lowMark = min(prefetchMessages, prefetchBytes / averageSize) / 2
        let queued = rd_kafka_queue_length(queue)
        guard queued < lowMark else { return }
        let now = ContinuousClock.now
        guard now - lastWake > .milliseconds(2) else { return }
        var behind = 0
        var furthest = taken[0]
        var furthestBy: Int64 = 0
        for entry in taken where entry.next >= 0 {
            var low: Int64 = -1
            var high: Int64 = -1
            guard rd_kafka_get_watermark_offsets(pointer, entry.topic, entry.partition, &low, &high) == RD_KAFKA_RESP_ERR_NO_ERROR,
                  high > entry.next
            else { continue }
            behind += Int(high - entry.next)
            if high - entry.next > furthestBy { (furthest, furthestBy) = (entry, high - entry.next) }
        }
        guard behind > queued else { return }
        lastWake = now
        fetcherWakes += 1
        waker.wake(pointer, topic: furthest.topic, partition: furthest.partition)
    }

    /// The handle, or an error after ``close()``.
    func open() throws(KafkaClientError) -> OpaquePointer {
        guard !isClosed, let pointer = handle.pointer else { throw KafkaClientError(RD_KAFKA_RESP_ERR__DESTROY, "the consumer is closed") }
        return pointer
    }
}

/// Sends the requests that wake a consumer's fetcher (``KafkaConsumer/wakeFetcherIfStalled()``)
/// from a thread of its own, one at a time.
private final class FetcherWaker: @unchecked Sendable {
    private let queue = DispatchQueue(label: "sluice-kafka-fetcher-waker")
    private let busy = Atomic<Bool>(false)

    /// Whether a request is still under way.
    var isBusy: Bool { busy.load(ordering: .acquiring) }

    /// Asks the leader of `partition` for its watermarks, with `handle`, on the waker's thread.
    func wake(_ handle: OpaquePointer, topic: String, partition: Int32) {
        busy.store(true, ordering: .releasing)
        nonisolated(unsafe) let handle = handle
        queue.async { [self] in
            var low: Int64 = -1
            var high: Int64 = -1
            _ = rd_kafka_query_watermark_offsets(handle, topic, partition, &low, &high, 1000)
            busy.store(false, ordering: .releasing)
        }
    }

    /// Waits for the request under way, if any: the handle may then be destroyed.
    func finish() {
        queue.sync {}
    }
}
