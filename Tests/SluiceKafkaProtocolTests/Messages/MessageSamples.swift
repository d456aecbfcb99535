import NIOCore

@testable import SluiceKafkaProtocol

/// A sample of every request and response, holding at each version exactly the fields that
/// version carries: non-default values where the version has the field, defaults elsewhere.
enum MessageSamples {
    static let all: [MessageCase] = core + admin + groups + security + transactions

    /// ApiVersions, Metadata, Produce, Fetch, ListOffsets (admin, group, security and transaction
    /// samples are in MessageSamples+Admin.swift, +Groups, +Security and +Transactions).
    static let core: [MessageCase] = [
        MessageCase(ApiVersionsRequest.self) { version in
            version >= 3 ? ApiVersionsRequest(clientSoftwareName: "librdkafka", clientSoftwareVersion: "2.6.1") : ApiVersionsRequest()
        },
        MessageCase(ApiVersionsResponse.self) { version in
            var response = ApiVersionsResponse.advertisingSupportedAPIs(errorCode: 35)
            if version >= 1 { response.throttleTimeMs = 12 }
            return response
        },
        MessageCase(MetadataRequest.self) { version in
            var request = MetadataRequest(
                topics: [.init(name: "orders"), .init(name: "payments")],
                allowAutoTopicCreation: version >= 4 ? false : true
            )
            if version >= 8 { request.includeTopicAuthorizedOperations = true }
            if (8 ... 10).contains(version) { request.includeClusterAuthorizedOperations = true }
            if version >= 10 { request.topics?[1].topicID = Sample.topicID }
            if version >= 12 { request.topics?.append(.init(name: nil, topicID: Sample.topicID)) }
            return request
        },
        MessageCase(MetadataResponse.self) { version in
            var partition = MetadataResponse.Partition(errorCode: 6, partitionIndex: 2, leaderID: 1, replicaNodes: [1, 2, 3], isrNodes: [1, 3])
            if version >= 7 { partition.leaderEpoch = 17 }
            if version >= 5 { partition.offlineReplicas = [2] }
            var topic = MetadataResponse.Topic(name: "orders", partitions: [partition, .init(partitionIndex: 0, leaderID: 1, replicaNodes: [1], isrNodes: [1])])
            if version >= 10 { topic.topicID = Sample.topicID }
            if version >= 1 { topic.isInternal = true }
            if version >= 8 { topic.topicAuthorizedOperations = 0x0FF8 }
            var broker = MetadataResponse.Broker(nodeID: 1, host: "localhost", port: 9092)
            if version >= 1 { broker.rack = "rack-a" }
            var response = MetadataResponse(
                brokers: [broker, .init(nodeID: 2, host: "127.0.0.1", port: 9093)],
                topics: [topic, .init(errorCode: 3, name: "missing", partitions: [])]
            )
            if version >= 3 { response.throttleTimeMs = 5 }
            if version >= 2 { response.clusterID = "sluice-cluster" }
            if version >= 1 { response.controllerID = 1 }
            if (8 ... 10).contains(version) { response.clusterAuthorizedOperations = 0x3F }
            if version >= 12 { response.topics.append(.init(errorCode: 100, name: nil, topicID: Sample.topicID, partitions: [])) }
            return response
        },
        MessageCase(ProduceRequest.self) { _ in
            ProduceRequest(
                transactionalID: "tx-1",
                acks: -1,
                timeoutMs: 30_000,
                topicData: [
                    .init(name: "orders", partitionData: [.init(index: 0, records: Sample.records), .init(index: 3, records: nil)]),
                    .init(name: "empty", partitionData: []),
                ]
            )
        },
        MessageCase(ProduceResponse.self) { version in
            var partition = ProduceResponse.Partition(index: 0, errorCode: 2, baseOffset: 42, logAppendTimeMs: 1_700_000_000_000)
            if version >= 5 { partition.logStartOffset = 7 }
            if version >= 8 {
                partition.recordErrors = [.init(batchIndex: 3, batchIndexErrorMessage: "bad key"), .init(batchIndex: 4)]
                partition.errorMessage = "corrupt message"
            }
            return ProduceResponse(
                responses: [.init(name: "orders", partitionResponses: [partition, .init(index: 1, baseOffset: -1)])],
                throttleTimeMs: 9
            )
        },
        MessageCase(FetchRequest.self) { version in
            var partition = FetchRequest.Partition(partition: 1, fetchOffset: 1_000, partitionMaxBytes: 1 << 20)
            if version >= 9 { partition.currentLeaderEpoch = 4 }
            if version >= 12 { partition.lastFetchedEpoch = 3 }
            if version >= 5 { partition.logStartOffset = 12 }
            var request = FetchRequest(
                maxWaitMs: 500,
                minBytes: 1,
                maxBytes: 52_428_800,
                isolationLevel: 1,
                topics: [.init(topic: "orders", partitions: [partition]), .init(topic: "payments", partitions: [])]
            )
            if version >= 7 {
                request.sessionID = 77
                request.sessionEpoch = 2
                request.forgottenTopicsData = [.init(topic: "old", partitions: [0, 5])]
            }
            if version >= 11 { request.rackID = "rack-b" }
            if version >= 12 { request.clusterID = "sluice-cluster" }
            return request
        },
        MessageCase(FetchResponse.self) { version in
            var partition = FetchResponse.Partition(
                partitionIndex: 1,
                highWatermark: 2_000,
                lastStableOffset: 1_990,
                abortedTransactions: [.init(producerID: 9, firstOffset: 1_500)],
                records: Sample.records
            )
            if version >= 5 { partition.logStartOffset = 10 }
            if version >= 11 { partition.preferredReadReplica = 2 }
            var response = FetchResponse(
                throttleTimeMs: 3,
                responses: [
                    .init(topic: "orders", partitions: [partition, .init(partitionIndex: 2, errorCode: 1, highWatermark: -1, records: nil)])
                ]
            )
            if version >= 7 {
                response.errorCode = 0
                response.sessionID = 77
            }
            return response
        },
        MessageCase(ListOffsetsRequest.self) { version in
            var partition = ListOffsetsRequest.Partition(partitionIndex: 0, timestamp: -2)
            if version >= 4 { partition.currentLeaderEpoch = 5 }
            var request = ListOffsetsRequest(
                replicaID: -1,
                topics: [.init(name: "orders", partitions: [partition, .init(partitionIndex: 1, timestamp: 1_700_000_000_000)])]
            )
            if version >= 2 { request.isolationLevel = 1 }
            return request
        },
        MessageCase(ListOffsetsResponse.self) { version in
            var partition = ListOffsetsResponse.Partition(partitionIndex: 0, timestamp: -1, offset: 1_234)
            if version >= 4 { partition.leaderEpoch = 5 }
            var response = ListOffsetsResponse(topics: [.init(name: "orders", partitions: [partition, .init(partitionIndex: 1, errorCode: 6)])])
            if version >= 2 { response.throttleTimeMs = 1 }
            return response
        },
    ]
}
