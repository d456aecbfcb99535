import NIOCore
import SluiceKafkaProtocol

/// Requests the broker tests send, one partition of one topic each.
enum Requests {
    static func batch(_ values: [String]) -> ByteBuffer {
        let encoder = RecordBatchEncoder()
        var buffer = ByteBuffer()
        _ = encoder.encode(
            values.enumerated().map { KafkaRecord(offset: Int64($0.offset), timestamp: 1, key: nil, value: ByteBuffer(string: $0.element)) },
            into: &buffer)
        return buffer
    }

    static func produce(_ topic: String, _ values: [String] = ["v"]) -> ProduceRequest {
        ProduceRequest(acks: -1, timeoutMs: 1000, topicData: [.init(name: topic, partitionData: [.init(index: 0, records: batch(values))])])
    }

    static func fetch(_ topic: String) -> FetchRequest {
        FetchRequest(maxWaitMs: 0, minBytes: 0, topics: [.init(topic: topic, partitions: [.init(partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20)])])
    }

    static func metadata(_ topics: [String]?, autoCreate: Bool = false) -> MetadataRequest {
        MetadataRequest(topics: topics.map { $0.map { MetadataRequest.Topic(name: $0) } }, allowAutoTopicCreation: autoCreate)
    }

    static func listOffsets(_ topic: String) -> ListOffsetsRequest {
        ListOffsetsRequest(topics: [.init(name: topic, partitions: [.init(partitionIndex: 0, timestamp: -1)])])
    }

    static func offsetCommit(_ topic: String) -> OffsetCommitRequest {
        OffsetCommitRequest(groupID: "g", topics: [.init(name: topic, partitions: [.init(partitionIndex: 0, committedOffset: 1)])])
    }

    static func offsetFetch(_ topics: [String]?) -> OffsetFetchRequest {
        OffsetFetchRequest(groupID: "g", topics: topics.map { $0.map { OffsetFetchRequest.Topic(name: $0, partitionIndexes: [0]) } })
    }
}

extension ProduceResponse {
    var firstErrorCode: Int16 { responses[0].partitionResponses[0].errorCode }
}

extension FetchResponse {
    var firstErrorCode: Int16 { responses[0].partitions[0].errorCode }
}
