import NIOCore
import SluiceCore
import Testing

@testable import SluiceKafkaProtocol

/// Mutated batches fed to the validator and the decoder: each must be refused with an error or
/// accepted, never crash, and what is accepted must be bounded by the bytes there.
@Suite struct RecordBatchFuzzTests {
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func mutatedBatchesThrowOrDecode(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var accepted = 0
        for _ in 0..<2_000 {
            var blob = ByteBuffer()
            for _ in 0...random.next(below: 2) {
                var encoder = RecordBatchEncoder()
                encoder.timestampType = random.next(below: 4) == 0 ? .logAppendTime : .createTime
                var batch = sampleBatch(count: 1 + random.next(below: 12), encoder: encoder)
                blob.writeBuffer(&batch)
            }
            let mutations = 1 + random.next(below: 3)
            for _ in 0..<mutations {
                mutate(&blob, using: &random)
            }
            // Half the time make the CRC right again, so the mutation reaches the checks behind it.
            if random.next(below: 2) == 0, blob.readableBytes >= RecordBatchHeader.size {
                resealEveryBatch(&blob)
            }
            for origin in [RecordBatchValidator.Origin.client, .log] {
                guard let batches = try? RecordBatchValidator(origin: origin).validate(blob) else { continue }
                accepted += 1
                for batch in batches {
                    #expect(batch.byteRange.upperBound <= blob.writerIndex)
                    guard let records = try? batch.records(in: blob) else { continue }
                    #expect(records.count * RecordBatchValidator.minimumRecordSize <= batch.recordsRange.count)
                }
            }
        }
        // The fuzzer exercises the decoder, not only the first checks.
        #expect(accepted > 100)
    }

    private func mutate(_ blob: inout ByteBuffer, using random: inout SplitMix64) {
        let count = blob.readableBytes
        guard count > 0 else { return }
        switch random.next(below: 7) {
        case 0:  // Flip one bit.
            let index = random.next(below: count)
            blob.setInteger(blob.getInteger(at: index, as: UInt8.self)! ^ (1 << UInt8(random.next(below: 8))), at: index)
        case 1:  // Truncate.
            blob.moveWriterIndex(to: random.next(below: count))
        case 2:  // A random batch length.
            blob.setInteger(Int32(truncatingIfNeeded: random.next()), at: RecordBatchHeader.Position.batchLength)
        case 3:  // Nudge the batch length a little.
            let length = blob.getInteger(at: RecordBatchHeader.Position.batchLength, as: Int32.self) ?? 0
            blob.setInteger(length &+ Int32(random.next(below: 9) - 4), at: RecordBatchHeader.Position.batchLength)
        case 4:  // A random record count or last offset delta.
            let position = random.next(below: 2) == 0 ? RecordBatchHeader.Position.recordCount : RecordBatchHeader.Position.lastOffsetDelta
            guard count >= RecordBatchHeader.size else { return }
            blob.setInteger(Int32(truncatingIfNeeded: random.next()) >> random.next(below: 32), at: position)
        case 5:  // Overwrite a byte in the records, where lengths and varints live.
            guard count > RecordBatchHeader.size else { return }
            let index = RecordBatchHeader.size + random.next(below: count - RecordBatchHeader.size)
            blob.setInteger(UInt8(truncatingIfNeeded: random.next()), at: index)
        default:  // Insert or remove bytes in the middle.
            let index = random.next(below: count)
            var tail = blob.getSlice(at: index, length: count - index)!
            blob.moveWriterIndex(to: index)
            if random.next(below: 2) == 0 {
                blob.writeRepeatingByte(UInt8(truncatingIfNeeded: random.next()), count: 1 + random.next(below: 4))
            } else {
                tail.moveReaderIndex(forwardBy: min(tail.readableBytes, 1 + random.next(below: 4)))
            }
            blob.writeBuffer(&tail)
        }
    }

    /// Recomputes the CRC of each batch whose framing still holds, walking by batch length.
    private func resealEveryBatch(_ blob: inout ByteBuffer) {
        var start = blob.readerIndex
        while blob.writerIndex - start >= RecordBatchHeader.size {
            let length = Int(blob.getInteger(at: start + RecordBatchHeader.Position.batchLength, as: Int32.self)!)
            let end = start + length + RecordBatchHeader.lengthPrefixSize
            guard length >= RecordBatchHeader.minimumBatchLength, end <= blob.writerIndex else { return }
            blob.resealCRC(batchStart: start)
            start = end
        }
    }
}
