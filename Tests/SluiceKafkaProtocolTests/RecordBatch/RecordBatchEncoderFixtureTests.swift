import NIOCore
import Testing

@testable import SluiceKafkaProtocol

/// The encoder's output is pinned in `tests/fixtures/kafka/sluice-encoder-batches.hex`, which
/// kafka-python read back once by hand (`check_sluice_batches.py`, result in the README there).
@Suite struct RecordBatchEncoderFixtureTests {
    /// Two batches: an idempotent producer's with create times, then one with log-append time.
    static func encodedBatches() -> ByteBuffer {
        var buffer = ByteBuffer()
        var idempotent = RecordBatchEncoder()
        idempotent.producerID = 77
        idempotent.producerEpoch = 1
        idempotent.baseSequence = 5
        idempotent.encode(
            [
                KafkaRecord(offset: 0, timestamp: 1_700_000_003_000, key: bytes("user-1"), value: bytes(#"{"clicks":3}"#)),
                KafkaRecord(
                    offset: 1, timestamp: 1_700_000_002_999, key: nil, value: ByteBuffer(repeating: 0x2A, count: 130),
                    headers: [KafkaRecordHeader(key: "ключ", value: bytes("значение")), KafkaRecordHeader(key: "empty", value: bytes(""))]),
                KafkaRecord(offset: 2, timestamp: 1_700_000_004_500, key: bytes(""), value: nil, headers: [KafkaRecordHeader(key: "null", value: nil)]),
            ], into: &buffer)

        var appendTime = RecordBatchEncoder()
        appendTime.baseOffset = 3
        appendTime.timestampType = .logAppendTime
        appendTime.encode(
            [
                KafkaRecord(offset: 3, timestamp: 1_700_000_005_000, key: bytes("k"), value: bytes("first")),
                KafkaRecord(offset: 4, timestamp: 1_700_000_005_001, key: bytes("k"), value: bytes("second")),
            ], into: &buffer)
        return buffer
    }

    @Test func encoderOutputIsPinned() throws {
        let encoded = Self.encodedBatches()
        #expect(encoded == (try KafkaFixtures.batch("sluice-encoder-batches.hex")))
        let batches = try RecordBatchValidator(origin: .client).validate(encoded)
        #expect(batches.map(\.header.recordCount) == [3, 2])
    }
}
