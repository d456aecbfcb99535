import NIOCore
import SluiceCodecs
import SluiceCore
import Testing

@testable import SluiceKafkaProtocol

/// Compressed batches from Sluice's encoder: they validate, decode to the records written, and
/// bad compressed sections end in `RecordBatchError`s, never a trap.
@Suite struct RecordBatchCompressionTests {
    static let codecs: [RecordBatchCompression] = [.gzip, .snappy, .lz4, .zstd]

    @Test(arguments: codecs)
    func roundTripsThroughTheEncoder(compression: RecordBatchCompression) throws {
        for count in [0, 1, 3, 200] {
            var encoder = RecordBatchEncoder()
            encoder.compression = compression
            encoder.baseOffset = 10
            let records = sampleRecords(count: count, firstOffset: 10)
            var buffer = ByteBuffer()
            let header = encoder.encode(records, into: &buffer)
            #expect(header.compression == compression)
            #expect(header.compressionCodecID == compression.rawValue)
            // A client may not send an empty batch; a log may hold one (after compaction).
            let validator = RecordBatchValidator(origin: count == 0 ? .log : .client)
            let batch = try #require(try validator.validate(buffer).first)
            #expect(batch.header == header)  // The CRC stored covers the compressed bytes.
            #expect(try batch.records(in: buffer) == records)
        }
    }

    @Test(arguments: codecs)
    func repetitiveRecordsShrink(compression: RecordBatchCompression) {
        let plain = RecordBatchEncoder()
        var compressed = plain
        compressed.compression = compression
        let records = (0..<500).map { index in
            KafkaRecord(offset: Int64(index), timestamp: 1_700_000_000_000, key: nil, value: bytes(#"{"event":"click","page":"/home"}"#))
        }
        var plainBytes = ByteBuffer()
        var compressedBytes = ByteBuffer()
        plain.encode(records, into: &plainBytes)
        compressed.encode(records, into: &compressedBytes)
        #expect(compressedBytes.readableBytes * 4 < plainBytes.readableBytes)
    }

    @Test(arguments: codecs)
    func corruptSectionBehindAValidCRCIsCorruptMessage(compression: RecordBatchCompression) throws {
        var encoder = RecordBatchEncoder()
        encoder.compression = compression
        var buffer = ByteBuffer()
        encoder.encode(sampleRecords(count: 20), into: &buffer)
        // Cut the compressed section short (and the batch length with it), then reseal the CRC.
        let cut = 10
        buffer.moveWriterIndex(to: buffer.writerIndex - cut)
        let length = buffer.getInteger(at: RecordBatchHeader.Position.batchLength, as: Int32.self)!
        buffer.setInteger(length - Int32(cut), at: RecordBatchHeader.Position.batchLength)
        buffer.resealCRC()
        let batch = try #require(try RecordBatchValidator(origin: .client).validate(buffer).first)
        let error = try #require(throws: RecordBatchError.self) { try batch.records(in: buffer) }
        guard case .decompressionFailed(0, let codecError) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(codecError.codec == compression.codec)
        #expect(error.code == .corruptMessage)
    }

    @Test(arguments: codecs)
    func recordsInsideAreCheckedAsInAnUncompressedBatch(compression: RecordBatchCompression) throws {
        var encoder = RecordBatchEncoder()
        encoder.compression = compression
        var buffer = ByteBuffer()
        // Offsets 0, 1 and 3: a count of 4 agrees with the last offset delta but not with the records.
        let records = sampleRecords(count: 4).enumerated().filter { $0.offset != 2 }.map(\.element)
        encoder.encode(records, into: &buffer)
        buffer.setInteger(Int32(4), at: RecordBatchHeader.Position.recordCount)
        buffer.resealCRC()
        let batch = try #require(try RecordBatchValidator(origin: .client).validate(buffer).first)
        #expect(throws: RecordBatchError.recordCountMismatch(batchStart: 0, recordCount: 4, reason: "holds only 3")) {
            try batch.records(in: buffer)
        }
    }

    @Test(arguments: codecs)
    func aBatchThatExpandsPastTheCapIsRefused(compression: RecordBatchCompression) throws {
        var encoder = RecordBatchEncoder()
        encoder.compression = compression
        var buffer = ByteBuffer()
        let zeros = ByteBuffer(repeating: 0, count: 4 << 20)
        encoder.encode([KafkaRecord(offset: 0, timestamp: 0, key: nil, value: zeros)], into: &buffer)
        #expect(buffer.readableBytes < 1 << 20)
        let batch = try #require(try RecordBatchValidator(origin: .client).validate(buffer).first)
        #expect(throws: RecordBatchError.decompressionFailed(batchStart: 0, .outputLimitExceeded(compression.codec!, limit: 1 << 20))) {
            try batch.records(in: buffer, maximumDecompressedSize: 1 << 20)
        }
        #expect(try batch.records(in: buffer).first?.value == zeros)
    }

    /// Random mutations of compressed sections behind a resealed CRC: each batch decodes or is
    /// refused with an error; what decodes is bounded by the cap.
    @Test(arguments: codecs)
    func mutatedCompressedSectionsNeverTrap(compression: RecordBatchCompression) {
        var random = SplitMix64(seed: 77 + UInt64(compression.rawValue))
        var encoder = RecordBatchEncoder()
        encoder.compression = compression
        var refused = 0
        for _ in 0..<400 {
            var buffer = ByteBuffer()
            encoder.encode(sampleRecords(count: 1 + random.next(below: 30)), into: &buffer)
            let sectionCount = buffer.readableBytes - RecordBatchHeader.size
            for _ in 0...random.next(below: 2) {
                let index = RecordBatchHeader.size + random.next(below: sectionCount)
                let byte = buffer.getInteger(at: index, as: UInt8.self)!
                let replacement = random.next(below: 2) == 0 ? byte ^ (1 << UInt8(random.next(below: 8))) : UInt8(truncatingIfNeeded: random.next())
                buffer.setInteger(replacement, at: index)
            }
            buffer.resealCRC()
            guard let batch = try? RecordBatchValidator(origin: .client).validate(buffer).first else { continue }
            do {
                let records = try batch.records(in: buffer, maximumDecompressedSize: 64 << 10)
                #expect(records.count <= Int(batch.header.recordCount))
            } catch {
                refused += 1
            }
        }
        #expect(refused > 50)
    }
}
