import NIOCore
import SluiceCodecs
import Testing

@testable import SluiceKafkaProtocol

/// Batches written by an independent encoder (kafka-python 3.0.12's DefaultRecordBatchBuilder).
@Suite struct RecordBatchFixtureTests {
    let validator = RecordBatchValidator(origin: .client)

    @Test func uncompressedBatchFromKafkaPython() throws {
        let buffer = try KafkaFixtures.batch("uncompressed-three-records.hex")
        let batches = try validator.validate(buffer)
        try #require(batches.count == 1)
        let batch = batches[0]
        #expect(batch.byteRange == 0..<102)
        #expect(
            batch.header
                == RecordBatchHeader(
                    baseOffset: 0, batchLength: 90, partitionLeaderEpoch: 0, magic: 2, crc: 0xD088_4DA5,
                    attributes: 0, lastOffsetDelta: 2, baseTimestamp: 1_700_000_000_000,
                    maxTimestamp: 1_700_000_000_005, producerID: -1, producerEpoch: -1, baseSequence: -1,
                    recordCount: 3))
        #expect(batch.header.compression == .uncompressed)
        #expect(batch.header.timestampType == .createTime)
        #expect(!batch.header.isTransactional && !batch.header.isControl && !batch.header.hasProducerID)
        #expect(buffer.crc32c(at: 21, length: 81) == 0xD088_4DA5)

        #expect(
            try batch.records(in: buffer) == [
                KafkaRecord(offset: 0, timestamp: 1_700_000_000_000, key: bytes("k1"), value: bytes("hello")),
                KafkaRecord(
                    offset: 1, timestamp: 1_700_000_000_005, key: nil, value: bytes(""),
                    headers: [KafkaRecordHeader(key: "trace", value: bytes("abc")), KafkaRecordHeader(key: "n", value: nil)]),
                KafkaRecord(offset: 2, timestamp: 1_699_999_999_990, key: bytes(""), value: nil),
            ])
    }

    @Test func transactionalBatchFromKafkaPython() throws {
        let buffer = try KafkaFixtures.batch("uncompressed-transactional.hex")
        let batch = try #require(try validator.validate(buffer).first)
        #expect(batch.header.producerID == 4242)
        #expect(batch.header.producerEpoch == 3)
        #expect(batch.header.baseSequence == 17)
        #expect(batch.header.isTransactional)
        #expect(batch.header.crc == 0x3344_7385)
        #expect(
            try batch.records(in: buffer) == [
                KafkaRecord(offset: 0, timestamp: 1_700_000_001_000, key: bytes("order-1"), value: bytes(#"{"qty":1}"#)),
                KafkaRecord(
                    offset: 1, timestamp: 1_700_000_001_250, key: bytes("order-2"), value: bytes(#"{"qty":2}"#),
                    headers: [KafkaRecordHeader(key: "source", value: bytes("pos"))]),
            ])
    }

    @Test func gzipBatchFromKafkaPythonPassesItsCRCAndDecompresses() throws {
        let buffer = try KafkaFixtures.batch("gzip-five-records.hex")
        let batch = try #require(try validator.validate(buffer).first)
        #expect(batch.header.compression == .gzip)
        #expect(batch.header.recordCount == 5)
        #expect(batch.header.lastOffsetDelta == 4)
        #expect(batch.header.crc == 0x2149_1770)
        #expect(batch.header.baseTimestamp == 1_700_000_002_000)
        #expect(batch.header.maxTimestamp == 1_700_000_002_004)
        #expect(
            try batch.records(in: buffer) == (0..<5).map { index in
                KafkaRecord(
                    offset: Int64(index), timestamp: 1_700_000_002_000 + Int64(index), key: bytes("key-\(index)"),
                    value: bytes(String(repeating: "sluice ", count: 20) + "\(index)"))
            })
        // Flipping a bit of the compressed payload is caught by the CRC alone.
        var corrupted = buffer
        corrupted.setInteger(corrupted.getInteger(at: 100, as: UInt8.self)! ^ 0x10, at: 100)
        #expect(throws: RecordBatchError.self) { try validator.validate(corrupted) }
        #expect((try? validator.validate(corrupted)) == nil)
    }

    @Test func encoderWritesTheSameBytesAsKafkaPython() throws {
        // kafka-python leaves the leader epoch 0 where Sluice's encoder defaults to -1.
        var encoder = RecordBatchEncoder()
        encoder.partitionLeaderEpoch = 0
        var buffer = ByteBuffer()
        encoder.encode(
            [
                KafkaRecord(offset: 0, timestamp: 1_700_000_000_000, key: bytes("k1"), value: bytes("hello")),
                KafkaRecord(
                    offset: 1, timestamp: 1_700_000_000_005, key: nil, value: bytes(""),
                    headers: [KafkaRecordHeader(key: "trace", value: bytes("abc")), KafkaRecordHeader(key: "n", value: nil)]),
                KafkaRecord(offset: 2, timestamp: 1_699_999_999_990, key: bytes(""), value: nil),
            ], into: &buffer)
        #expect(buffer == (try KafkaFixtures.batch("uncompressed-three-records.hex")))

        var transactional = RecordBatchEncoder()
        transactional.partitionLeaderEpoch = 0
        transactional.producerID = 4242
        transactional.producerEpoch = 3
        transactional.baseSequence = 17
        transactional.isTransactional = true
        buffer.clear()
        transactional.encode(
            [
                KafkaRecord(offset: 0, timestamp: 1_700_000_001_000, key: bytes("order-1"), value: bytes(#"{"qty":1}"#)),
                KafkaRecord(
                    offset: 1, timestamp: 1_700_000_001_250, key: bytes("order-2"), value: bytes(#"{"qty":2}"#),
                    headers: [KafkaRecordHeader(key: "source", value: bytes("pos"))]),
            ], into: &buffer)
        #expect(buffer == (try KafkaFixtures.batch("uncompressed-transactional.hex")))
    }
}

func bytes(_ text: String) -> ByteBuffer {
    ByteBuffer(string: text)
}
