/// Why compressed bytes could not be decompressed. Every decoder turns the C library's failures
/// into one of these; none of them traps on any input.
package enum CompressionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not a valid stream of the codec: a bad magic number or header, a checksum
    /// that fails, a block that does not decode, or bytes after the end that start no new stream.
    case corruptInput(CompressionCodec, reason: String)
    /// The bytes end before the stream does.
    case truncatedInput(CompressionCodec)
    /// The stream decompresses to more than `limit` bytes, the caller's cap: decoding stopped
    /// after `limit` bytes, so a small input that expands without end (a "zip bomb") costs no
    /// more memory than the cap.
    case outputLimitExceeded(CompressionCodec, limit: Int)

    /// The codec concerned.
    package var codec: CompressionCodec {
        switch self {
        case .corruptInput(let codec, _), .truncatedInput(let codec), .outputLimitExceeded(let codec, _): codec
        }
    }

    package var description: String {
        switch self {
        case .corruptInput(let codec, let reason): "\(codec) data is corrupt: \(reason)"
        case .truncatedInput(let codec): "\(codec) data ends before its stream does"
        case .outputLimitExceeded(let codec, let limit): "\(codec) data decompresses to more than \(limit) bytes"
        }
    }
}
