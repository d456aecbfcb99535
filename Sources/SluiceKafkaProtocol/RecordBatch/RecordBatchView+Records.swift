import NIOCore
import SluiceCodecs

extension RecordBatchView {
    /// The default cap on a compressed batch's decompressed records: 64 MiB, well past what
    /// producers write (librdkafka's and the Java client's batches default to 1 MiB and below)
    /// and small enough that a hostile batch cannot take much memory.
    package static let defaultMaximumDecompressedSize = 64 << 20

    /// Decodes the records of this batch from `buffer`, the buffer it was validated in,
    /// decompressing them first when the batch is compressed.
    ///
    /// Record layout (Kafka documentation, "Message Format", record): length varint, attributes
    /// int8, timestampDelta varint, offsetDelta varint, keyLength varint (-1 null) and key,
    /// valueLength varint (-1 null) and value, header count varint, and per header a key length
    /// varint and key string, a value length varint (-1 null) and value. In a compressed batch
    /// the records section after the 61-byte header is one stream of the batch's codec
    /// (`CompressionCodec` has the framings) holding those records.
    ///
    /// Every length is checked against the bytes that remain before it is used, so lying lengths
    /// end in an error, and memory reserved up front is bounded by the batch's (decompressed)
    /// size, never by a count the batch declares. Keys and values are slices of `buffer`, or of
    /// one buffer holding the decompressed records.
    ///
    /// - Parameter maximumDecompressedSize: The most bytes a compressed batch's records may
    ///   decompress to; decompression stops there, so memory stays bounded whatever the batch says.
    /// - Throws: `.decompressionFailed` when a compressed section is corrupt, truncated or larger
    ///   than `maximumDecompressedSize`; `.malformedRecord` when a record's fields do not fit its
    ///   length; `.recordCountMismatch` when the records and the count disagree.
    /// - Complexity: O(n) in the batch's (decompressed) size.
    package func records(
        in buffer: ByteBuffer, maximumDecompressedSize: Int = Self.defaultMaximumDecompressedSize
    ) throws(RecordBatchError) -> [KafkaRecord] {
        let batchStart = byteRange.lowerBound
        guard let compression = header.compression else {
            throw .unknownCompressionCodec(batchStart: batchStart, codecID: header.compressionCodecID)
        }
        guard header.recordCount >= 0 else {
            throw .recordCountMismatch(batchStart: batchStart, recordCount: header.recordCount, reason: "the count is negative")
        }
        guard let section = buffer.getSlice(at: recordsRange.lowerBound, length: recordsRange.count) else {
            throw .truncated(batchStart: batchStart, needed: byteRange.count, available: max(0, buffer.writerIndex - batchStart))
        }
        var reader = section
        if let codec = compression.codec {
            reader = try decompress(section, with: codec, maximumSize: maximumDecompressedSize)
        }
        let count = Int(header.recordCount)
        var records: [KafkaRecord] = []
        records.reserveCapacity(min(count, reader.readableBytes / RecordBatchValidator.minimumRecordSize))
        // Kafka's DefaultRecordBatch: with log-append time every record carries the batch's time.
        let logAppendTime: Int64? = header.timestampType == .logAppendTime ? header.maxTimestamp : nil

        for recordIndex in 0..<count {
            guard reader.readableBytes > 0 else {
                throw .recordCountMismatch(
                    batchStart: batchStart, recordCount: header.recordCount, reason: "holds only \(recordIndex)")
            }
            var fields = RecordFieldReader(batchStart: batchStart, recordIndex: recordIndex)
            guard let length = reader.readVarint() else { throw fields.malformed("record length is not a valid varint") }
            guard length >= 0, length <= reader.readableBytes, let body = reader.readSlice(length: Int(length)) else {
                throw fields.malformed("record length \(length) with \(reader.readableBytes) bytes left in the batch")
            }
            fields.body = body
            _ = try fields.int8("attributes")
            let timestampDelta = try fields.varint("timestamp delta")
            let offsetDelta = try fields.varint("offset delta")
            guard let offsetDelta32 = Int32(exactly: offsetDelta) else {
                throw fields.malformed("offset delta \(offsetDelta) does not fit in 32 bits")
            }
            let key = try fields.nullableBytes("key")
            let value = try fields.nullableBytes("value")
            let headers = try fields.headers()
            guard fields.body.readableBytes == 0 else {
                throw fields.malformed("\(fields.body.readableBytes) bytes after the headers")
            }
            records.append(
                KafkaRecord(
                    offset: header.baseOffset &+ Int64(offsetDelta32),
                    timestamp: logAppendTime ?? header.baseTimestamp &+ timestampDelta,
                    key: key, value: value, headers: headers))
        }
        guard reader.readableBytes == 0 else {
            throw .recordCountMismatch(
                batchStart: batchStart, recordCount: header.recordCount,
                reason: "\(reader.readableBytes) bytes follow the last record")
        }
        return records
    }
}

extension RecordBatchView {
    /// The decompressed records section, in a buffer of its own.
    private func decompress(
        _ section: ByteBuffer, with codec: CompressionCodec, maximumSize: Int
    ) throws(RecordBatchError) -> ByteBuffer {
        let result = section.withUnsafeReadableBytes { bytes in
            Result { () throws(CompressionError) in try codec.decompress(bytes, maximumOutputSize: maximumSize) }
        }
        switch result {
        case .success(let records): return ByteBuffer(bytes: records)
        case .failure(let error): throw .decompressionFailed(batchStart: byteRange.lowerBound, error)
        }
    }
}

extension RecordBatchCompression {
    /// The codec that compresses the records; nil for `.uncompressed`.
    package var codec: CompressionCodec? {
        switch self {
        case .uncompressed: nil
        case .gzip: .gzip
        case .snappy: .snappy
        case .lz4: .lz4
        case .zstd: .zstd
        }
    }
}

/// Reads the fields of one record from its body, turning every failure into `.malformedRecord`.
private struct RecordFieldReader {
    let batchStart: Int
    let recordIndex: Int
    var body = ByteBuffer()

    init(batchStart: Int, recordIndex: Int) {
        self.batchStart = batchStart
        self.recordIndex = recordIndex
    }

    func malformed(_ reason: String) -> RecordBatchError {
        .malformedRecord(batchStart: batchStart, recordIndex: recordIndex, reason: reason)
    }

    mutating func int8(_ field: String) throws(RecordBatchError) -> Int8 {
        guard let value = body.readInteger(as: Int8.self) else { throw malformed("\(field) missing") }
        return value
    }

    mutating func varint(_ field: String) throws(RecordBatchError) -> Int64 {
        guard let value = body.readVarint() else { throw malformed("\(field) is not a valid varint") }
        return value
    }

    /// A length-prefixed byte string, nil for length -1.
    mutating func nullableBytes(_ field: String) throws(RecordBatchError) -> ByteBuffer? {
        guard let length = body.readVarint() else { throw malformed("\(field) length is not a valid varint") }
        if length == -1 { return nil }
        guard length >= 0, length <= body.readableBytes, let bytes = body.readSlice(length: Int(length)) else {
            throw malformed("\(field) length \(length) with \(body.readableBytes) bytes left")
        }
        return bytes
    }

    mutating func headers() throws(RecordBatchError) -> [KafkaRecordHeader] {
        guard let count = body.readVarint() else { throw malformed("header count is not a valid varint") }
        // Each header takes at least two bytes (its two lengths): a larger count is a lie.
        guard count >= 0, count <= body.readableBytes / 2 else {
            throw malformed("header count \(count) with \(body.readableBytes) bytes left")
        }
        var headers: [KafkaRecordHeader] = []
        headers.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let keyLength = body.readVarint() else { throw malformed("header key length is not a valid varint") }
            guard keyLength >= 0, keyLength <= body.readableBytes, let keyBytes = body.readSlice(length: Int(keyLength))
            else { throw malformed("header key length \(keyLength) with \(body.readableBytes) bytes left") }
            let key = String(decoding: keyBytes.readableBytesView, as: UTF8.self)
            headers.append(KafkaRecordHeader(key: key, value: try nullableBytes("header value")))
        }
        return headers
    }
}
