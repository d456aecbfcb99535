import CZlib
import SluiceCore

/// Raw deflate (RFC 1951, no zlib or gzip wrapper) through zlib: Avro's `deflate` codec.
/// SluiceCodecs offers gzip streams only, so this small wrapper lives with its one user.
enum AvroDeflate {
    /// zlib's window bits for raw deflate with the largest window: negative 15.
    static let rawWindowBits: Int32 = -MAX_WBITS

    /// `input` as one raw deflate stream at zlib's default level (6, what Java's `Deflater`
    /// and Python's `zlib` use by default).
    static func compress(_ input: [UInt8]) -> [UInt8] {
        // zlib keeps a pointer back to its z_stream and refuses one that moved: it lives on the heap.
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deinitialize(count: 1); stream.deallocate() }
        let status = deflateInit2_(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, rawWindowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed with \(status): out of memory")
        defer { deflateEnd(stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, UInt(input.count))))
        let written = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination -> Int in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.pointee.avail_in = UInt32(source.count)
                stream.pointee.next_out = destination.baseAddress
                stream.pointee.avail_out = UInt32(destination.count)
                let status = deflate(stream, Z_FINISH)
                // With room for deflateBound's worst case, one Z_FINISH call ends the stream.
                precondition(status == Z_STREAM_END, "deflate into its bound returned \(status)")
                return destination.count - Int(stream.pointee.avail_out)
            }
        }
        output.removeLast(output.count - written)
        return output
    }

    /// The bytes of one raw deflate stream, at most `maximumOutputSize` of them.
    ///
    /// - Throws: `dataCorrupted` for a stream that is invalid or ends early;
    ///   `programLimitExceeded` when it inflates to more than `maximumOutputSize` bytes (the
    ///   output grows by doubling and never past the cap plus one byte).
    static func decompress(_ input: ArraySlice<UInt8>, maximumOutputSize: Int) throws(SluiceError) -> [UInt8] {
        guard input.count <= Int(UInt32.max) else { throw SluiceError(.programLimitExceeded, "Avro block of \(input.count) bytes is too large") }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deinitialize(count: 1); stream.deallocate() }
        let status = inflateInit2_(stream, rawWindowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "inflateInit2 failed with \(status): out of memory")
        defer { inflateEnd(stream) }

        enum Outcome { case finished, tooLarge, truncated, corrupt(Int32) }
        // One byte past the cap is room to find out that the stream goes on past it.
        let ceiling = maximumOutputSize == Int.max ? Int.max : maximumOutputSize + 1
        var output = [UInt8](repeating: 0, count: min(max(4096, input.count.multipliedReportingOverflow(by: 4).partialValue), ceiling))
        var produced = 0
        let outcome: Outcome = input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = UInt32(source.count)
            while true {
                if produced == output.count {
                    guard output.count < ceiling else { return .tooLarge }
                    output.append(contentsOf: repeatElement(0, count: min(output.count, ceiling - output.count)))
                }
                let status = output.withUnsafeMutableBufferPointer { destination -> Int32 in
                    stream.pointee.next_out = destination.baseAddress.map { $0 + produced }
                    stream.pointee.avail_out = UInt32(clamping: destination.count - produced)
                    let before = Int(stream.pointee.avail_out)
                    let status = inflate(stream, Z_NO_FLUSH)
                    produced += before - Int(stream.pointee.avail_out)
                    return status
                }
                switch status {
                case Z_STREAM_END: return produced > maximumOutputSize ? .tooLarge : .finished
                case Z_OK: continue
                case Z_BUF_ERROR:
                    // No progress: with room left, the input ended before the stream did.
                    if produced == output.count { continue }
                    return .truncated
                default: return .corrupt(status)
                }
            }
        }
        switch outcome {
        case .finished:
            output.removeLast(output.count - produced)
            return output
        case .tooLarge:
            throw SluiceError(.programLimitExceeded, "Avro deflate block inflates to more than \(maximumOutputSize) bytes")
        case .truncated:
            throw SluiceError(.dataCorrupted, "invalid Avro data: a deflate block ends before its stream does")
        case .corrupt(let status):
            throw SluiceError(.dataCorrupted, "invalid Avro data: a deflate block does not inflate (zlib error \(status))")
        }
    }
}

/// The CRC-32 (ISO-HDLC, zlib's `crc32`) of `bytes`: the checksum after each block of Avro's
/// `snappy` codec.
func avroCRC32(_ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBufferPointer { buffer in
        UInt32(truncatingIfNeeded: crc32(0, buffer.baseAddress, UInt32(buffer.count)))
    }
}
