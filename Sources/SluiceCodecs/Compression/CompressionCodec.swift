/// The four compression codecs of Kafka record batches, each with the framing Kafka clients
/// write and read (the batch's attributes name the codec; its records section is one
/// compressed stream):
///
/// | codec | compress writes | decompress reads |
/// |---|---|---|
/// | `gzip` | one gzip member (RFC 1952, deflate level 6) | gzip members, concatenated ones too |
/// | `snappy` | xerial snappy-java framing, 32 KiB blocks | xerial framing, or one raw snappy block |
/// | `lz4` | one LZ4 frame: independent 64 KiB blocks, no checksums | LZ4 frames (lz4frame.h) |
/// | `zstd` | one zstd frame, level 3, content size in its header | zstd frames, with or without content size |
///
/// Decompression takes a cap on its output (`maximumOutputSize`) and never allocates past it,
/// so a small input that claims or produces a huge output (a "zip bomb") fails with
/// `.outputLimitExceeded` instead of exhausting memory; corrupt or truncated input fails with
/// `.corruptInput` or `.truncatedInput`. No input traps.
///
/// ```swift
/// let packed = CompressionCodec.zstd.compress(records)
/// let records = try CompressionCodec.zstd.decompress(packed, maximumOutputSize: 64 << 20)
/// ```
package enum CompressionCodec: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case gzip
    case snappy
    case lz4
    case zstd

    package var description: String { rawValue }

    /// Compresses `input` in this codec's Kafka framing (see the type's table).
    ///
    /// - Precondition: `input` is under 2 GiB, as any Kafka record batch is. The C libraries
    ///   cannot fail otherwise: each output buffer is allocated at the library's worst-case bound.
    /// - Complexity: O(n) in the input's size.
    package func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        precondition(input.count <= Int(Int32.max), "compression input of \(input.count) bytes; the codecs take under 2 GiB")
        switch self {
        case .gzip: return Gzip.compress(input)
        case .snappy: return Snappy.compressXerialFramed(input)
        case .lz4: return LZ4Frame.compress(input)
        case .zstd: return ZstdFrame.compress(input)
        }
    }

    /// Compresses `input` in this codec's Kafka framing.
    package func compress(_ input: [UInt8]) -> [UInt8] {
        input.withUnsafeBytes { compress($0) }
    }

    /// Decompresses `input`, which must be one whole stream in this codec's framing (see the
    /// type's table), into at most `maximumOutputSize` bytes.
    ///
    /// - Throws: `.corruptInput` or `.truncatedInput` when `input` is not a whole valid stream
    ///   (empty input included); `.outputLimitExceeded` when it decompresses to more than
    ///   `maximumOutputSize` bytes, having allocated at most one byte more than that.
    /// - Complexity: O(n) in the output's size.
    package func decompress(
        _ input: UnsafeRawBufferPointer, maximumOutputSize: Int
    ) throws(CompressionError) -> [UInt8] {
        guard input.count > 0 else { throw .truncatedInput(self) }
        switch self {
        case .gzip: return try Gzip.decompress(input, maximumOutputSize: maximumOutputSize)
        case .snappy: return try Snappy.decompressXerialOrRaw(input, maximumOutputSize: maximumOutputSize)
        case .lz4: return try LZ4Frame.decompress(input, maximumOutputSize: maximumOutputSize)
        case .zstd: return try ZstdFrame.decompress(input, maximumOutputSize: maximumOutputSize)
        }
    }

    /// Decompresses `input`, which must come to exactly `output.count` bytes, into `output`: zstd
    /// decodes in place, the other codecs through a buffer of at most that size.
    /// - Throws: as ``decompress(_:maximumOutputSize:)``, and `.corruptInput` when the stream
    ///   comes to fewer bytes.
    package func decompress(_ input: UnsafeRawBufferPointer, exactlyInto output: UnsafeMutableRawBufferPointer) throws(CompressionError) {
        if self == .zstd { return try ZstdFrame.decompress(input, exactlyInto: output) }
        let bytes = try decompress(input, maximumOutputSize: output.count)
        guard bytes.count == output.count else { throw .corruptInput(self, reason: "it decompresses to \(bytes.count) bytes, not \(output.count)") }
        bytes.withUnsafeBytes { output.copyMemory(from: $0) }
    }

    /// Decompresses `input` into at most `maximumOutputSize` bytes.
    package func decompress(_ input: [UInt8], maximumOutputSize: Int) throws(CompressionError) -> [UInt8] {
        let result = input.withUnsafeBytes { bytes in
            Result { () throws(CompressionError) in try decompress(bytes, maximumOutputSize: maximumOutputSize) }
        }
        return try result.get()
    }
}
