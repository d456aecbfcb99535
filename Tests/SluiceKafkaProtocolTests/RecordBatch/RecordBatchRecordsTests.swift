import NIOCore
import Testing

@testable import SluiceKafkaProtocol

/// Encoding and decoding the records of uncompressed batches.
@Suite struct RecordBatchRecordsTests {
    let client = RecordBatchValidator(origin: .client)

    @Test(arguments: [1, 2, 17, 300])
    func roundTrip(count: Int) throws {
        let records = sampleRecords(count: count)
        var buffer = ByteBuffer()
        let written = RecordBatchEncoder().encode(records, into: &buffer)
        let batch = try #require(try client.validate(buffer).first)
        #expect(batch.header == written)
        #expect(batch.header.recordCount == Int32(count))
        #expect(batch.header.lastOffsetDelta == Int32(count - 1))
        #expect(batch.header.baseTimestamp == records[0].timestamp)
        #expect(batch.header.maxTimestamp == records.map(\.timestamp).max())
        #expect(batch.header.partitionLeaderEpoch == -1)
        #expect(batch.header.producerID == -1 && batch.header.producerEpoch == -1 && batch.header.baseSequence == -1)
        #expect(try batch.records(in: buffer) == records)
    }

    @Test func roundTripOfLargeAndUnusualValues() throws {
        let records = [
            KafkaRecord(
                offset: 0, timestamp: 0, key: ByteBuffer(repeating: 0xAB, count: 70_000), value: nil,
                headers: [KafkaRecordHeader(key: "ключ ✓", value: ByteBuffer(repeating: 0, count: 200))]),
            KafkaRecord(offset: 1, timestamp: -5, key: nil, value: nil),
            KafkaRecord(offset: 2, timestamp: Int64.max / 2, key: bytes(""), value: bytes(""), headers: []),
        ]
        var buffer = ByteBuffer()
        RecordBatchEncoder().encode(records, into: &buffer)
        let batch = try #require(try client.validate(buffer).first)
        #expect(batch.header.maxTimestamp == Int64.max / 2)
        #expect(try batch.records(in: buffer) == records)
    }

    @Test func offsetGapsSurviveForTheLog() throws {
        var encoder = RecordBatchEncoder()
        encoder.baseOffset = 100
        let records = [0, 3, 9].map { KafkaRecord(offset: 100 + $0, timestamp: 1, key: nil, value: bytes("v\($0)")) }
        var buffer = ByteBuffer()
        encoder.encode(records, into: &buffer)
        let batch = try #require(try RecordBatchValidator(origin: .log).validate(buffer).first)
        #expect(batch.header.lastOffsetDelta == 9)
        #expect(batch.header.nextOffset == 110)
        #expect(try batch.records(in: buffer) == records)
        // A client may not send gaps.
        #expect(throws: RecordBatchError.self) { try client.validate(buffer) }
    }

    @Test func logAppendTimeGivesEveryRecordTheBatchTime() throws {
        var encoder = RecordBatchEncoder()
        encoder.timestampType = .logAppendTime
        var buffer = ByteBuffer()
        encoder.encode(sampleRecords(count: 3, timestamp: 50), into: &buffer)
        // The broker stamps its append time into maxTimestamp (this changes the CRC'd bytes).
        buffer.setInteger(Int64(9_999), at: RecordBatchHeader.Position.maxTimestamp)
        buffer.resealCRC()
        let batch = try #require(try client.validate(buffer).first)
        #expect(batch.header.timestampType == .logAppendTime)
        #expect(try batch.records(in: buffer).map(\.timestamp) == [9_999, 9_999, 9_999])
    }

    @Test func offsetsAreAssignedInPlaceAndKeepTheCRC() throws {
        var blob = ByteBuffer()
        for count in [2, 5, 1] {
            var batch = sampleBatch(count: count)
            blob.writeBuffer(&batch)
        }
        let original = blob
        var batches = try client.validate(blob)
        let logEnd = RecordBatchView.assignOffsets(to: &batches, from: 1_000, partitionLeaderEpoch: 7, in: &blob)
        #expect(logEnd == 1_008)
        #expect(batches.map(\.header.baseOffset) == [1_000, 1_002, 1_007])
        #expect(batches.allSatisfy { $0.header.partitionLeaderEpoch == 7 })

        // The bytes say so too, they still validate, and only the two fields changed.
        let revalidated = try RecordBatchValidator(origin: .log).validate(blob)
        #expect(revalidated == batches)
        #expect(try revalidated[1].records(in: blob).map(\.offset) == Array(1_002...1_006))
        for batch in batches {
            let start = batch.byteRange.lowerBound + RecordBatchHeader.Position.magic
            #expect(blob.getBytes(at: start, length: batch.byteRange.upperBound - start)
                == original.getBytes(at: start, length: batch.byteRange.upperBound - start))
        }
    }

    @Test func lyingRecordLengthsAreCorruptMessage() throws {
        // One record: length varint at 61, then attributes, timestamp delta, offset delta, key length…
        let records = [KafkaRecord(offset: 0, timestamp: 1, key: bytes("key"), value: bytes("value"))]
        var pristine = ByteBuffer()
        RecordBatchEncoder().encode(records, into: &pristine)
        let recordLength = Int(pristine.getInteger(at: 61, as: UInt8.self)!) / 2  // Zigzag of a small positive.

        // Varints are zigzag: 0x01 is -1, 0x7E is 63, 0x7F is -64.
        let lies: [(position: Int, byte: UInt8, code: KafkaErrorCode)] = [
            (61, 0x7E, .corruptMessage),  // Record length past the batch.
            (61, 0x01, .corruptMessage),  // Negative record length.
            (61, UInt8((recordLength - 1) * 2), .corruptMessage),  // Shorter than its fields.
            (65, 0x7E, .corruptMessage),  // Key length past the record.
            (65, 0x7F, .corruptMessage),  // Key length below -1.
            (61, 0x80, .corruptMessage),  // An over-long length varint that swallows the attributes byte.
        ]
        for lie in lies {
            var buffer = pristine
            buffer.setInteger(lie.byte, at: lie.position)
            buffer.resealCRC()
            let batch = try #require(try client.validate(buffer).first)
            let error = #expect(throws: RecordBatchError.self) { try batch.records(in: buffer) }
            #expect(error?.code == lie.code, "byte \(lie.byte) at \(lie.position)")
        }
    }

    @Test func countsThatDisagreeWithTheRecordsAreInvalidRecord() throws {
        var buffer = sampleBatch(count: 3)
        // The log origin lets a lower count through (as if compacted); the records then disagree.
        buffer.setInteger(Int32(2), at: RecordBatchHeader.Position.recordCount)
        buffer.resealCRC()
        let batch = try #require(try RecordBatchValidator(origin: .log).validate(buffer).first)
        let error = #expect(throws: RecordBatchError.self) { try batch.records(in: buffer) }
        #expect(error?.code == .invalidRecord)

        // More records counted than present: a header built by hand, since validation refuses it.
        var view = try #require(try client.validate(sampleBatch(count: 3)).first)
        view.header.recordCount = 4
        #expect(throws: RecordBatchError.recordCountMismatch(batchStart: 0, recordCount: 4, reason: "holds only 3")) {
            try view.records(in: sampleBatch(count: 3))
        }
    }
}
