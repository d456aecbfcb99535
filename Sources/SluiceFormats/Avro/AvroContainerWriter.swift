import SluiceCore

/// Writes an Avro object container file into memory: the header (magic, metadata with
/// `avro.schema`, `avro.codec` and the caller's entries, sync marker), then the records in
/// blocks of about ``blockSize`` serialized bytes, each compressed by the codec and followed by
/// the sync marker.
///
/// ```swift
/// var writer = try AvroContainerWriter(schema: schema, codec: .deflate, metadata: ["format-version": Array("2".utf8)])
/// try writer.append(.record([.long(1), .string("a")]))
/// let file = writer.finish()
/// ```
///
/// Not `Sendable`-shared: one writer is used by one task.
package struct AvroContainerWriter {
    package let schema: AvroSchema
    package let codec: AvroCodec
    /// The 16 bytes that end the header and every block.
    package let syncMarker: [UInt8]
    /// Serialized bytes (before compression) after which a block is closed.
    package let blockSize: Int
    /// How many records have been appended.
    package private(set) var recordCount = 0

    private let namedTypes: [String: AvroSchema]
    private var output = AvroBinaryEncoder()
    private var block = AvroBinaryEncoder()
    private var blockRecordCount = 0

    /// Starts a file and writes its header.
    ///
    /// - Parameters:
    ///   - metadata: the caller's metadata entries, written after `avro.schema` and `avro.codec`
    ///     in key order; keys starting with `avro.` are reserved by the specification.
    ///   - syncMarker: 16 bytes; random when nil (pass one for reproducible files).
    /// - Throws: `invalidParameterValue` for a reserved metadata key or a sync marker that is
    ///   not 16 bytes.
    package init(
        schema: AvroSchema, codec: AvroCodec = .deflate, metadata: [String: [UInt8]] = [:],
        syncMarker: [UInt8]? = nil, blockSize: Int = 64 * 1024
    ) throws(SluiceError) {
        if let reserved = metadata.keys.first(where: { $0.hasPrefix("avro.") }) {
            throw SluiceError(.invalidParameterValue, "Avro metadata key \"\(reserved)\" is reserved")
        }
        var generator = SystemRandomNumberGenerator()
        let marker = syncMarker ?? (0 ..< AvroContainerFormat.syncMarkerSize).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
        guard marker.count == AvroContainerFormat.syncMarkerSize else {
            throw SluiceError(.invalidParameterValue, "Avro sync marker must be 16 bytes, not \(marker.count)")
        }
        self.schema = schema
        self.codec = codec
        self.syncMarker = marker
        self.blockSize = max(1, blockSize)
        namedTypes = schema.namedTypes

        output.writeRaw(AvroContainerFormat.magic)
        output.writeLong(Int64(2 + metadata.count))
        output.writeString(AvroContainerFormat.schemaKey)
        output.writeString(schema.jsonText)
        output.writeString(AvroContainerFormat.codecKey)
        output.writeString(codec.rawValue)
        for key in metadata.keys.sorted() {
            output.writeString(key)
            output.writeBytes(metadata[key] ?? [])
        }
        output.writeLong(0)
        output.writeRaw(marker)
    }

    /// Appends one record; closes the block when it reaches ``blockSize``.
    ///
    /// - Throws: `datatypeMismatch` when `value` does not match the schema; the file is then
    ///   as it was before the call.
    package mutating func append(_ value: AvroValue) throws(SluiceError) {
        let before = block.bytes.count
        do {
            try block.encode(value, as: schema, namedTypes: namedTypes)
        } catch {
            block.truncate(to: before)
            throw error
        }
        blockRecordCount += 1
        recordCount += 1
        if block.bytes.count >= blockSize { flushBlock() }
    }

    /// Writes the open block, if it holds records.
    private mutating func flushBlock() {
        guard blockRecordCount > 0 else { return }
        let data = codec.compress(block.bytes)
        output.writeLong(Int64(blockRecordCount))
        output.writeLong(Int64(data.count))
        output.writeRaw(data)
        output.writeRaw(syncMarker)
        block.removeAll()
        blockRecordCount = 0
    }

    /// The whole file: the header, the blocks written, and the open block.
    package consuming func finish() -> [UInt8] {
        flushBlock()
        return output.bytes
    }
}
