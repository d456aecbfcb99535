import Foundation
import NIOCore
import SluiceBroker
import SluiceGen
import SluiceKafkaClient
import SluiceKafkaProtocol

/// `sluice gen` producing to a Kafka topic with librdkafka (`SluiceKafkaClient.KafkaProducer`).
///
/// Records go to the partition Java's default partitioner picks for their key (murmur2), or
/// round-robin when they have none; the partition is chosen here, so the placement does not
/// depend on librdkafka's partitioner settings. librdkafka batches (`linger.ms` 5) and waits for
/// every delivery at each flush; a failed delivery is an error.
///
/// Creating the topic (`--partitions N`) and asking its partition count go through the tools'
/// `KafkaWireClient` (CreateTopics and Metadata to the bootstrap broker), which the librdkafka
/// wrapper does not offer.
final class KafkaGenOutput: EventSink {
    let topic: String
    let partitionCount: Int32
    private let producer: KafkaProducer
    private var partitioner: KafkaPartitioner
    private var sentSinceFlush = 0

    /// Connects, creates the topic with `partitions` partitions if asked and it does not exist,
    /// and asks how many partitions it has (Metadata creates it where auto-creation is on).
    init(bootstrap: String, topic: String, partitions: Int32?) throws {
        let (host, port) = try parseAddress(bootstrap)
        do {
            let client = try KafkaWireClient(host: host, port: port)
            if let partitions {
                let response = try client.send(CreateTopicsRequest(topics: [.init(name: topic, numPartitions: partitions, replicationFactor: -1)]))
                for result in response.topics where result.errorCode != 0 && result.errorCode != KafkaErrorCode.topicAlreadyExists.rawValue {
                    throw KafkaGenOutputError("cannot create topic \(topic): Kafka error \(result.errorCode)\(result.errorMessage.map { ": \($0)" } ?? "")")
                }
            }
            partitionCount = try Self.partitionCount(of: topic, client: client)
        } catch let error as KafkaWireError {
            throw KafkaGenOutputError("\(bootstrap): \(error.description)")
        }
        do {
            producer = try KafkaProducer(bootstrapServers: bootstrap, properties: ["acks": "all"])
        } catch {
            throw KafkaGenOutputError("\(bootstrap): \(error.message)")
        }
        self.topic = topic
        partitioner = KafkaPartitioner(partitionCount: partitionCount)
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
        let partition = partitioner.partition(for: key)
        do {
            try producer.produce(topic: topic, partition: partition, key: key, value: value)
        } catch {
            throw KafkaGenOutputError("produce to \(topic): \(error.message)")
        }
        sentSinceFlush += 1
    }

    func flush() throws {
        guard sentSinceFlush > 0 else { return }
        sentSinceFlush = 0
        do {
            try producer.flush(timeout: .seconds(120))
        } catch {
            throw KafkaGenOutputError("produce to \(topic): \(error.message)")
        }
        let report = producer.deliveryReport
        if report.failed > 0 {
            throw KafkaGenOutputError(
                "produce to \(topic): \(report.failed) events were not delivered\(report.lastError.map { ": \($0.message)" } ?? "")")
        }
    }

    func finish() throws {
        try flush()
        try? producer.close()
    }
}

/// Why producing generated events failed, for the user.
struct KafkaGenOutputError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
