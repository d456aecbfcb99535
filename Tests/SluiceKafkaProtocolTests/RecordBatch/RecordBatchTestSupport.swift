import NIOCore

@testable import SluiceKafkaProtocol

/// Records numbered from `firstOffset`, with keys, values and the odd header, for building batches.
func sampleRecords(count: Int, firstOffset: Int64 = 0, timestamp: Int64 = 1_700_000_000_000) -> [KafkaRecord] {
    (0..<count).map { index in
        KafkaRecord(
            offset: firstOffset + Int64(index),
            timestamp: timestamp + Int64(index * 7 % 5),
            key: index % 3 == 0 ? nil : bytes("key-\(index)"),
            value: bytes(String(repeating: "v", count: index * 11 % 40)),
            headers: index % 2 == 0 ? [] : [KafkaRecordHeader(key: "h\(index)", value: index % 4 == 1 ? nil : bytes("x"))])
    }
}

/// One encoded batch of `sampleRecords(count:)`.
func sampleBatch(count: Int = 3, encoder: RecordBatchEncoder = RecordBatchEncoder()) -> ByteBuffer {
    var buffer = ByteBuffer()
    encoder.encode(sampleRecords(count: count, firstOffset: encoder.baseOffset), into: &buffer)
    return buffer
}

extension ByteBuffer {
    /// Rewrites the batch's CRC at `batchStart` to match its bytes, so that a test reaches the
    /// checks that follow the CRC.
    mutating func resealCRC(batchStart: Int = 0) {
        let length = Int(getInteger(at: batchStart + RecordBatchHeader.Position.batchLength, as: Int32.self)!)
        let crcStart = batchStart + RecordBatchHeader.Position.attributes
        let crc = crc32c(at: crcStart, length: batchStart + length + RecordBatchHeader.lengthPrefixSize - crcStart)!
        setInteger(crc, at: batchStart + RecordBatchHeader.Position.crc)
    }
}
