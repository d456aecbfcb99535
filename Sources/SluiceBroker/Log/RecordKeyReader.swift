import NIOCore
import SluiceCodecs
import SluiceKafkaProtocol

/// Reads what the log cleaner and the compacted-topic produce check need of each record of a
/// batch — its offset, its key and whether its value is null — without decoding values or
/// headers, so nothing is allocated per record.
///
/// Record layout (Kafka documentation, "Message Format", record): length varint, attributes
/// int8, timestampDelta varint, offsetDelta varint, keyLength varint (-1 null) and key,
/// valueLength varint (-1 null) and value, headers. The length lets the rest be skipped.
enum RecordKeyReader {
    /// One record of a batch. `key` is a slice of the batch's (or its decompressed) bytes.
    struct Entry {
        var offset: Int64
        var key: ByteBuffer?
        /// Whether the value is null: a tombstone, in a compacted log.
        var isTombstone: Bool
    }

    /// Calls `body` with each record of `view` (validated in `buffer`), in order, until it
    /// returns false. A compressed batch is decompressed first, into one buffer, up to
    /// ``RecordBatchView/defaultMaximumDecompressedSize``.
    ///
    /// - Throws: As ``RecordBatchView/records(in:maximumDecompressedSize:)`` for the same bytes:
    ///   a section that does not decompress, a record whose fields do not fit its length, a count
    ///   that does not match (when `body` read every record); and, beyond it, offset deltas
    ///   that do not increase or pass the batch's last offset delta (which producers may not
    ///   send, and on which the cleaner relies).
    /// - Complexity: O(n) in the batch's (decompressed) size.
    static func forEachRecord(
        of view: RecordBatchView, in buffer: ByteBuffer, _ body: (Entry) -> Bool
    ) throws(RecordBatchError) {
        let header = view.header
        let batchStart = view.byteRange.lowerBound
        guard let compression = header.compression else {
            throw .unknownCompressionCodec(batchStart: batchStart, codecID: header.compressionCodecID)
        }
        guard var section = buffer.getSlice(at: view.recordsRange.lowerBound, length: view.recordsRange.count) else {
            throw .truncated(batchStart: batchStart, needed: view.byteRange.count, available: max(0, buffer.writerIndex - batchStart))
        }
        if let codec = compression.codec {
            let result = section.withUnsafeReadableBytes { bytes in
                Result { () throws(CompressionError) in
                    try codec.decompress(bytes, maximumOutputSize: RecordBatchView.defaultMaximumDecompressedSize)
                }
            }
            switch result {
            case .success(let bytes): section = ByteBuffer(bytes: bytes)
            case .failure(let error): throw .decompressionFailed(batchStart: batchStart, error)
            }
        }
        var previousDelta: Int32 = -1
        for recordIndex in 0 ..< Int(max(0, header.recordCount)) {
            func malformed(_ reason: String) -> RecordBatchError {
                .malformedRecord(batchStart: batchStart, recordIndex: recordIndex, reason: reason)
            }
            guard let length = section.readVarint(), length >= 0, length <= section.readableBytes,
                var record = section.readSlice(length: Int(length))
            else { throw malformed("record length is not valid") }
            guard record.readInteger(as: Int8.self) != nil, record.readVarint() != nil, let offsetDelta = record.readVarint(),
                let delta = Int32(exactly: offsetDelta), let keyLength = record.readVarint()
            else { throw malformed("record fields do not fit its length") }
            guard delta > previousDelta, delta <= header.lastOffsetDelta else {
                throw malformed("offset delta \(delta) after \(previousDelta), with a last offset delta of \(header.lastOffsetDelta)")
            }
            previousDelta = delta
            var key: ByteBuffer?
            if keyLength >= 0 {
                guard keyLength <= record.readableBytes, let bytes = record.readSlice(length: Int(keyLength)) else {
                    throw malformed("key length \(keyLength) with \(record.readableBytes) bytes left")
                }
                key = bytes
            } else if keyLength != -1 {
                throw malformed("key length \(keyLength)")
            }
            guard let valueLength = record.readVarint(), valueLength >= -1, valueLength <= record.readableBytes else {
                throw malformed("value length is not valid")
            }
            let entry = Entry(offset: header.baseOffset &+ Int64(delta), key: key, isTombstone: valueLength == -1)
            if !body(entry) { return }
        }
        guard section.readableBytes == 0 else {
            throw .recordCountMismatch(
                batchStart: batchStart, recordCount: header.recordCount, reason: "\(section.readableBytes) bytes follow the last record")
        }
    }
}
