import NIOCore
import SluiceKafkaProtocol

extension KafkaBroker {
    /// Answers a Fetch once at least `min_bytes` are ready or `max_wait_ms` has passed (long
    /// polling), re-reading the logs every few milliseconds meanwhile without holding a thread.
    /// Fetch sessions are declined (session id 0), so clients send full requests. Topics the
    /// principal may not READ get TOPIC_AUTHORIZATION_FAILED on every partition, at once.
    func fetch(
        _ request: FetchRequest, version: Int16, _ context: RequestContext = .trusted, on eventLoop: any EventLoop
    ) -> EventLoopFuture<FetchResponse> {
        let promise = eventLoop.makePromise(of: FetchResponse.self)
        let deadline = NIODeadline.now() + .milliseconds(Int64(max(0, request.maxWaitMs)))
        let refused = Set(request.topics.map(\.topic).filter { !isAllowed(context, .read, topic: $0) })
        attemptFetch(request, refused: refused, deadline: deadline, promise: promise, on: eventLoop)
        return promise.futureResult
    }

    private func attemptFetch(
        _ request: FetchRequest, refused: Set<String>, deadline: NIODeadline, promise: EventLoopPromise<FetchResponse>, on eventLoop: any EventLoop
    ) {
        let (response, bytes, failed) = readFetch(request, refused: refused)
        let now = NIODeadline.now()
        if failed || bytes >= Int(request.minBytes) || now >= deadline {
            traffic.fetched(response.responses.map { topic in (topic.topic, topic.partitions.reduce(0) { $0 + ($1.records?.readableBytes ?? 0) }) })
            promise.succeed(response)
            return
        }
        let wait = min(deadline - now, .milliseconds(5))
        eventLoop.scheduleTask(in: wait) { [self] in
            attemptFetch(request, refused: refused, deadline: deadline, promise: promise, on: eventLoop)
        }
    }

    /// One pass over the requested partitions: the response, the bytes of records in it, and
    /// whether any partition failed (which is answered at once).
    private func readFetch(_ request: FetchRequest, refused: Set<String>) -> (FetchResponse, Int, Bool) {
        var budget = request.maxBytes > 0 ? Int(request.maxBytes) : Int.max
        var total = 0
        var failed = false
        let topics = request.topics.map { topic in
            FetchResponse.Topic(
                topic: topic.topic,
                partitions: topic.partitions.map { partition in
                    guard !refused.contains(topic.topic) else {
                        failed = true
                        return Self.fetchError(partition.partition, .topicAuthorizationFailed)
                    }
                    guard let log = self.topics.log(topic.topic, Int(partition.partition)) else {
                        failed = true
                        return Self.fetchError(partition.partition, .unknownTopicOrPartition)
                    }
                    let highWatermark = log.logEndOffset
                    let logStart = log.logStartOffset
                    guard partition.fetchOffset >= logStart, partition.fetchOffset <= highWatermark else {
                        failed = true
                        return Self.fetchError(partition.partition, .offsetOutOfRange, highWatermark: highWatermark, logStart: logStart)
                    }
                    // read_committed (isolation level 1) reads up to the last stable offset, and
                    // learns which of those records belong to aborted transactions.
                    let lastStable = log.lastStableOffset
                    let readCommitted = request.isolationLevel == 1
                    let limit = readCommitted ? lastStable : highWatermark
                    var records = ByteBuffer()
                    if budget > 0 && partition.fetchOffset < limit {
                        let bytes = min(Int(max(partition.partitionMaxBytes, 1)), budget)
                        records = (try? log.read(from: partition.fetchOffset, maxBytes: bytes, below: limit)) ?? ByteBuffer()
                        budget -= records.readableBytes
                        total += records.readableBytes
                    }
                    var aborted: [FetchResponse.AbortedTransaction]?
                    if readCommitted {
                        let end = Self.endOffset(of: records) ?? partition.fetchOffset
                        aborted = log.abortedTransactions(from: partition.fetchOffset, before: end).map {
                            FetchResponse.AbortedTransaction(producerID: $0.producerID, firstOffset: $0.firstOffset)
                        }
                    }
                    return FetchResponse.Partition(
                        partitionIndex: partition.partition, errorCode: 0, highWatermark: highWatermark, lastStableOffset: lastStable,
                        logStartOffset: logStart, abortedTransactions: aborted, preferredReadReplica: -1, records: records)
                })
        }
        return (FetchResponse(responses: topics), total, failed)
    }

    /// One past the last offset of the batches in `records`, nil when it holds none.
    static func endOffset(of records: ByteBuffer) -> Int64? {
        var index = records.readerIndex
        var end: Int64?
        while let header = RecordBatchHeader.framed(at: index, of: records), index + header.byteCount <= records.writerIndex {
            end = header.lastOffset + 1
            index += header.byteCount
        }
        return end
    }

    static func fetchError(_ partition: Int32, _ code: KafkaErrorCode, highWatermark: Int64 = -1, logStart: Int64 = -1) -> FetchResponse.Partition {
        FetchResponse.Partition(
            partitionIndex: partition, errorCode: code.rawValue, highWatermark: highWatermark, lastStableOffset: highWatermark,
            logStartOffset: logStart, abortedTransactions: [], preferredReadReplica: -1, records: ByteBuffer())
    }
}
