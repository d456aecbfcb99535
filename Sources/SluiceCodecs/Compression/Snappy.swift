import CSnappy

/// Snappy, raw and in the xerial snappy-java framing, through snappy's C interface.
///
/// Kafka's codec 2 holds either, and readers take both:
/// - The Java client writes snappy-java's `SnappyOutputStream` framing (its `SnappyCodec`
///   header): the magic `\x82SNAPPY\x00`, an int32 version (1) and an int32 minimum compatible
///   version (1), then blocks of [int32 big-endian compressed length][raw snappy block], each
///   block compressing at most 32 KiB of input. kafka-python writes the same (`snappy_encode`
///   with `xerial_compatible=True`).
/// - librdkafka writes one raw snappy block (`rd_kafka_snappy_compress_slice` in
///   rdkafka_msgset_writer.c), and reads both, telling them apart by the magic
///   (rdkafka_msgset_reader.c); snappy-java's `SnappyInputStream` falls back to a raw block
///   when the magic is absent.
///
/// So decompression takes either, and compression writes the xerial framing, the Java client's
/// and the one every Kafka reader understands.
///
/// A raw block cannot be mistaken for the framing: it starts with the varint of its length, and
/// were that `\x82 S` the next tag byte, `N` (0x4E), would be a copy before any output, which no
/// valid block holds.
package enum Snappy {
    /// snappy-java's `SnappyCodec.MAGIC_HEADER`.
    static let xerialMagic: [UInt8] = [0x82, 0x53, 0x4E, 0x41, 0x50, 0x50, 0x59, 0x00]
    /// The framing header: magic, version, minimum compatible version.
    static let xerialHeaderSize = 16
    /// The version written, and the minimum compatible version (snappy-java's `DEFAULT_VERSION`
    /// and `MINIMUM_COMPATIBLE_VERSION`).
    static let xerialVersion: UInt32 = 1
    /// Input bytes per framed block: snappy-java's default block size, and kafka-python's.
    static let xerialBlockSize = 32 * 1024

    /// One raw snappy block holding `input` (no framing): what Parquet's SNAPPY pages hold.
    package static func compressBlock(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: snappy_max_compressed_length(input.count))
        let written = output.withUnsafeMutableBytes { out in appendBlock(input, to: out) }
        output.removeLast(output.count - written)
        return output
    }

    /// `input` in the xerial framing: the header, then one block per 32 KiB of input (none for
    /// empty input).
    static func compressXerialFramed(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        let blockCount = (input.count + xerialBlockSize - 1) / xerialBlockSize
        // One allocation for the worst case, trimmed at the end.
        let bound = xerialHeaderSize + blockCount * (4 + snappy_max_compressed_length(min(input.count, xerialBlockSize)))
        var output = [UInt8](repeating: 0, count: bound)
        let written = output.withUnsafeMutableBytes { out -> Int in
            out.copyBytes(from: xerialMagic)
            out.storeBytes(of: xerialVersion.bigEndian, toByteOffset: 8, as: UInt32.self)
            out.storeBytes(of: xerialVersion.bigEndian, toByteOffset: 12, as: UInt32.self)
            var position = 0
            var written = xerialHeaderSize
            while position < input.count {
                let block = UnsafeRawBufferPointer(rebasing: input[position..<min(position + xerialBlockSize, input.count)])
                let length = appendBlock(block, to: UnsafeMutableRawBufferPointer(rebasing: out[(written + 4)...]))
                out.storeBytes(of: UInt32(length).bigEndian, toByteOffset: written, as: UInt32.self)
                written += 4 + length
                position += block.count
            }
            return written
        }
        output.removeLast(output.count - written)
        return output
    }

    /// Compresses `input` into `out`, which has room for `snappy_max_compressed_length`; returns
    /// the bytes written.
    private static func appendBlock(_ input: UnsafeRawBufferPointer, to out: UnsafeMutableRawBufferPointer) -> Int {
        var length = out.count
        let status = snappy_compress(
            input.baseAddress?.assumingMemoryBound(to: CChar.self), input.count,
            out.baseAddress!.assumingMemoryBound(to: CChar.self), &length)
        // The room is snappy's own worst-case bound, so compression cannot fail.
        precondition(status == SNAPPY_OK, "snappy_compress into its bound returned \(status)")
        return length
    }

    /// Decompresses one raw snappy block into at most `maximumOutputSize` bytes.
    package static func decompressBlock(
        _ input: UnsafeRawBufferPointer, maximumOutputSize: Int
    ) throws(CompressionError) -> [UInt8] {
        var output = DecompressionOutput(codec: .snappy, limit: maximumOutputSize, expectedSize: 0)
        try appendDecompressedBlock(input, to: &output)
        return output.finish()
    }

    /// Decompresses the xerial framing when `input` starts with its magic, else one raw block.
    static func decompressXerialOrRaw(
        _ input: UnsafeRawBufferPointer, maximumOutputSize: Int
    ) throws(CompressionError) -> [UInt8] {
        guard input.count >= xerialMagic.count, input.prefix(xerialMagic.count).elementsEqual(xerialMagic) else {
            return try decompressBlock(input, maximumOutputSize: maximumOutputSize)
        }
        guard input.count >= xerialHeaderSize else { throw .truncatedInput(.snappy) }
        // The version fields are not checked: every version so far frames blocks the same way.
        var output = DecompressionOutput(codec: .snappy, limit: maximumOutputSize, expectedSize: 0)
        var position = xerialHeaderSize
        while position < input.count {
            guard input.count - position >= 4 else { throw .truncatedInput(.snappy) }
            let length = Int(Int32(bitPattern: loadBigEndian(input, at: position)))
            position += 4
            guard length > 0 else { throw .corruptInput(.snappy, reason: "framed block length \(length)") }
            guard length <= input.count - position else { throw .truncatedInput(.snappy) }
            try appendDecompressedBlock(UnsafeRawBufferPointer(rebasing: input[position..<position + length]), to: &output)
            position += length
        }
        return output.finish()
    }

    /// Decompresses one raw block after what `output` holds, after checking the length the
    /// block declares against the cap, so a lying length allocates nothing.
    private static func appendDecompressedBlock(
        _ block: UnsafeRawBufferPointer, to output: inout DecompressionOutput
    ) throws(CompressionError) {
        guard let base = block.baseAddress?.assumingMemoryBound(to: CChar.self), block.count > 0 else {
            throw .truncatedInput(.snappy)
        }
        var length = 0
        guard snappy_uncompressed_length(base, block.count, &length) == SNAPPY_OK else {
            throw .corruptInput(.snappy, reason: "a block's length is not a valid varint")
        }
        // snappy's densest element, a copy with a 2-byte offset, is 3 bytes for 64 output bytes
        // (format_description.txt): a block cannot hold more than 22 times its size, so a larger
        // declared length is a lie, refused before anything is allocated for it.
        guard length / 22 <= block.count else {
            throw .corruptInput(.snappy, reason: "a block of \(block.count) bytes declares \(length) bytes")
        }
        guard length <= output.limit - output.count else { throw .outputLimitExceeded(.snappy, limit: output.limit) }
        // The block decompresses in one call, so its room must be there before it starts.
        output.reserve(length)
        let status = try output.write { room -> (snappy_status, Int) in
            var written = room.count
            let status = snappy_uncompress(base, block.count, room.baseAddress!.assumingMemoryBound(to: CChar.self), &written)
            return (status, status == SNAPPY_OK ? written : 0)
        }
        guard status == SNAPPY_OK else { throw .corruptInput(.snappy, reason: "a block does not decompress") }
    }
}

private func loadBigEndian(_ bytes: UnsafeRawBufferPointer, at index: Int) -> UInt32 {
    UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
}
