import NIOCore

@testable import SluiceKafkaProtocol

extension MessageSamples {
    /// CreateTopics, DeleteTopics, CreatePartitions, DescribeConfigs, AlterConfigs,
    /// IncrementalAlterConfigs, InitProducerId.
    static let admin: [MessageCase] = [
        MessageCase(CreateTopicsRequest.self) { version in
            CreateTopicsRequest(
                topics: [
                    .init(name: "orders", numPartitions: 3, replicationFactor: 1, configs: [.init(name: "retention.ms", value: "60000"), .init(name: "x", value: nil)]),
                    .init(name: "placed", numPartitions: -1, replicationFactor: -1, assignments: [.init(partitionIndex: 0, brokerIDs: [1, 2]), .init(partitionIndex: 1, brokerIDs: [])]),
                ],
                timeoutMs: 15_000,
                validateOnly: version >= 1
            )
        },
        MessageCase(CreateTopicsResponse.self) { version in
            var created = CreateTopicsResponse.Topic(name: "orders")
            var failed = CreateTopicsResponse.Topic(name: "taken", errorCode: 36)
            if version >= 7 { created.topicID = Sample.topicID }
            if version >= 1 { failed.errorMessage = "Topic 'taken' already exists." }
            if version >= 5 {
                created.numPartitions = 3
                created.replicationFactor = 1
                created.configs = [
                    .init(name: "cleanup.policy", value: "delete", configSource: 5),
                    .init(name: "secret", value: nil, readOnly: true, configSource: 4, isSensitive: true),
                ]
                created.topicConfigErrorCode = 29
            }
            var response = CreateTopicsResponse(topics: [created, failed])
            if version >= 2 { response.throttleTimeMs = 4 }
            return response
        },
        MessageCase(DeleteTopicsRequest.self) { version in
            var topics: [DeleteTopicsRequest.Topic] = [.init(name: "orders"), .init(name: "payments")]
            if version >= 6 { topics.append(.init(name: nil, topicID: Sample.topicID)) }
            return DeleteTopicsRequest(topics: topics, timeoutMs: 30_000)
        },
        MessageCase(DeleteTopicsResponse.self) { version in
            var missing = DeleteTopicsResponse.Result(name: "missing", errorCode: 3)
            if version >= 5 { missing.errorMessage = "This server does not host this topic-partition." }
            var results: [DeleteTopicsResponse.Result] = [.init(name: "orders"), missing]
            if version >= 6 {
                results[0].topicID = Sample.topicID
                results.append(.init(name: nil, topicID: Sample.topicID, errorCode: 100))
            }
            var response = DeleteTopicsResponse(responses: results)
            if version >= 1 { response.throttleTimeMs = 2 }
            return response
        },
        MessageCase(CreatePartitionsRequest.self) { _ in
            CreatePartitionsRequest(
                topics: [
                    .init(name: "orders", count: 6),
                    .init(name: "placed", count: 3, assignments: [.init(brokerIDs: [1]), .init(brokerIDs: [2, 1])]),
                ],
                timeoutMs: 10_000,
                validateOnly: true
            )
        },
        MessageCase(CreatePartitionsResponse.self) { _ in
            CreatePartitionsResponse(
                throttleTimeMs: 1,
                results: [.init(name: "orders"), .init(name: "placed", errorCode: 37, errorMessage: "Topic already has 3 partitions.")]
            )
        },
        MessageCase(DescribeConfigsRequest.self) { version in
            DescribeConfigsRequest(
                resources: [
                    .init(resourceType: 2, resourceName: "orders", configurationKeys: ["retention.ms", "cleanup.policy"]),
                    .init(resourceType: 4, resourceName: "1"),
                ],
                includeSynonyms: version >= 1,
                includeDocumentation: version >= 3
            )
        },
        MessageCase(DescribeConfigsResponse.self) { version in
            var config = DescribeConfigsResponse.Config(name: "retention.ms", value: "604800000", isSensitive: false)
            if version == 0 { config.isDefault = true } else { config.configSource = 5 }
            if version >= 1 {
                config.synonyms = [.init(name: "log.retention.ms", value: nil, source: 4), .init(name: "log.retention.hours", value: "168", source: 5)]
            }
            if version >= 3 {
                config.configType = 5
                config.documentation = "How long to keep a log segment."
            }
            return DescribeConfigsResponse(
                throttleTimeMs: 0,
                results: [
                    .init(resourceType: 2, resourceName: "orders", configs: [config, .init(name: "password", value: nil, readOnly: true, isSensitive: true)]),
                    .init(errorCode: 3, errorMessage: "unknown topic", resourceType: 2, resourceName: "missing", configs: []),
                ]
            )
        },
        MessageCase(AlterConfigsRequest.self) { _ in
            AlterConfigsRequest(
                resources: [
                    .init(resourceType: 2, resourceName: "orders", configs: [.init(name: "retention.ms", value: "60000"), .init(name: "cleanup.policy", value: nil)]),
                    .init(resourceType: 4, resourceName: "1", configs: []),
                ],
                validateOnly: true
            )
        },
        MessageCase(AlterConfigsResponse.self) { _ in
            AlterConfigsResponse(
                throttleTimeMs: 3,
                responses: [
                    .init(resourceType: 2, resourceName: "orders"),
                    .init(errorCode: 40, errorMessage: "Invalid value -5 for retention.ms", resourceType: 4, resourceName: "1"),
                ]
            )
        },
        MessageCase(IncrementalAlterConfigsRequest.self) { _ in
            IncrementalAlterConfigsRequest(
                resources: [
                    .init(resourceType: 2, resourceName: "orders", configs: [
                        .init(name: "retention.ms", configOperation: 0, value: "60000"),
                        .init(name: "segment.bytes", configOperation: 1, value: nil),
                        .init(name: "leader.replication.throttled.replicas", configOperation: 2, value: "0:1"),
                    ]),
                    .init(resourceType: 4, resourceName: "", configs: [.init(name: "log.cleaner.threads", configOperation: 0, value: "2")]),
                ],
                validateOnly: true
            )
        },
        MessageCase(IncrementalAlterConfigsResponse.self) { _ in
            IncrementalAlterConfigsResponse(
                throttleTimeMs: 1,
                responses: [
                    .init(resourceType: 2, resourceName: "orders"),
                    .init(errorCode: 44, errorMessage: "not allowed", resourceType: 4, resourceName: ""),
                ]
            )
        },
        MessageCase(InitProducerIdRequest.self) { version in
            var request = InitProducerIdRequest(transactionalID: "tx-orders", transactionTimeoutMs: 60_000)
            if version >= 3 {
                request.producerID = 1_000
                request.producerEpoch = 3
            }
            return request
        },
        MessageCase(InitProducerIdResponse.self) { _ in
            InitProducerIdResponse(throttleTimeMs: 0, errorCode: 0, producerID: 4_000, producerEpoch: 0)
        },
    ]
}
