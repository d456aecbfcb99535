import NIOCore
import SluiceKafkaProtocol

extension KafkaBroker {
    /// Validates each partition's batches (framing, CRC, Kafka's rules for producer data),
    /// drops retries of batches an idempotent producer already wrote, and appends the rest.
    /// Flushing follows the log's policy; with `acks=0` the caller sends no response. Topics the
    /// principal may not WRITE get TOPIC_AUTHORIZATION_FAILED on every partition.
    func produce(_ request: ProduceRequest, version: Int16, _ context: RequestContext = .trusted) -> ProduceResponse {
        let acksValid = request.acks == 0 || request.acks == 1 || request.acks == -1
        let topics = request.topicData.map { topic in
            let allowed = isAllowed(context, .write, topic: topic.name)
            return ProduceResponse.Topic(
                name: topic.name,
                partitionResponses: topic.partitionData.map { partition in
                    guard allowed else { return Self.produceError(partition.index, .topicAuthorizationFailed) }
                    guard acksValid else { return Self.produceError(partition.index, .invalidRequiredAcks) }
                    return produce(topic: topic.name, partition: partition.index, records: partition.records, version: version)
                })
        }
        return ProduceResponse(responses: topics)
    }

    private func produce(topic: String, partition: Int32, records: ByteBuffer?, version: Int16) -> ProduceResponse.Partition {
        guard let log = topics.log(topic, Int(partition)) else { return Self.produceError(partition, .unknownTopicOrPartition) }
        guard let records, records.readableBytes > 0 else { return Self.produceError(partition, .invalidRecord) }
        let views: [RecordBatchView]
        do {
            views = try RecordBatchValidator(origin: .client).validate(records)
        } catch {
            return Self.produceError(partition, error.code, message: error.description)
        }
        if views.isEmpty { return Self.produceError(partition, .invalidRecord) }
        if let large = views.first(where: { $0.byteRange.count > configuration.maxBatchBytes }) {
            return Self.produceError(partition, .messageTooLarge, message: "batch of \(large.byteRange.count) bytes is above max.message.bytes")
        }
        let batches = views.map { records.getSlice(at: $0.byteRange.lowerBound, length: $0.byteRange.count)! }
        let response = append(views, batches, topic: topic, partition: partition, to: log)
        if response.errorCode == 0 {
            traffic.produced(
                topic: topic, records: views.reduce(0) { $0 + Int($1.header.recordCount) }, bytes: views.reduce(0) { $0 + $1.byteRange.count })
        }
        return response
    }

    /// Appends validated `batches`, dropping an idempotent producer's retries.
    private func append(
        _ views: [RecordBatchView], _ batches: [ByteBuffer], topic: String, partition: Int32, to log: PartitionLog
    ) -> ProduceResponse.Partition {
        let idempotent = views.first.map { $0.header.hasProducerID } ?? false
        do {
            if !idempotent {
                let (first, _) = try log.append(batches)
                return ProduceResponse.Partition(index: partition, errorCode: 0, baseOffset: first, logAppendTimeMs: -1, logStartOffset: log.logStartOffset)
            }
            return try producers.withLock { () throws -> ProduceResponse.Partition in
                var firstOffset: Int64?
                for (view, batch) in zip(views, batches) {
                    let header = view.header
                    let lastSequence = header.baseSequence &+ header.lastOffsetDelta
                    switch producers.decide(
                        producerID: header.producerID, epoch: header.producerEpoch, topic: topic, partition: partition,
                        firstSequence: header.baseSequence, lastSequence: lastSequence)
                    {
                    case .duplicate(let offset):
                        firstOffset = firstOffset ?? offset
                    case .reject(let code):
                        return Self.produceError(partition, code)
                    case .append:
                        let (offset, _) = try log.append([batch])
                        producers.record(
                            producerID: header.producerID, epoch: header.producerEpoch, topic: topic, partition: partition,
                            firstSequence: header.baseSequence, lastSequence: lastSequence, offset: offset)
                        firstOffset = firstOffset ?? offset
                    }
                }
                return ProduceResponse.Partition(
                    index: partition, errorCode: 0, baseOffset: firstOffset ?? -1, logAppendTimeMs: -1, logStartOffset: log.logStartOffset)
            }
        } catch {
            return Self.produceError(partition, .kafkaStorageError, message: "\(error)")
        }
    }

    static func produceError(_ partition: Int32, _ code: KafkaErrorCode, message: String? = nil) -> ProduceResponse.Partition {
        ProduceResponse.Partition(index: partition, errorCode: code.rawValue, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, errorMessage: message)
    }
}
