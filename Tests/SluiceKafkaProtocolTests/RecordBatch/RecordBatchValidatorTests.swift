import NIOCore
import Testing

@testable import SluiceKafkaProtocol

@Suite struct RecordBatchValidatorTests {
    let client = RecordBatchValidator(origin: .client)

    @Test func severalBatchesInOneBlob() throws {
        var blob = ByteBuffer()
        blob.writeString("prefix")  // Read past: ranges are buffer indices, from the reader index on.
        blob.moveReaderIndex(forwardBy: 6)
        let sizes = [1, 4, 2]
        for count in sizes {
            var batch = sampleBatch(count: count)
            blob.writeBuffer(&batch)
        }
        let batches = try client.validate(blob)
        #expect(batches.map(\.header.recordCount) == [1, 4, 2])
        #expect(batches[0].byteRange.lowerBound == 6)
        #expect(batches[1].byteRange.lowerBound == batches[0].byteRange.upperBound)
        #expect(batches[2].byteRange.upperBound == blob.writerIndex)
        #expect(try batches[1].records(in: blob) == sampleRecords(count: 4))
    }

    @Test func emptyBlobHasNoBatches() throws {
        #expect(try client.validate(ByteBuffer()).isEmpty)
    }

    @Test func crcFailureIsCorruptMessage() {
        var blob = sampleBatch()
        let last = blob.writerIndex - 1
        blob.setInteger(blob.getInteger(at: last, as: UInt8.self)! ^ 1, at: last)
        let error = #expect(throws: RecordBatchError.self) { try client.validate(blob) }
        #expect(error?.code == .corruptMessage)
        guard case .crcMismatch(0, _, _) = error else {
            Issue.record("expected a CRC mismatch, got \(String(describing: error))")
            return
        }
    }

    @Test func truncatedBatchesAreCorruptMessage() {
        let blob = sampleBatch(count: 3)
        for length in [1, 12, 16, 17, 60, 61, blob.readableBytes - 1] {
            let truncated = blob.getSlice(at: 0, length: length)!
            let error = #expect(throws: RecordBatchError.self) { try client.validate(truncated) }
            #expect(error?.code == .corruptMessage, "length \(length)")
        }
        // A whole batch followed by the start of another.
        var twoBatches = blob
        twoBatches.writeBytes(blob.readableBytesView.prefix(30))
        #expect(
            throws: RecordBatchError.truncated(batchStart: blob.readableBytes, needed: RecordBatchHeader.size, available: 30)
        ) { try client.validate(twoBatches) }
    }

    @Test func lyingBatchLengths() {
        let blob = sampleBatch(count: 3)
        for length: Int32 in [-1, 0, 48, Int32.max, Int32(blob.readableBytes - 12 + 1)] {
            var lying = blob
            lying.setInteger(length, at: RecordBatchHeader.Position.batchLength)
            let error = #expect(throws: RecordBatchError.self) { try client.validate(lying) }
            #expect(error?.code == .corruptMessage, "batch length \(length)")
        }
        // Shorter than the bytes there: the rest reads as a second batch, which must fail too.
        var shorter = blob
        shorter.setInteger(Int32(blob.readableBytes - 12 - 1), at: RecordBatchHeader.Position.batchLength)
        #expect(throws: RecordBatchError.self) { try client.validate(shorter) }
    }

    @Test func legacyMagicIsUnsupportedForMessageFormat() {
        for magic: Int8 in [0, 1] {
            var blob = sampleBatch()
            blob.setInteger(magic, at: RecordBatchHeader.Position.magic)
            #expect(throws: RecordBatchError.legacyMagic(batchStart: 0, magic: magic)) { try client.validate(blob) }
            #expect(RecordBatchError.legacyMagic(batchStart: 0, magic: magic).code == .unsupportedForMessageFormat)
        }
        // A magic-1 message shorter than a v2 header is still recognised as legacy.
        var short = ByteBuffer(repeating: 0, count: 20)
        short.setInteger(Int8(1), at: 16)
        #expect(throws: RecordBatchError.legacyMagic(batchStart: 0, magic: 1)) { try client.validate(short) }

        var unknown = sampleBatch()
        unknown.setInteger(Int8(3), at: RecordBatchHeader.Position.magic)
        #expect(throws: RecordBatchError.unknownMagic(batchStart: 0, magic: 3)) { try client.validate(unknown) }
    }

    @Test func unknownCodecIsUnsupportedCompressionType() {
        for codec: Int16 in 5...7 {
            var blob = sampleBatch()
            blob.setInteger(codec, at: RecordBatchHeader.Position.attributes)
            blob.resealCRC()
            let error = #expect(throws: RecordBatchError.self) { try client.validate(blob) }
            #expect(error == .unknownCompressionCodec(batchStart: 0, codecID: UInt8(codec)))
            #expect(error?.code == .unsupportedCompressionType)
        }
    }

    @Test func inconsistentCountsAreInvalidRecord() {
        let cases: [(recordCount: Int32, lastOffsetDelta: Int32)] = [(0, -1), (-1, -2), (3, 3), (4, 2), (2, 2), (1_000, 999)]
        for (recordCount, lastOffsetDelta) in cases {
            var blob = sampleBatch(count: 3)
            blob.setInteger(recordCount, at: RecordBatchHeader.Position.recordCount)
            blob.setInteger(lastOffsetDelta, at: RecordBatchHeader.Position.lastOffsetDelta)
            blob.resealCRC()
            let error = #expect(throws: RecordBatchError.self) { try client.validate(blob) }
            #expect(error?.code == .invalidRecord, "count \(recordCount), last offset delta \(lastOffsetDelta)")
        }
    }

    @Test func controlBatchesAndMissingSequencesFromClientsAreInvalidRecord() {
        var control = sampleBatch()
        control.setInteger(RecordBatchHeader.AttributeBit.control, at: RecordBatchHeader.Position.attributes)
        control.resealCRC()
        #expect(throws: RecordBatchError.controlBatchFromClient(batchStart: 0)) { try client.validate(control) }
        #expect(throws: Never.self) { try RecordBatchValidator(origin: .log).validate(control) }

        var encoder = RecordBatchEncoder()
        encoder.producerID = 9
        encoder.producerEpoch = 0
        #expect(throws: RecordBatchError.missingSequenceNumber(batchStart: 0, producerID: 9)) {
            try client.validate(sampleBatch(encoder: encoder))
        }
        encoder.baseSequence = 0
        #expect(throws: Never.self) { try client.validate(sampleBatch(encoder: encoder)) }
    }

    @Test func logOriginAcceptsBatchesEmptiedByCompaction() throws {
        var blob = sampleBatch(count: 3)
        // Compaction kept the batch's offset range but removed its records.
        blob.setInteger(Int32(0), at: RecordBatchHeader.Position.recordCount)
        blob.resealCRC()
        let log = RecordBatchValidator(origin: .log)
        #expect(try log.validate(blob).first?.header.nextOffset == 3)
        #expect(throws: RecordBatchError.self) { try client.validate(blob) }
    }
}
