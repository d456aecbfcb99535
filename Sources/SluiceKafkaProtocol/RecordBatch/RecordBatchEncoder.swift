import NIOCore
import SluiceCodecs

/// Writes record batches (magic 2) with their CRC-32C, uncompressed or compressed: what
/// `sluice produce`, the Kafka sink and the tests send to a broker.
///
/// The defaults are a plain producer's: no producer id, epoch or sequence (-1), not
/// transactional, create-time timestamps, uncompressed, base offset 0 and leader epoch -1 (the
/// broker sets both). Idempotent and transactional producers set the producer fields.
///
/// ```swift
/// var encoder = RecordBatchEncoder()
/// encoder.encode([KafkaRecord(offset: 0, timestamp: now, key: nil, value: payload)], into: &request)
/// ```
package struct RecordBatchEncoder: Hashable, Sendable {
    /// The batch's base offset; each record's offset delta is its `offset` minus this.
    package var baseOffset: Int64 = 0
    package var partitionLeaderEpoch: Int32 = -1
    /// The idempotent producer id (KIP-98), -1 for none.
    package var producerID: Int64 = -1
    package var producerEpoch: Int16 = -1
    /// The sequence number of the batch's first record, -1 without a producer id.
    package var baseSequence: Int32 = -1
    package var isTransactional = false
    /// Whether the batch holds control records (transaction markers); such a batch is also
    /// transactional.
    package var isControl = false
    package var timestampType: KafkaTimestampType = .createTime
    /// The codec of the records section: the records are written, then compressed as one stream
    /// in the codec's Kafka framing (`CompressionCodec`), and the attributes name the codec.
    package var compression: RecordBatchCompression = .uncompressed

    package init() {}

    /// Appends one batch holding `records` to `buffer`.
    ///
    /// Each record's offset delta is `record.offset - baseOffset`: number the records from
    /// `baseOffset` up (gaps are allowed, as after compaction). The batch's base timestamp is
    /// the first record's timestamp and its max timestamp the largest; with no records both are
    /// -1 and `lastOffsetDelta` is -1.
    ///
    /// With a codec, the header is as without (counts, offsets, timestamps), and the CRC covers
    /// the compressed bytes, as stored.
    ///
    /// - Precondition: Offsets increase, starting at or after `baseOffset`, with deltas that fit
    ///   in 32 bits; the batch is under 2 GiB (its length is an int32).
    /// - Returns: The header written, CRC included.
    /// - Complexity: O(n) in the size of the records; one CRC pass over the batch, and with a
    ///   codec one compression pass over the records.
    @discardableResult
    package func encode(_ records: [KafkaRecord], into buffer: inout ByteBuffer) -> RecordBatchHeader {
        let start = buffer.writerIndex
        buffer.writeRepeatingByte(0, count: RecordBatchHeader.size)

        let baseTimestamp = records.first?.timestamp ?? -1
        var maxTimestamp = baseTimestamp
        var previousDelta: Int64 = -1
        if let codec = compression.codec {
            var section = ByteBuffer()
            writeRecords(records, baseTimestamp: baseTimestamp, into: &section, maxTimestamp: &maxTimestamp, lastDelta: &previousDelta)
            buffer.writeBytes(section.withUnsafeReadableBytes { codec.compress($0) })
        } else {
            writeRecords(records, baseTimestamp: baseTimestamp, into: &buffer, maxTimestamp: &maxTimestamp, lastDelta: &previousDelta)
        }

        var attributes = Int16(compression.rawValue)  // Bits 0-2: the codec.
        if timestampType == .logAppendTime { attributes |= RecordBatchHeader.AttributeBit.timestampType }
        if isTransactional || isControl { attributes |= RecordBatchHeader.AttributeBit.transactional }
        if isControl { attributes |= RecordBatchHeader.AttributeBit.control }
        let byteCount = buffer.writerIndex - start
        var header = RecordBatchHeader(
            baseOffset: baseOffset,
            batchLength: Int32(byteCount - RecordBatchHeader.lengthPrefixSize),
            partitionLeaderEpoch: partitionLeaderEpoch,
            magic: RecordBatchHeader.currentMagic,
            crc: 0,
            attributes: attributes,
            lastOffsetDelta: Int32(truncatingIfNeeded: previousDelta),
            baseTimestamp: baseTimestamp,
            maxTimestamp: maxTimestamp,
            producerID: producerID,
            producerEpoch: producerEpoch,
            baseSequence: baseSequence,
            recordCount: Int32(records.count))
        header.set(in: &buffer, at: start)
        let crcStart = start + RecordBatchHeader.Position.attributes
        header.crc = buffer.crc32c(at: crcStart, length: buffer.writerIndex - crcStart)!
        buffer.setInteger(header.crc, at: start + RecordBatchHeader.Position.crc)
        return header
    }

    /// Appends each record, length-prefixed, to `section`, tracking the largest timestamp and
    /// the last offset delta.
    private func writeRecords(
        _ records: [KafkaRecord], baseTimestamp: Int64, into section: inout ByteBuffer,
        maxTimestamp: inout Int64, lastDelta: inout Int64
    ) {
        var body = ByteBuffer()
        for record in records {
            let offsetDelta = record.offset &- baseOffset
            precondition(
                offsetDelta > lastDelta && offsetDelta <= Int64(Int32.max),
                "record offsets must increase from the batch's base offset, within 32-bit deltas")
            lastDelta = offsetDelta
            maxTimestamp = max(maxTimestamp, record.timestamp)

            body.clear()
            body.writeInteger(Int8(0))  // Record attributes: unused by Kafka so far.
            body.writeVarint(record.timestamp &- baseTimestamp)
            body.writeVarint(offsetDelta)
            writeNullableBytes(record.key, into: &body)
            writeNullableBytes(record.value, into: &body)
            body.writeVarint(Int64(record.headers.count))
            for header in record.headers {
                body.writeVarint(Int64(header.key.utf8.count))
                body.writeString(header.key)
                writeNullableBytes(header.value, into: &body)
            }
            section.writeVarint(Int64(body.readableBytes))
            section.writeBuffer(&body)
        }
    }

    private func writeNullableBytes(_ bytes: ByteBuffer?, into body: inout ByteBuffer) {
        guard var bytes else {
            body.writeVarint(-1)
            return
        }
        body.writeVarint(Int64(bytes.readableBytes))
        body.writeBuffer(&bytes)
    }
}
