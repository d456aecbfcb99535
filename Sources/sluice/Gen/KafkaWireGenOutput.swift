import Foundation
import NIOCore
import SluiceBroker
import SluiceGen
import SluiceKafkaProtocol

/// `sluice gen` producing to a Kafka topic.
///
/// TEMPORARY: this goes through the command-line tools' blocking `KafkaWireClient` (one
/// connection to the bootstrap broker, which must lead every partition — true of Sluice's
/// broker, not of a Kafka cluster) until `SluiceKafkaClient.KafkaProducer` (librdkafka) exists;
/// then an `EventSink` over that producer replaces this file and nothing else changes. Keep
/// everything that knows about `KafkaWireClient` in here.
///
/// Records go to the partition Java's default partitioner picks for their key (murmur2), or
/// round-robin when they have none, in uncompressed v2 batches, one Produce request (`acks=all`)
/// per flush covering every partition with records.
final class KafkaWireGenOutput: EventSink {
    let topic: String
    let partitionCount: Int32
    private let client: KafkaWireClient
    private var partitioner: KafkaPartitioner
    private var pending: [[KafkaRecord]]
    private var pendingBytes = 0
    private static let maximumPendingBytes = 1 << 20
    private static let maximumPendingRecords = 16_384

    /// Connects, creates the topic with `partitions` partitions if asked and it does not exist,
    /// and asks how many partitions it has (Metadata creates it where auto-creation is on).
    init(bootstrap: String, topic: String, partitions: Int32?) throws {
        let (host, port) = try parseAddress(bootstrap)
        do {
            client = try KafkaWireClient(host: host, port: port)
            if let partitions {
                let response = try client.send(CreateTopicsRequest(topics: [.init(name: topic, numPartitions: partitions, replicationFactor: -1)]))
                for result in response.topics where result.errorCode != 0 && result.errorCode != KafkaErrorCode.topicAlreadyExists.rawValue {
                    throw KafkaGenOutputError("cannot create topic \(topic): Kafka error \(result.errorCode)\(result.errorMessage.map { ": \($0)" } ?? "")")
                }
            }
            partitionCount = try Self.partitionCount(of: topic, client: client)
        } catch let error as KafkaClientError {
            throw KafkaGenOutputError("\(bootstrap): \(error.description)")
        }
        self.topic = topic
        partitioner = KafkaPartitioner(partitionCount: partitionCount)
        pending = Array(repeating: [], count: Int(partitionCount))
    }

    /// The topic's partition count, waiting (up to 10 s) while a new topic has no leaders yet.
    private static func partitionCount(of topic: String, client: KafkaWireClient) throws -> Int32 {
        var lastError: Int16 = 0
        for _ in 0 ..< 100 {
            let response = try client.send(MetadataRequest(topics: [.init(name: topic)], allowAutoTopicCreation: true))
            if let found = response.topics.first(where: { $0.name == topic }) {
                lastError = found.errorCode
                if found.errorCode == 0, !found.partitions.isEmpty, found.partitions.allSatisfy({ $0.errorCode == 0 }) {
                    return Int32(found.partitions.count)
                }
            }
            usleep(100_000)
        }
        throw KafkaGenOutputError("topic \(topic) is not available (Kafka error \(lastError)); is auto-creation off? --partitions N creates it")
    }

    func send(key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer) throws {
        let partition = Int(partitioner.partition(for: key))
        let timestamp = Int64(Date().timeIntervalSince1970 * 1000)
        pending[partition].append(KafkaRecord(
            offset: Int64(pending[partition].count), timestamp: timestamp,
            key: key.map { ByteBuffer(bytes: $0) }, value: ByteBuffer(bytes: value)))
        pendingBytes += value.count + (key?.count ?? 0) + 16
        if pendingBytes >= Self.maximumPendingBytes || pending[partition].count >= Self.maximumPendingRecords {
            try flush()
        }
    }

    func flush() throws {
        guard pendingBytes > 0 else { return }
        var partitions: [ProduceRequest.Partition] = []
        for (index, records) in pending.enumerated() where !records.isEmpty {
            var batch = ByteBuffer()
            _ = RecordBatchEncoder().encode(records, into: &batch)
            partitions.append(.init(index: Int32(index), records: batch))
        }
        let response: ProduceResponse
        do {
            response = try client.send(ProduceRequest(acks: -1, timeoutMs: 30_000, topicData: [.init(name: topic, partitionData: partitions)]))
        } catch {
            throw KafkaGenOutputError("produce to \(topic): \(error.description)")
        }
        for result in response.responses.flatMap(\.partitionResponses) where result.errorCode != 0 {
            throw KafkaGenOutputError("produce to \(topic) partition \(result.index): Kafka error \(result.errorCode)\(result.errorMessage.map { ": \($0)" } ?? "")")
        }
        for index in pending.indices { pending[index].removeAll(keepingCapacity: true) }
        pendingBytes = 0
    }

    func finish() throws {
        try flush()
    }
}

/// Why producing generated events failed, for the user.
struct KafkaGenOutputError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
