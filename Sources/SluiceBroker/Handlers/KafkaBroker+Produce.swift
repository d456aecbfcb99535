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
        if log.configuration.compacts, let refusal = Self.keylessRecordRefusal(views, in: records, topic: topic, partition: partition) {
            return refusal
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
        let transactional = views.first.map { $0.header.isTransactional } ?? false
        do {
            if !idempotent {
                let (first, _) = try log.append(batches)
                return ProduceResponse.Partition(index: partition, errorCode: 0, baseOffset: first, logAppendTimeMs: -1, logStartOffset: log.logStartOffset)
            }
            if transactional {
                // Checked and appended under the coordinator's lock: no batch lands after its
                // transaction's marker.
                return try transactions.withLock { () throws -> ProduceResponse.Partition in
                    for view in views {
                        guard view.header.isTransactional, view.header.producerID == views[0].header.producerID else {
                            return Self.produceError(partition, .invalidRecord, message: "a request mixes transactional and other batches")
                        }
                        if let refusal = transactions.admit(
                            producerID: view.header.producerID, epoch: view.header.producerEpoch, topic: topic, partition: partition)
                        {
                            return Self.produceError(partition, refusal)
                        }
                    }
                    return try appendIdempotent(views, batches, topic: topic, partition: partition, to: log)
                }
            }
            return try appendIdempotent(views, batches, topic: topic, partition: partition, to: log)
        } catch {
            return Self.produceError(partition, .kafkaStorageError, message: "\(error)")
        }
    }

    /// Appends an idempotent producer's batches, answering a retry with the offset it got.
    private func appendIdempotent(
        _ views: [RecordBatchView], _ batches: [ByteBuffer], topic: String, partition: Int32, to log: PartitionLog
    ) throws -> ProduceResponse.Partition {
        try producers.withLock { () throws -> ProduceResponse.Partition in
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
    }

    /// For a compacted topic, whose records the cleaner keeps by key: INVALID_RECORD, in Kafka's
    /// words, when a record has a null key (Kafka's `LogValidator`), and nothing of the
    /// partition's data is appended; nil when every record has a key. The records' keys are
    /// read (compressed batches decompressed), so only compacted topics pay for it.
    private static func keylessRecordRefusal(
        _ views: [RecordBatchView], in records: ByteBuffer, topic: String, partition: Int32
    ) -> ProduceResponse.Partition? {
        for view in views {
            var hasKeylessRecord = false
            do {
                try RecordKeyReader.forEachRecord(of: view, in: records) { record in
                    hasKeylessRecord = record.key == nil
                    return !hasKeylessRecord
                }
            } catch {
                return produceError(partition, error.code, message: error.description)
            }
            if hasKeylessRecord {
                return produceError(
                    partition, .invalidRecord,
                    message: "Compacted topic cannot accept message without key in topic partition \(topic)-\(partition).")
            }
        }
        return nil
    }

    static func produceError(_ partition: Int32, _ code: KafkaErrorCode, message: String? = nil) -> ProduceResponse.Partition {
        ProduceResponse.Partition(index: partition, errorCode: code.rawValue, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, errorMessage: message)
    }
}
