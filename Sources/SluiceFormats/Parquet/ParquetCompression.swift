import SluiceCodecs
import SluiceCore

/// The page compression codecs Sluice writes and reads (parquet-format Compression.md).
package enum ParquetCompression: String, Hashable, Sendable, CaseIterable {
    case uncompressed
    /// Raw snappy blocks (no framing).
    case snappy
    /// A gzip member (RFC 1952).
    case gzip
    /// A zstd frame (at ``ParquetWriterOptions/zstdLevel`` when writing).
    case zstd

    /// `parquet.thrift` `CompressionCodec`.
    var thriftValue: Int32 {
        switch self {
        case .uncompressed: 0
        case .snappy: 1
        case .gzip: 2
        case .zstd: 6
        }
    }

    init(thriftValue: Int32) throws(SluiceError) {
        switch thriftValue {
        case 0: self = .uncompressed
        case 1: self = .snappy
        case 2: self = .gzip
        case 6: self = .zstd
        default:
            let names: [Int32: String] = [3: "LZO", 4: "BROTLI", 5: "LZ4", 7: "LZ4_RAW"]
            throw SluiceError(.featureNotSupported, "parquet compression codec \(names[thriftValue] ?? String(thriftValue)) is not supported",
                              hint: "Rewrite the file with ZSTD, SNAPPY, GZIP or no compression.")
        }
    }

    /// Decompresses a page that must come to exactly `size` bytes into the first `size` bytes of
    /// `buffer`, which is reused from page to page (it grows to the largest page; what is past
    /// `size` is left over from before).
    func decompress(_ input: UnsafeRawBufferPointer, size: Int, into buffer: inout [UInt8]) throws(SluiceError) {
        if buffer.count < size { buffer = [UInt8](repeating: 0, count: size) }
        let failure = buffer.withUnsafeMutableBytes { (all) -> String? in
            let output = UnsafeMutableRawBufferPointer(rebasing: all[0 ..< size])
            do throws(CompressionError) {
                switch self {
                case .uncompressed:
                    guard input.count == size else { return "it holds \(input.count) bytes, its header says \(size)" }
                    output.copyMemory(from: input)
                case .snappy:
                    // Parquet's snappy pages are raw blocks, without the framing Kafka's may have.
                    let bytes = try Snappy.decompressBlock(input, maximumOutputSize: size)
                    guard bytes.count == size else { return "it decompresses to \(bytes.count) bytes, its header says \(size)" }
                    bytes.withUnsafeBytes { output.copyMemory(from: $0) }
                case .gzip: try CompressionCodec.gzip.decompress(input, exactlyInto: output)
                case .zstd: try CompressionCodec.zstd.decompress(input, exactlyInto: output)
                }
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let failure { throw SluiceError(.dataCorrupted, "invalid parquet page: \(failure)") }
    }
}

/// Compresses the pages of one ``ParquetWriter``, every column's: one zstd context at the
/// writer's level serves them all, so a page costs no context set-up and a wide table no
/// context per column. Not thread-safe, as the writer is not.
final class ParquetPageCompressor {
    let compression: ParquetCompression
    /// Allocates its tables only when first used.
    private let zstd: ZstdCompressor

    init(compression: ParquetCompression, zstdLevel: Int32) {
        self.compression = compression
        zstd = ZstdCompressor(level: zstdLevel)
    }

    /// Replaces `output` with `input` compressed (uncompressed: copied).
    func compress(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        output.removeAll(keepingCapacity: true)
        switch compression {
        case .uncompressed: output.append(contentsOf: input)
        case .snappy: output.append(contentsOf: Snappy.compressBlock(input))
        case .gzip: output.append(contentsOf: CompressionCodec.gzip.compress(input))
        case .zstd: zstd.compress(input, appendingTo: &output)
        }
    }
}
