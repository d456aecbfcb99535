import Foundation
import NIOCore
import SluiceKafkaProtocol

extension KafkaBroker {
    /// The APIs this broker answers, as ApiVersions advertises them.
    static let servedAPIs: [KafkaAPI] = KafkaAPI.allCases

    func apiVersions(_ request: ApiVersionsRequest, version: Int16) -> ApiVersionsResponse {
        ApiVersionsResponse(apiKeys: Self.servedAPIs.map(ApiVersionsResponse.APIVersionRange.init))
    }

    /// The broker (with the address of the listener the client came in on) and the topics asked
    /// for, or all of them. As in Kafka, a topic the principal may not DESCRIBE is answered with
    /// TOPIC_AUTHORIZATION_FAILED when named, and left out of an all-topics answer; a topic to be
    /// created needs CREATE.
    func metadata(_ request: MetadataRequest, version: Int16, _ context: RequestContext = .trusted) -> MetadataResponse {
        let address = advertisedAddress(listener: context.listenerIndex)
        let broker = MetadataResponse.Broker(nodeID: configuration.nodeID, host: address.host, port: address.port)
        var names: [String]
        var requestedIDs: [KafkaUUID: Int] = [:]
        var idsByName: [String: KafkaUUID] = [:]
        let isAllTopics: Bool
        if let requested = request.topics, !(version == 0 && requested.isEmpty) {
            isAllTopics = false
            names = []
            for (index, topic) in requested.enumerated() {
                if let name = topic.name { names.append(name) } else { requestedIDs[topic.topicID] = index }
            }
            for (id, _) in requestedIDs {
                if let name = topics.name(forID: id) {
                    names.append(name)
                    idsByName[name] = id
                }
            }
        } else {
            isAllTopics = true
            names = topics.names
        }
        // Before v4 every Metadata request may create topics; from v4 the client says.
        let mayCreate = configuration.autoCreateTopics && (version < 4 || request.allowAutoTopicCreation)
        var results: [MetadataResponse.Topic] = []
        for name in names {
            guard isAllowed(context, .describe, topic: name) else {
                if isAllTopics { continue }
                // A topic asked for by id keeps its name to itself.
                let id = idsByName[name]
                results.append(MetadataResponse.Topic(
                    errorCode: KafkaErrorCode.topicAuthorizationFailed.rawValue, name: id == nil ? name : nil, topicID: id ?? .zero, partitions: []))
                continue
            }
            var topic = topics.topic(name)
            var error = KafkaErrorCode.noError
            if topic == nil {
                if !TopicStore.isValidName(name) {
                    error = .invalidTopic
                } else if mayCreate && !isAllowed(context, .create, topic: name) {
                    error = .topicAuthorizationFailed
                } else if mayCreate {
                    do {
                        topic = try topics.create(name, partitions: configuration.defaultPartitions)
                    } catch let failure {
                        if case .exists = failure { topic = topics.topic(name) } else { error = failure.code }
                    }
                } else {
                    error = .unknownTopicOrPartition
                }
            }
            guard let topic else {
                results.append(MetadataResponse.Topic(errorCode: error.rawValue, name: name, partitions: []))
                continue
            }
            let partitions = (0 ..< topic.partitions).map { index in
                MetadataResponse.Partition(
                    partitionIndex: Int32(index), leaderID: configuration.nodeID, leaderEpoch: 0, replicaNodes: [configuration.nodeID],
                    isrNodes: [configuration.nodeID])
            }
            results.append(MetadataResponse.Topic(name: name, topicID: topic.uuid, partitions: partitions))
        }
        for (id, _) in requestedIDs where !results.contains(where: { $0.topicID == id }) {
            results.append(MetadataResponse.Topic(errorCode: KafkaErrorCode.unknownTopicID.rawValue, name: nil, topicID: id, partitions: []))
        }
        return MetadataResponse(brokers: [broker], clusterID: configuration.clusterID, controllerID: configuration.nodeID, topics: results)
    }

    func createTopics(_ request: CreateTopicsRequest, version: Int16, _ context: RequestContext = .trusted) -> CreateTopicsResponse {
        var results: [CreateTopicsResponse.Topic] = []
        for topic in request.topics {
            let partitions = topic.numPartitions == -1 ? (topic.assignments.isEmpty ? configuration.defaultPartitions : topic.assignments.count) : Int(topic.numPartitions)
            var result = CreateTopicsResponse.Topic(
                name: topic.name, errorCode: 0, numPartitions: Int32(partitions), replicationFactor: 1, configs: [])
            if !isAllowed(context, .create, topic: topic.name) {
                result.errorCode = KafkaErrorCode.topicAuthorizationFailed.rawValue
                result.errorMessage = "Authorization failed."
            } else if topic.replicationFactor > 1 {
                result.errorCode = KafkaErrorCode.invalidReplicationFactor.rawValue
                result.errorMessage = "Replication factor: \(topic.replicationFactor) larger than available brokers: 1."
            } else if !TopicStore.isValidName(topic.name) {
                result.errorCode = KafkaErrorCode.invalidTopic.rawValue
                result.errorMessage = "Topic name \"\(topic.name)\" is illegal: use letters, digits, '.', '_' and '-' (at most 249)."
            } else if topics.topic(topic.name) != nil {
                result.errorCode = KafkaErrorCode.topicAlreadyExists.rawValue
                result.errorMessage = "Topic '\(topic.name)' already exists."
            } else if partitions < 1 {
                result.errorCode = KafkaErrorCode.invalidPartitions.rawValue
                result.errorMessage = "Number of partitions must be larger than 0."
            } else if let problem = topic.configs.lazy.compactMap({ TopicConfigs.problem(name: $0.name, value: $0.value) }).first {
                result.errorCode = KafkaErrorCode.invalidConfig.rawValue
                result.errorMessage = problem
            } else if !request.validateOnly {
                var configs: [String: String] = [:]
                for config in topic.configs { if let value = config.value { configs[config.name] = value } }
                do {
                    let created = try topics.create(topic.name, partitions: partitions, configs: configs)
                    result.topicID = created.uuid
                } catch {
                    result.errorCode = error.code.rawValue
                    result.errorMessage = "\(error)"
                }
            }
            results.append(result)
        }
        return CreateTopicsResponse(topics: results)
    }

    func deleteTopics(_ request: DeleteTopicsRequest, version: Int16, _ context: RequestContext = .trusted) -> DeleteTopicsResponse {
        var results: [DeleteTopicsResponse.Result] = []
        for topic in request.topics {
            let name = topic.name ?? topics.name(forID: topic.topicID)
            guard let name else {
                results.append(DeleteTopicsResponse.Result(name: nil, topicID: topic.topicID, errorCode: KafkaErrorCode.unknownTopicID.rawValue))
                continue
            }
            guard isAllowed(context, .delete, topic: name) else {
                results.append(DeleteTopicsResponse.Result(
                    name: topic.name, topicID: topic.topicID, errorCode: KafkaErrorCode.topicAuthorizationFailed.rawValue,
                    errorMessage: "Authorization failed."))
                continue
            }
            let id = topics.topic(name)?.uuid ?? .zero
            do {
                try topics.delete(name)
                results.append(DeleteTopicsResponse.Result(name: name, topicID: id))
            } catch {
                results.append(DeleteTopicsResponse.Result(name: name, topicID: topic.topicID, errorCode: error.code.rawValue))
            }
        }
        return DeleteTopicsResponse(responses: results)
    }

    func createPartitions(_ request: CreatePartitionsRequest, version: Int16, _ context: RequestContext = .trusted) -> CreatePartitionsResponse {
        var results: [CreatePartitionsResponse.Result] = []
        for topic in request.topics {
            guard isAllowed(context, .alter, topic: topic.name) else {
                results.append(CreatePartitionsResponse.Result(
                    name: topic.name, errorCode: KafkaErrorCode.topicAuthorizationFailed.rawValue, errorMessage: "Authorization failed."))
                continue
            }
            guard let existing = topics.topic(topic.name) else {
                results.append(CreatePartitionsResponse.Result(name: topic.name, errorCode: KafkaErrorCode.unknownTopicOrPartition.rawValue))
                continue
            }
            guard Int(topic.count) > existing.partitions else {
                results.append(CreatePartitionsResponse.Result(
                    name: topic.name, errorCode: KafkaErrorCode.invalidPartitions.rawValue,
                    errorMessage: "Topic currently has \(existing.partitions) partitions, which is higher than the requested \(topic.count)."))
                continue
            }
            if request.validateOnly {
                results.append(CreatePartitionsResponse.Result(name: topic.name))
                continue
            }
            do {
                try topics.grow(topic.name, to: Int(topic.count))
                results.append(CreatePartitionsResponse.Result(name: topic.name))
            } catch {
                results.append(CreatePartitionsResponse.Result(name: topic.name, errorCode: error.code.rawValue))
            }
        }
        return CreatePartitionsResponse(results: results)
    }

    /// Topic (resource type 2) and broker (4) configurations: the settings this broker honours,
    /// with the topic's overrides. A topic's need DESCRIBE_CONFIGS on it; the broker's are
    /// anyone's (Sluice keeps no cluster ACLs).
    func describeConfigs(_ request: DescribeConfigsRequest, version: Int16, _ context: RequestContext = .trusted) -> DescribeConfigsResponse {
        var results: [DescribeConfigsResponse.Result] = []
        for resource in request.resources {
            var entries: [(String, String, Bool)] = []
            switch resource.resourceType {
            case 2 where !isAllowed(context, .describeConfigs, topic: resource.resourceName):
                results.append(DescribeConfigsResponse.Result(
                    errorCode: KafkaErrorCode.topicAuthorizationFailed.rawValue, errorMessage: "Authorization failed.", resourceType: 2,
                    resourceName: resource.resourceName, configs: []))
                continue
            case 2:
                guard let topic = topics.topic(resource.resourceName) else {
                    results.append(DescribeConfigsResponse.Result(
                        errorCode: KafkaErrorCode.unknownTopicOrPartition.rawValue, resourceType: 2, resourceName: resource.resourceName,
                        configs: []))
                    continue
                }
                let defaults: [(String, String)] = [
                    ("cleanup.policy", "delete"),
                    ("retention.ms", configuration.log.retentionMilliseconds.map(String.init) ?? "-1"),
                    ("retention.bytes", configuration.log.retentionBytes.map(String.init) ?? "-1"),
                    ("segment.bytes", String(configuration.log.segmentBytes)),
                    ("max.message.bytes", String(configuration.maxBatchBytes)),
                    ("message.timestamp.type", "CreateTime"),
                ]
                for (name, value) in defaults { entries.append((name, topic.configs[name] ?? value, topic.configs[name] == nil)) }
                for (name, value) in topic.configs.sorted(by: { $0.key < $1.key }) where !defaults.contains(where: { $0.0 == name }) {
                    entries.append((name, value, false))
                }
            case 4:
                entries = [
                    ("auto.create.topics.enable", String(configuration.autoCreateTopics), true),
                    ("num.partitions", String(configuration.defaultPartitions), true),
                    ("socket.request.max.bytes", String(configuration.maxRequestBytes), true),
                    ("message.max.bytes", String(configuration.maxBatchBytes), true),
                    ("log.segment.bytes", String(configuration.log.segmentBytes), true),
                ]
            default:
                results.append(DescribeConfigsResponse.Result(
                    errorCode: KafkaErrorCode.invalidRequest.rawValue, errorMessage: "Unsupported resource type \(resource.resourceType)",
                    resourceType: resource.resourceType, resourceName: resource.resourceName, configs: []))
                continue
            }
            if let keys = resource.configurationKeys { entries = entries.filter { keys.contains($0.0) } }
            let configs = entries.map { name, value, isDefault in
                DescribeConfigsResponse.Config(
                    name: name, value: value, readOnly: resource.resourceType == 4, isDefault: isDefault,
                    configSource: isDefault ? 5 : 1, isSensitive: false, synonyms: [], configType: 0, documentation: nil)
            }
            results.append(DescribeConfigsResponse.Result(resourceType: resource.resourceType, resourceName: resource.resourceName, configs: configs))
        }
        return DescribeConfigsResponse(results: results)
    }

    /// A producer id and epoch: a new id for an idempotent producer, or the transactional id's
    /// with its epoch bumped (fencing earlier instances) from the transaction coordinator.
    func initProducerID(_ request: InitProducerIdRequest, version: Int16) -> InitProducerIdResponse {
        if let id = request.transactionalID {
            guard !id.isEmpty else {
                return InitProducerIdResponse(errorCode: KafkaErrorCode.invalidRequest.rawValue, producerID: -1, producerEpoch: -1)
            }
            let current = version >= 3 ? (request.producerID, request.producerEpoch) : (Int64(-1), Int16(-1))
            switch transactions.initProducer(transactionalID: id, timeoutMs: request.transactionTimeoutMs, current: current) {
            case .success(let (producerID, epoch)):
                return InitProducerIdResponse(producerID: producerID, producerEpoch: epoch)
            case .failure(let refusal):
                // PRODUCER_FENCED is new in v4; older clients know it as INVALID_PRODUCER_EPOCH.
                let answered: KafkaErrorCode = refusal.code == .producerFenced && version < 4 ? .invalidProducerEpoch : refusal.code
                return InitProducerIdResponse(errorCode: answered.rawValue, producerID: -1, producerEpoch: -1)
            }
        }
        do {
            let (id, epoch) = try producers.allocate()
            return InitProducerIdResponse(producerID: id, producerEpoch: epoch)
        } catch {
            return InitProducerIdResponse(errorCode: KafkaErrorCode.kafkaStorageError.rawValue, producerID: -1, producerEpoch: -1)
        }
    }

    /// Offsets by time; the principal needs DESCRIBE on the topic, as in Kafka.
    func listOffsets(_ request: ListOffsetsRequest, version: Int16, _ context: RequestContext = .trusted) -> ListOffsetsResponse {
        let topics = request.topics.map { topic in
            let allowed = isAllowed(context, .describe, topic: topic.name)
            return ListOffsetsResponse.Topic(
                name: topic.name,
                partitions: topic.partitions.map { partition in
                    guard allowed else {
                        return ListOffsetsResponse.Partition(
                            partitionIndex: partition.partitionIndex, errorCode: KafkaErrorCode.topicAuthorizationFailed.rawValue)
                    }
                    guard let log = self.topics.log(topic.name, Int(partition.partitionIndex)) else {
                        return ListOffsetsResponse.Partition(
                            partitionIndex: partition.partitionIndex, errorCode: KafkaErrorCode.unknownTopicOrPartition.rawValue)
                    }
                    switch partition.timestamp {
                    case -1:
                        // read_committed consumers start from the last stable offset.
                        let latest = request.isolationLevel == 1 ? log.lastStableOffset : log.logEndOffset
                        return ListOffsetsResponse.Partition(partitionIndex: partition.partitionIndex, offset: latest, leaderEpoch: 0)
                    case -2:
                        return ListOffsetsResponse.Partition(partitionIndex: partition.partitionIndex, offset: log.logStartOffset, leaderEpoch: 0)
                    default:
                        guard let found = try? log.offset(forTimestamp: partition.timestamp) else {
                            return ListOffsetsResponse.Partition(partitionIndex: partition.partitionIndex, leaderEpoch: 0)
                        }
                        return ListOffsetsResponse.Partition(
                            partitionIndex: partition.partitionIndex, timestamp: found.timestamp, offset: found.offset, leaderEpoch: 0)
                    }
                })
        }
        return ListOffsetsResponse(topics: topics)
    }
}
