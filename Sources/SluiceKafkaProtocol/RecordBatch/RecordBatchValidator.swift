import NIOCore

/// Checks the `records` bytes of a Produce request — one or more record batches back to back —
/// before the broker appends them: framing, magic, CRC-32C, codec, and Kafka's rules on counts
/// (as Kafka's `LogValidator.validateBatch` for appends from clients).
///
/// The records themselves are not read: per batch it reads the header and runs one CRC pass
/// over the bytes, so compressed batches are checked without being decompressed.
///
/// ```swift
/// var batches = try RecordBatchValidator(origin: .client).validate(records)
/// let logEnd = RecordBatchView.assignOffsets(to: &batches, from: logEnd, partitionLeaderEpoch: 0, in: &records)
/// ```
package struct RecordBatchValidator: Hashable, Sendable {
    /// Who wrote the bytes, which decides the rules beyond framing and CRC.
    package enum Origin: Hashable, Sendable {
        /// A producer, through a Produce request: a batch has at least one record and
        /// `lastOffsetDelta == recordCount - 1`, is no control batch, and has a base sequence
        /// when it has a producer id.
        case client
        /// The broker's own log: control batches and batches emptied by compaction (whose
        /// `lastOffsetDelta` exceeds `recordCount - 1`) are fine.
        case log
    }

    /// The rules that apply.
    package var origin: Origin

    package init(origin: Origin) {
        self.origin = origin
    }

    /// The smallest record: a one-byte length and six one-byte fields (attributes, timestamp
    /// delta, offset delta, key length, value length, header count).
    package static let minimumRecordSize = 7

    /// Validates every batch in the readable bytes of `records`.
    ///
    /// - Returns: The batches in order, with indices into `records`; empty when it has no bytes.
    /// - Throws: The first batch's error; nothing of a refused request is to be appended.
    /// - Complexity: O(n) in the number of bytes, one CRC pass over each batch.
    package func validate(_ records: ByteBuffer) throws(RecordBatchError) -> [RecordBatchView] {
        var batches: [RecordBatchView] = []
        var index = records.readerIndex
        while index < records.writerIndex {
            let batch = try validateBatch(in: records, at: index)
            batches.append(batch)
            index = batch.byteRange.upperBound
        }
        return batches
    }

    /// Validates the one batch that starts at `index` in `buffer` (`index` at or after the
    /// reader index); bytes after it are not looked at.
    ///
    /// A recovering log reader calls this batch by batch: `.truncated` at the end of the last
    /// segment is a torn write to cut off, any other error is corruption.
    package func validateBatch(in buffer: ByteBuffer, at index: Int) throws(RecordBatchError) -> RecordBatchView {
        precondition(index >= buffer.readerIndex && index <= buffer.writerIndex, "batch index outside the readable bytes")
        let available = buffer.writerIndex - index

        // Magic 0 and 1 message sets keep their magic byte at the same position (after an
        // int64 offset, an int32 size and an int32 CRC), so it tells the formats apart first.
        if available > RecordBatchHeader.Position.magic,
            let magic = buffer.getInteger(at: index + RecordBatchHeader.Position.magic, as: Int8.self),
            magic != RecordBatchHeader.currentMagic
        {
            if magic == 0 || magic == 1 {
                throw .legacyMagic(batchStart: index, magic: magic)
            }
            throw .unknownMagic(batchStart: index, magic: magic)
        }
        guard let header = RecordBatchHeader(from: buffer, at: index) else {
            throw .truncated(batchStart: index, needed: RecordBatchHeader.size, available: available)
        }
        guard header.batchLength >= RecordBatchHeader.minimumBatchLength else {
            throw .batchLengthTooSmall(batchStart: index, batchLength: header.batchLength)
        }
        let byteCount = header.byteCount
        guard byteCount <= available else {
            throw .truncated(batchStart: index, needed: byteCount, available: available)
        }

        let crcStart = index + RecordBatchHeader.Position.attributes
        // In range: the header read above proves the bytes are there.
        let computed = buffer.crc32c(at: crcStart, length: index + byteCount - crcStart)!
        guard computed == header.crc else {
            throw .crcMismatch(batchStart: index, stored: header.crc, computed: computed)
        }
        guard let compression = header.compression else {
            throw .unknownCompressionCodec(batchStart: index, codecID: header.compressionCodecID)
        }
        try checkCounts(header, compression: compression, at: index)
        return RecordBatchView(header: header, byteRange: index..<index + byteCount)
    }

    /// Kafka's rules on record counts and producer fields, from the header alone.
    private func checkCounts(
        _ header: RecordBatchHeader, compression: RecordBatchCompression, at index: Int
    ) throws(RecordBatchError) {
        let inconsistent = RecordBatchError.inconsistentRecordCount(
            batchStart: index, recordCount: header.recordCount, lastOffsetDelta: header.lastOffsetDelta)
        switch origin {
        case .client:
            guard header.recordCount > 0, Int64(header.lastOffsetDelta) + 1 == Int64(header.recordCount) else {
                throw inconsistent
            }
            guard !header.isControl else { throw .controlBatchFromClient(batchStart: index) }
            guard !header.hasProducerID || header.baseSequence >= 0 else {
                throw .missingSequenceNumber(batchStart: index, producerID: header.producerID)
            }
        case .log:
            guard header.recordCount >= 0, Int64(header.lastOffsetDelta) + 1 >= Int64(header.recordCount) else {
                throw inconsistent
            }
        }
        // Uncompressed records take at least minimumRecordSize bytes each: a count that cannot
        // fit is a lie, caught here so nothing downstream trusts it.
        if compression == .uncompressed {
            let recordBytes = Int(header.batchLength) - Int(RecordBatchHeader.minimumBatchLength)
            guard Int(header.recordCount) <= recordBytes / Self.minimumRecordSize else { throw inconsistent }
        }
    }
}
