import CZstd
import Testing

@testable import SluiceCodecs

/// The framings Kafka clients write, byte by byte where the format fixes them, and the
/// variants readers must take (concatenated members and frames, raw snappy, zstd frames
/// without a content size).
@Suite struct CompressionFramingTests {
    let text = Array("the same words again and again and again and again".utf8)

    @Test func gzipWritesOneDeterministicMember() {
        let compressed = CompressionCodec.gzip.compress(text)
        // RFC 1952 §2.3: ID1 ID2 = 1f 8b, CM 8 (deflate), no flags, MTIME 0, XFL, OS 3 (Unix).
        #expect(Array(compressed.prefix(8)) == [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00])
        #expect(compressed == CompressionCodec.gzip.compress(text))
        // The trailer: CRC-32 then ISIZE, little-endian.
        let size = compressed.suffix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(size == text.count)
    }

    @Test func gzipReadsConcatenatedMembers() throws {
        let first = CompressionCodec.gzip.compress(Array("first ".utf8))
        let second = CompressionCodec.gzip.compress(Array("second".utf8))
        #expect(try CompressionCodec.gzip.decompress(first + second, maximumOutputSize: 100) == Array("first second".utf8))
        // The cap counts the members together.
        #expect(throws: CompressionError.outputLimitExceeded(.gzip, limit: 11)) {
            try CompressionCodec.gzip.decompress(first + second, maximumOutputSize: 11)
        }
        // Bytes after a member that start no member are refused, not ignored.
        #expect(throws: CompressionError.self) {
            try CompressionCodec.gzip.decompress(first + [0x00, 0x01, 0x02], maximumOutputSize: 100)
        }
    }

    @Test func snappyWritesXerialFraming() {
        let input = randomBytes(count: 2 * Snappy.xerialBlockSize + 10, seed: 5)
        let compressed = CompressionCodec.snappy.compress(input)
        // snappy-java's SnappyCodec header: magic, version 1, minimum compatible version 1.
        #expect(
            Array(compressed.prefix(16))
                == [0x82, 0x53, 0x4E, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1])
        // Three blocks, each [int32 big-endian length][raw snappy block] of at most 32 KiB input.
        var position = 16
        var blockSizes: [Int] = []
        while position < compressed.count {
            let length = compressed[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
            let block = Array(compressed[position + 4..<position + 4 + length])
            blockSizes.append(try! block.withUnsafeBytes { try Snappy.decompressBlock($0, maximumOutputSize: 1 << 20) }.count)
            position += 4 + length
        }
        #expect(position == compressed.count)
        #expect(blockSizes == [Snappy.xerialBlockSize, Snappy.xerialBlockSize, 10])
        // Empty input is the header alone.
        #expect(CompressionCodec.snappy.compress([]) == Array(compressed.prefix(16)))
    }

    @Test func snappyReadsARawBlockAsLibrdkafkaWritesIt() throws {
        let block = text.withUnsafeBytes { Snappy.compressBlock($0) }
        #expect(block.first == UInt8(text.count))  // The varint of the length, not the magic.
        #expect(try CompressionCodec.snappy.decompress(block, maximumOutputSize: text.count) == text)
    }

    @Test func lz4WritesAFrameWithIndependentBlocks() {
        let compressed = CompressionCodec.lz4.compress(text)
        #expect(Array(compressed.prefix(4)) == [0x04, 0x22, 0x4D, 0x18])  // Magic 0x184D2204, little-endian.
        let flags = compressed[4]
        #expect(flags >> 6 == 0b01)  // Version 01.
        #expect(flags & 0x20 != 0)  // Block independence, which Kafka's Java reader requires.
        #expect(flags & 0x08 == 0)  // No content size.
        #expect(compressed[5] >> 4 & 0x07 == 4)  // Block maximum size 64 KiB.
    }

    @Test func lz4ReadsConcatenatedFrames() throws {
        let frames = CompressionCodec.lz4.compress(Array("one ".utf8)) + CompressionCodec.lz4.compress(Array("two".utf8))
        #expect(try CompressionCodec.lz4.decompress(frames, maximumOutputSize: 7) == Array("one two".utf8))
    }

    @Test func zstdWritesAFrameWithItsContentSize() {
        let compressed = CompressionCodec.zstd.compress(text)
        #expect(Array(compressed.prefix(4)) == [0x28, 0xB5, 0x2F, 0xFD])  // Magic 0xFD2FB528, little-endian.
        let declared = compressed.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        #expect(declared == UInt64(text.count))
    }

    @Test func zstdReadsAStreamedFrameWithoutContentSize() throws {
        let input = Array(repeating: text, count: 5000).flatMap { $0 }
        let frame = streamedZstdFrame(input)
        let declared = frame.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, $0.count) }
        #expect(declared == ZSTD_CONTENTSIZE_UNKNOWN)
        #expect(try CompressionCodec.zstd.decompress(frame, maximumOutputSize: input.count) == input)
        #expect(throws: CompressionError.outputLimitExceeded(.zstd, limit: 4096)) {
            try CompressionCodec.zstd.decompress(frame, maximumOutputSize: 4096)
        }
    }

    @Test func zstdReadsConcatenatedFrames() throws {
        let frames = CompressionCodec.zstd.compress(Array("one ".utf8)) + streamedZstdFrame(Array("two".utf8))
        #expect(try CompressionCodec.zstd.decompress(frames, maximumOutputSize: 7) == Array("one two".utf8))
    }

    @Test func zstdRefusesAFrameWhoseDeclaredSizeLies() throws {
        // A frame that declares 2^40 bytes but holds a few: the declared size is only a guess at
        // the room (clamped to the cap), and zstd refuses the window it implies.
        let frame = lyingZstdFrame(text, declaredSize: 1 << 40)
        #expect(throws: CompressionError.self) {
            try CompressionCodec.zstd.decompress(frame, maximumOutputSize: 1 << 20)
        }
        // The same frame declaring its true size decodes: the hand-made framing is right.
        #expect(try CompressionCodec.zstd.decompress(lyingZstdFrame(text, declaredSize: UInt64(text.count)), maximumOutputSize: 100) == text)
    }

    /// A frame written the way zstd-jni's `ZstdOutputStream` writes one: streamed, no size pledged.
    private func streamedZstdFrame(_ input: [UInt8]) -> [UInt8] {
        let context = ZSTD_createCCtx()!
        defer { ZSTD_freeCCtx(context) }
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count) + 64)
        let written = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                var inBuffer = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: 0)
                var outBuffer = ZSTD_outBuffer(dst: destination.baseAddress, size: destination.count, pos: 0)
                // Input first, the end after: a frame begun before the end is known has no size.
                while inBuffer.pos < inBuffer.size {
                    precondition(ZSTD_isError(ZSTD_compressStream2(context, &outBuffer, &inBuffer, ZSTD_e_continue)) == 0)
                }
                while ZSTD_compressStream2(context, &outBuffer, &inBuffer, ZSTD_e_end) != 0 {}
                return outBuffer.pos
            }
        }
        return Array(output.prefix(written))
    }

    /// A single-segment frame for `input` whose header declares `declaredSize` instead.
    private func lyingZstdFrame(_ input: [UInt8], declaredSize: UInt64) -> [UInt8] {
        // Frame header (RFC 8878 §3.1.1.1): magic, descriptor with Frame_Content_Size_flag 3
        // (8-byte size) and Single_Segment_flag, then the size; then one raw last block.
        var frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0b1110_0000]
        withUnsafeBytes(of: declaredSize.littleEndian) { frame.append(contentsOf: $0) }
        // Block header: Last_Block 1, Block_Type 0 (raw), Block_Size = input.count (3 bytes, little-endian).
        let header = UInt32(input.count) << 3 | 1
        frame.append(contentsOf: [UInt8(header & 0xFF), UInt8(header >> 8 & 0xFF), UInt8(header >> 16 & 0xFF)])
        return frame + input
    }
}
