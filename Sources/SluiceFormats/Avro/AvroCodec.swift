import SluiceCodecs
import SluiceCore

/// The block compression codecs of Avro object container files (specification, "Required
/// Codecs" and "Optional Codecs"), named by the file's `avro.codec` metadata.
package enum AvroCodec: String, Hashable, Sendable, CaseIterable {
    /// Blocks as they are.
    case null
    /// Raw deflate (RFC 1951), no zlib header or checksum.
    case deflate
    /// One raw snappy block, then the 4-byte big-endian CRC-32 of the uncompressed bytes.
    case snappy
    /// One zstd frame.
    case zstandard

    /// The codec a file's `avro.codec` names; an absent codec is `null`.
    ///
    /// - Throws: `featureNotSupported` for codecs this reader lacks (`bzip2`, `xz`).
    package init(metadataValue: String?) throws(SluiceError) {
        guard let metadataValue else {
            self = .null
            return
        }
        guard let codec = AvroCodec(rawValue: metadataValue) else {
            throw SluiceError(.featureNotSupported, "Avro codec \"\(metadataValue)\" is not supported", hint: "Sluice reads the codecs null, deflate, snappy and zstandard.")
        }
        self = codec
    }

    /// A block's serialized objects, compressed.
    func compress(_ block: [UInt8]) -> [UInt8] {
        switch self {
        case .null:
            return block
        case .deflate:
            return AvroDeflate.compress(block)
        case .snappy:
            var compressed = block.withUnsafeBytes { Snappy.compressBlock($0) }
            let checksum = avroCRC32(block)
            compressed += [UInt8(truncatingIfNeeded: checksum >> 24), UInt8(truncatingIfNeeded: checksum >> 16), UInt8(truncatingIfNeeded: checksum >> 8), UInt8(truncatingIfNeeded: checksum)]
            return compressed
        case .zstandard:
            return CompressionCodec.zstd.compress(block)
        }
    }

    /// A block's serialized objects, decompressed into at most `maximumSize` bytes.
    func decompress(_ block: ArraySlice<UInt8>, maximumSize: Int) throws(SluiceError) -> [UInt8] {
        switch self {
        case .null:
            return Array(block)
        case .deflate:
            return try AvroDeflate.decompress(block, maximumOutputSize: maximumSize)
        case .snappy:
            guard block.count >= 5 else { throw SluiceError(.dataCorrupted, "invalid Avro data: a snappy block of \(block.count) bytes") }
            let body = block.dropLast(4)
            let trailer = Array(block.suffix(4))
            let result = body.withUnsafeBytes { bytes in
                Result { () throws(CompressionError) in try Snappy.decompressBlock(bytes, maximumOutputSize: maximumSize) }
            }
            let output: [UInt8]
            switch result {
            case .success(let bytes): output = bytes
            case .failure(let error): throw AvroCodec.sluiceError(error, maximumSize: maximumSize)
            }
            let expected = UInt32(trailer[0]) << 24 | UInt32(trailer[1]) << 16 | UInt32(trailer[2]) << 8 | UInt32(trailer[3])
            guard avroCRC32(output) == expected else { throw SluiceError(.dataCorrupted, "invalid Avro data: a snappy block fails its CRC-32 check") }
            return output
        case .zstandard:
            do throws(CompressionError) {
                return try CompressionCodec.zstd.decompress(Array(block), maximumOutputSize: maximumSize)
            } catch {
                throw AvroCodec.sluiceError(error, maximumSize: maximumSize)
            }
        }
    }

    private static func sluiceError(_ error: CompressionError, maximumSize: Int) -> SluiceError {
        switch error {
        case .outputLimitExceeded:
            SluiceError(.programLimitExceeded, "Avro block decompresses to more than \(maximumSize) bytes")
        case .corruptInput, .truncatedInput:
            SluiceError(.dataCorrupted, "invalid Avro data: \(error)")
        }
    }
}
