import Foundation
import NIOCore
import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

@Suite struct ProduceTests {
    private func batch(sequence: Int32, count: Int, producer: Int64 = 1000) -> ByteBuffer {
        var encoder = RecordBatchEncoder()
        encoder.producerID = producer
        encoder.producerEpoch = 0
        encoder.baseSequence = sequence
        var buffer = ByteBuffer()
        _ = encoder.encode((0 ..< count).map { KafkaRecord(offset: Int64($0), timestamp: 1, key: nil, value: ByteBuffer(string: "v\($0)")) }, into: &buffer)
        return buffer
    }

    private func produce(_ broker: KafkaBroker, _ records: ByteBuffer) -> ProduceResponse.Partition {
        broker.produce(
            ProduceRequest(acks: -1, timeoutMs: 1000, topicData: [.init(name: "t", partitionData: [.init(index: 0, records: records)])]), version: 9
        ).responses[0].partitionResponses[0]
    }

    @Test func retriedBatchesAreRecognisedEvenAfterARestart() throws {
        let directory = NSTemporaryDirectory() + "sluice-produce-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = BrokerConfiguration()
        configuration.dataDirectory = directory
        do {
            let broker = try KafkaBroker(configuration: configuration)
            try broker.topics.create("t", partitions: 1)
            #expect(produce(broker, batch(sequence: 0, count: 3)).baseOffset == 0)
            // The same batch again (a retry): answered with its offset, not stored twice.
            let retry = produce(broker, batch(sequence: 0, count: 3))
            #expect(retry.errorCode == 0 && retry.baseOffset == 0)
            #expect(broker.topics.log("t", 0)?.logEndOffset == 3)
        }
        let restarted = try KafkaBroker(configuration: configuration)
        let retry = produce(restarted, batch(sequence: 0, count: 3))
        #expect(retry.errorCode == 0 && retry.baseOffset == 0)
        #expect(produce(restarted, batch(sequence: 3, count: 2)).baseOffset == 3)
        #expect(produce(restarted, batch(sequence: 9, count: 1)).errorCode == KafkaErrorCode.outOfOrderSequenceNumber.rawValue)
        #expect(restarted.topics.log("t", 0)?.logEndOffset == 5)
        // Unknown partitions, bad acks and corrupt batches get their codes.
        let unknown = restarted.produce(
            ProduceRequest(acks: -1, timeoutMs: 1000, topicData: [.init(name: "t", partitionData: [.init(index: 7, records: batch(sequence: 0, count: 1, producer: -1))])]),
            version: 9)
        #expect(unknown.responses[0].partitionResponses[0].errorCode == KafkaErrorCode.unknownTopicOrPartition.rawValue)
        let badAcks = restarted.produce(
            ProduceRequest(acks: 2, timeoutMs: 1000, topicData: [.init(name: "t", partitionData: [.init(index: 0, records: batch(sequence: 0, count: 1, producer: -1))])]),
            version: 9)
        #expect(badAcks.responses[0].partitionResponses[0].errorCode == KafkaErrorCode.invalidRequiredAcks.rawValue)
        var corrupt = batch(sequence: 0, count: 2, producer: -1)
        corrupt.setInteger(UInt8(0xFF), at: corrupt.writerIndex - 1)
        #expect(produce(restarted, corrupt).errorCode == KafkaErrorCode.corruptMessage.rawValue)
    }

    @Test func aCompactedTopicRefusesRecordsWithoutAKey() throws {
        let directory = NSTemporaryDirectory() + "sluice-produce-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = BrokerConfiguration()
        configuration.dataDirectory = directory
        let broker = try KafkaBroker(configuration: configuration)
        try broker.topics.create("t", partitions: 1, configs: ["cleanup.policy": "compact"])
        func records(_ keys: [String?], compression: RecordBatchCompression = .uncompressed) -> ByteBuffer {
            var encoder = RecordBatchEncoder()
            encoder.compression = compression
            var buffer = ByteBuffer()
            encoder.encode(
                keys.enumerated().map { KafkaRecord(offset: Int64($0.offset), timestamp: 1, key: $0.element.map { ByteBuffer(string: $0) }, value: ByteBuffer(string: "v")) },
                into: &buffer)
            return buffer
        }
        // A keyed batch, then one keyless record in a second batch: nothing of the request goes in.
        var both = records(["a", "b"])
        var keyless = records(["c", nil], compression: .zstd)
        both.writeBuffer(&keyless)
        let refused = produce(broker, both)
        #expect(refused.errorCode == KafkaErrorCode.invalidRecord.rawValue)
        #expect(refused.errorMessage == "Compacted topic cannot accept message without key in topic partition t-0.")
        #expect(broker.topics.log("t", 0)?.logEndOffset == 0)
        #expect(produce(broker, records(["a", "b"])).baseOffset == 0)
        // Other topics take keyless records.
        try broker.topics.create("plain", partitions: 1)
        let plain = broker.produce(
            ProduceRequest(acks: -1, timeoutMs: 1000, topicData: [.init(name: "plain", partitionData: [.init(index: 0, records: records([nil]))])]), version: 9)
        #expect(plain.responses[0].partitionResponses[0].errorCode == 0)
    }
}
