import NIOCore
import SluiceCodecs
import Testing

@testable import SluiceKafkaProtocol

/// Compressed batches written by two independent producers, librdkafka 2.16.0 (confluent-kafka
/// 2.16.1) and kafka-python 3.0.12, every codec each. `tests/fixtures/kafka/make_compressed_batches.py`
/// captured them: kafka-python's batch builder wrote its batches directly; librdkafka produced to
/// Sluice's broker, which stores batches as received, and the script fetched them back raw. Both
/// wrote the same four records, `expectedRecords`.
@Suite struct RecordBatchCompressedFixtureTests {
    static let fixtures: [(String, RecordBatchCompression)] = [
        ("librdkafka-gzip.hex", .gzip), ("librdkafka-snappy.hex", .snappy),
        ("librdkafka-lz4.hex", .lz4), ("librdkafka-zstd.hex", .zstd),
        ("kafka-python-snappy.hex", .snappy), ("kafka-python-lz4.hex", .lz4), ("kafka-python-zstd.hex", .zstd),
    ]

    /// make_compressed_batches.py's `RECORDS`, at offsets 0 to 3.
    static var expectedRecords: [KafkaRecord] {
        let text = String(repeating: "streams of rows, ", count: 6)
        return [
            KafkaRecord(offset: 0, timestamp: 1_700_000_003_000, key: bytes("k0"), value: bytes(#"{"n":0,"text":"\#(text)"}"#)),
            KafkaRecord(
                offset: 1, timestamp: 1_700_000_003_001, key: nil, value: bytes(#"{"n":1,"text":"\#(text)"}"#),
                headers: [KafkaRecordHeader(key: "trace", value: bytes("t-1"))]),
            KafkaRecord(offset: 2, timestamp: 1_700_000_003_002, key: bytes("k2"), value: nil),
            KafkaRecord(offset: 3, timestamp: 1_700_000_003_003, key: bytes("k3"), value: bytes(#"{"n":3,"text":"\#(text)"}"#)),
        ]
    }

    @Test(arguments: fixtures)
    func decodesTheRecordsProduced(file: String, compression: RecordBatchCompression) throws {
        let buffer = try KafkaFixtures.batch(file)
        let batches = try RecordBatchValidator(origin: .client).validate(buffer)
        try #require(batches.count == 1)
        let batch = batches[0]
        #expect(batch.header.compression == compression)
        #expect(batch.header.recordCount == 4 && batch.header.lastOffsetDelta == 3)
        #expect(try batch.records(in: buffer) == Self.expectedRecords)
    }

    @Test func snappyFramingsDifferByProducer() throws {
        // librdkafka writes one raw snappy block; kafka-python (as the Java client) the xerial framing.
        let raw = try KafkaFixtures.batch("librdkafka-snappy.hex")
        let framed = try KafkaFixtures.batch("kafka-python-snappy.hex")
        #expect(raw.getInteger(at: RecordBatchHeader.size, as: UInt8.self) != 0x82)
        #expect(framed.getBytes(at: RecordBatchHeader.size, length: 8) == [0x82, 0x53, 0x4E, 0x41, 0x50, 0x50, 0x59, 0x00])
    }

    @Test(arguments: fixtures)
    func aSmallCapRefusesTheBatch(file: String, compression: RecordBatchCompression) throws {
        let buffer = try KafkaFixtures.batch(file)
        let batch = try #require(try RecordBatchValidator(origin: .client).validate(buffer).first)
        let codec = try #require(compression.codec)
        #expect(throws: RecordBatchError.decompressionFailed(batchStart: 0, .outputLimitExceeded(codec, limit: 100))) {
            try batch.records(in: buffer, maximumDecompressedSize: 100)
        }
        #expect(RecordBatchError.decompressionFailed(batchStart: 0, .outputLimitExceeded(codec, limit: 100)).code == .recordListTooLarge)
    }

    /// The fixtures with their records section recompressed by Sluice's encoder decode the same:
    /// Sluice writes what it reads.
    @Test(arguments: fixtures)
    func sluiceReencodesTheRecords(file: String, compression: RecordBatchCompression) throws {
        let buffer = try KafkaFixtures.batch(file)
        let batch = try #require(try RecordBatchValidator(origin: .client).validate(buffer).first)
        var encoder = RecordBatchEncoder()
        encoder.compression = compression
        var reencoded = ByteBuffer()
        let header = encoder.encode(try batch.records(in: buffer), into: &reencoded)
        #expect(header.compression == compression)
        #expect(header.maxTimestamp == batch.header.maxTimestamp)
        let again = try #require(try RecordBatchValidator(origin: .client).validate(reencoded).first)
        #expect(try again.records(in: reencoded) == Self.expectedRecords)
    }
}
