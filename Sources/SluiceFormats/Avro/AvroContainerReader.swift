import SluiceCore

/// Reads an Avro object container file held in memory: parses the header (magic, metadata,
/// the writer's schema and codec, sync marker), then yields the records block by block with
/// the writer's schema, checking each block's sync marker.
///
/// ```swift
/// var reader = try AvroContainerReader(bytes: file)
/// while let record = try reader.next() { … record.field(named: "id", in: reader.schema) … }
/// ```
///
/// Hostile files fail with `dataCorrupted` (or `programLimitExceeded` for a block that
/// decompresses past ``maximumBlockSize``); lengths and counts are checked against the bytes
/// that remain before anything is allocated for them.
package struct AvroContainerReader {
    /// The writer's schema, from `avro.schema`.
    package let schema: AvroSchema
    package let codec: AvroCodec
    /// Every metadata entry, `avro.schema` and `avro.codec` included.
    package let metadata: [String: [UInt8]]
    package let syncMarker: [UInt8]
    /// The most bytes one block may decompress to.
    package let maximumBlockSize: Int

    private let bytes: [UInt8]
    private let namedTypes: [String: AvroSchema]
    /// Where the next block starts in `bytes`.
    private var position: Int
    /// The block being read, and how many of its records remain.
    private var block: AvroBinaryDecoder?
    private var recordsLeftInBlock = 0

    /// Parses the header of `bytes`.
    ///
    /// - Throws: `dataCorrupted` for a missing magic, a malformed metadata map or a missing
    ///   `avro.schema`; the schema parser's errors for an invalid schema; `featureNotSupported`
    ///   for a codec other than null, deflate, snappy and zstandard.
    package init(bytes: [UInt8], maximumBlockSize: Int = 256 << 20) throws(SluiceError) {
        guard bytes.count >= AvroContainerFormat.magic.count, bytes.prefix(AvroContainerFormat.magic.count).elementsEqual(AvroContainerFormat.magic) else {
            throw SluiceError(.dataCorrupted, "invalid Avro data: the file does not start with the Avro magic \"Obj\\u{1}\"")
        }
        var decoder = AvroBinaryDecoder(bytes, from: AvroContainerFormat.magic.count)
        guard case .map(let entries) = try decoder.decode(AvroContainerFormat.metadataSchema) else {
            throw SluiceError.internalError("the Avro metadata map decoded as something else")
        }
        var metadata: [String: [UInt8]] = [:]
        for (key, value) in entries { metadata[key] = value.bytesValue ?? [] }
        syncMarker = try decoder.readRaw(AvroContainerFormat.syncMarkerSize)

        guard let schemaBytes = metadata[AvroContainerFormat.schemaKey] else {
            throw SluiceError(.dataCorrupted, "invalid Avro data: the file has no \"avro.schema\" metadata")
        }
        guard let schemaText = String(validating: schemaBytes, as: UTF8.self) else {
            throw SluiceError(.dataCorrupted, "invalid Avro data: \"avro.schema\" is not UTF-8")
        }
        schema = try AvroSchema(json: schemaText)
        codec = try AvroCodec(metadataValue: metadata[AvroContainerFormat.codecKey].map { String(decoding: $0, as: UTF8.self) })
        self.metadata = metadata
        self.maximumBlockSize = maximumBlockSize
        self.bytes = bytes
        namedTypes = schema.namedTypes
        position = decoder.position
    }

    /// The metadata entry `key` as UTF-8 text (Iceberg's entries all are).
    package func metadataString(_ key: String) -> String? {
        metadata[key].flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The next record, or nil after the last one.
    package mutating func next() throws(SluiceError) -> AvroValue? {
        while recordsLeftInBlock == 0 {
            if let block, !block.isAtEnd {
                throw SluiceError(.dataCorrupted, "invalid Avro data: a block holds bytes after its last record")
            }
            block = nil
            guard position < bytes.count else { return nil }
            try openBlock()
        }
        guard var decoder = block else { throw SluiceError.internalError("an Avro block with records left is not open") }
        block = nil
        let value = try decoder.decode(schema)
        block = decoder
        recordsLeftInBlock -= 1
        return value
    }

    /// Every record that remains.
    package mutating func readAll() throws(SluiceError) -> [AvroValue] {
        var records: [AvroValue] = []
        while let record = try next() { records.append(record) }
        return records
    }

    /// Reads the block at `position`: its count, its size, its data (decompressed) and its
    /// sync marker.
    private mutating func openBlock() throws(SluiceError) {
        var header = AvroBinaryDecoder(bytes, from: position)
        let count = try header.readLong()
        let size = try header.readLong()
        guard count >= 0, size >= 0 else {
            throw SluiceError(.dataCorrupted, "invalid Avro data: a block declares \(count) records in \(size) bytes")
        }
        guard size <= Int64(header.remaining - AvroContainerFormat.syncMarkerSize) else {
            throw SluiceError(.dataCorrupted, "invalid Avro data: a block of \(size) bytes runs past the end of the file")
        }
        let dataStart = header.position
        let dataEnd = dataStart + Int(size)
        guard bytes[dataEnd ..< dataEnd + AvroContainerFormat.syncMarkerSize].elementsEqual(syncMarker) else {
            throw SluiceError(.dataCorrupted, "invalid Avro data: a block is not followed by the file's sync marker")
        }
        let data = try codec.decompress(bytes[dataStart ..< dataEnd], maximumSize: maximumBlockSize)
        // Every record takes at least its schema's minimum size, so a count the data cannot
        // hold is refused before any record is decoded.
        var sizes: [String: Int] = [:]
        let recordSize = schema.minimumEncodedSize(cache: &sizes)
        if recordSize > 0 {
            guard count <= Int64(data.count / recordSize) else {
                throw SluiceError(.dataCorrupted, "invalid Avro data: a block of \(data.count) bytes declares \(count) records")
            }
        } else {
            guard count <= Int64(AvroBinaryDecoder.maximumZeroSizeItems) else {
                throw SluiceError(.dataCorrupted, "invalid Avro data: a block declares \(count) records of no size")
            }
        }
        position = dataEnd + AvroContainerFormat.syncMarkerSize
        block = AvroBinaryDecoder(data, namedTypes: namedTypes)
        recordsLeftInBlock = Int(count)
    }
}
