import SluiceKafkaProtocol

/// The transactional requests (KIP-98), answered by the ``TransactionCoordinator``.
///
/// PRODUCER_FENCED (90) is new in version 2 of AddPartitionsToTxn, AddOffsetsToTxn, EndTxn and
/// TxnOffsetCommit; earlier versions get INVALID_PRODUCER_EPOCH (47) for it, as Kafka answers.
extension KafkaBroker {
    func addPartitionsToTxn(_ request: AddPartitionsToTxnRequest, version: Int16, _ context: RequestContext = .trusted) -> AddPartitionsToTxnResponse {
        func answer(_ code: (String, Int32) -> KafkaErrorCode) -> AddPartitionsToTxnResponse {
            AddPartitionsToTxnResponse(resultsByTopic: request.topics.map { topic in
                AddPartitionsToTxnResponse.TopicResult(name: topic.name, resultsByPartition: topic.partitions.map {
                    AddPartitionsToTxnResponse.PartitionResult(partitionIndex: $0, partitionErrorCode: code(topic.name, $0).rawValue)
                })
            })
        }
        // Partitions that cannot join fail the whole request, the others OPERATION_NOT_ATTEMPTED.
        var refused: [String: KafkaErrorCode] = [:]
        for topic in request.topics {
            if !isAllowed(context, .write, topic: topic.name) {
                refused[topic.name] = .topicAuthorizationFailed
            } else if let partitions = topics.topic(topic.name)?.partitions {
                if topic.partitions.contains(where: { $0 < 0 || $0 >= Int32(partitions) }) { refused[topic.name] = .unknownTopicOrPartition }
            } else {
                refused[topic.name] = .unknownTopicOrPartition
            }
        }
        if !refused.isEmpty {
            return answer { topic, _ in refused[topic] ?? .operationNotAttempted }
        }
        let partitions = request.topics.flatMap { topic in
            topic.partitions.map { TransactionCoordinator.TopicPartition(topic: topic.name, partition: $0) }
        }
        let code = transactions.addPartitions(
            transactionalID: request.transactionalID, producerID: request.producerID, epoch: request.producerEpoch, partitions)
        return answer { _, _ in Self.fenced(code, version: version) }
    }

    func addOffsetsToTxn(_ request: AddOffsetsToTxnRequest, version: Int16) -> AddOffsetsToTxnResponse {
        guard !request.groupID.isEmpty else { return AddOffsetsToTxnResponse(errorCode: KafkaErrorCode.invalidGroupID.rawValue) }
        let code = transactions.addOffsets(
            transactionalID: request.transactionalID, producerID: request.producerID, epoch: request.producerEpoch, group: request.groupID)
        return AddOffsetsToTxnResponse(errorCode: Self.fenced(code, version: version).rawValue)
    }

    func txnOffsetCommit(_ request: TxnOffsetCommitRequest, version: Int16, _ context: RequestContext = .trusted) -> TxnOffsetCommitResponse {
        func answer(_ code: (String) -> KafkaErrorCode) -> TxnOffsetCommitResponse {
            TxnOffsetCommitResponse(topics: request.topics.map { topic in
                TxnOffsetCommitResponse.Topic(name: topic.name, partitions: topic.partitions.map {
                    TxnOffsetCommitResponse.Partition(partitionIndex: $0.partitionIndex, errorCode: code(topic.name).rawValue)
                })
            })
        }
        guard !request.groupID.isEmpty else { return answer { _ in .invalidGroupID } }
        // v3 names the consumer's generation: a member that left the group may not commit.
        if version >= 3, request.generationID >= 0,
            let error = groups.commitError(group: request.groupID, generation: request.generationID, memberID: request.memberID)
        {
            return answer { _ in error }
        }
        let refused = Set(request.topics.map(\.name).filter { !isAllowed(context, .read, topic: $0) })
        if !refused.isEmpty { return answer { refused.contains($0) ? .topicAuthorizationFailed : .operationNotAttempted } }
        let offsets = request.topics.flatMap { topic in
            topic.partitions.map {
                TransactionCoordinator.PendingOffset(
                    group: request.groupID, topic: topic.name, partition: $0.partitionIndex, offset: $0.committedOffset,
                    metadata: $0.committedMetadata)
            }
        }
        let code = transactions.commitOffsets(
            transactionalID: request.transactionalID, producerID: request.producerID, epoch: request.producerEpoch, group: request.groupID,
            offsets)
        return answer { _ in Self.fenced(code, version: version) }
    }

    func endTxn(_ request: EndTxnRequest, version: Int16) -> EndTxnResponse {
        let code = transactions.end(
            transactionalID: request.transactionalID, producerID: request.producerID, epoch: request.producerEpoch, commit: request.committed)
        return EndTxnResponse(errorCode: Self.fenced(code, version: version).rawValue)
    }

    /// PRODUCER_FENCED as a client of `version` knows it.
    private static func fenced(_ code: KafkaErrorCode, version: Int16) -> KafkaErrorCode {
        code == .producerFenced && version < 2 ? .invalidProducerEpoch : code
    }
}
