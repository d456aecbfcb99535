import CZlib

/// gzip streams (RFC 1952) through zlib: what Kafka's codec 1 holds. The Java client wraps
/// its records in `GZIPOutputStream`, librdkafka calls `deflateInit2` with window bits 15 + 16
/// (rdkafka_msgset_writer.c); both read with gzip decoding, and Java's `GZIPInputStream` reads
/// concatenated members as one stream, so decompression does too.
enum Gzip {
    /// zlib's window bits for a gzip wrapper (not zlib's own) with the largest window: 15 + 16.
    static let gzipWindowBits: Int32 = MAX_WBITS + 16
    /// Kafka's default gzip level (Java's `Deflater.DEFAULT_COMPRESSION`, zlib's 6).
    static let level: Int32 = Z_DEFAULT_COMPRESSION

    /// One gzip member holding `input`. zlib writes modification time 0 and no file name, so the
    /// same input always gives the same bytes.
    static func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        let stream = ZStream()
        defer { stream.release(deflating: true) }
        let status = deflateInit2_(
            stream.pointer, level, Z_DEFLATED, gzipWindowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed with \(status): out of memory")
        stream.isInitialized = true
        let bound = Int(deflateBound(stream.pointer, UInt(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let written = output.withUnsafeMutableBytes { out -> Int in
            stream.pointer.pointee.next_in = mutableBytes(input)
            stream.pointer.pointee.avail_in = UInt32(input.count)
            stream.pointer.pointee.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointer.pointee.avail_out = UInt32(out.count)
            let status = deflate(stream.pointer, Z_FINISH)
            // With room for deflateBound's worst case, one Z_FINISH call always ends the stream.
            precondition(status == Z_STREAM_END, "deflate into its bound returned \(status)")
            return out.count - Int(stream.pointer.pointee.avail_out)
        }
        output.removeLast(output.count - written)
        return output
    }

    /// The concatenation of the gzip members in `input`, at most `maximumOutputSize` bytes.
    static func decompress(_ input: UnsafeRawBufferPointer, maximumOutputSize: Int) throws(CompressionError) -> [UInt8] {
        guard input.count <= Int(UInt32.max) else {
            throw .corruptInput(.gzip, reason: "\(input.count) bytes is more than a gzip batch can hold")
        }
        let stream = ZStream()
        defer { stream.release(deflating: false) }
        let status = inflateInit2_(stream.pointer, gzipWindowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "inflateInit2 failed with \(status): out of memory")
        stream.isInitialized = true
        stream.pointer.pointee.next_in = mutableBytes(input)
        stream.pointer.pointee.avail_in = UInt32(input.count)

        var output = DecompressionOutput(
            codec: .gzip, limit: maximumOutputSize, expectedSize: input.count.multipliedReportingOverflow(by: 4).partialValue)
        while true {
            let status = try output.write { room -> (Int32, Int) in
                stream.pointer.pointee.next_out = room.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointer.pointee.avail_out = UInt32(clamping: room.count)
                let before = stream.pointer.pointee.avail_out
                let status = inflate(stream.pointer, Z_NO_FLUSH)
                return (status, Int(before - stream.pointer.pointee.avail_out))
            }
            switch status {
            case Z_STREAM_END:
                // A member ended. More input is another member (RFC 1952 §2.2: a gzip file is a
                // series of members): start it afresh, keeping the output.
                if stream.pointer.pointee.avail_in == 0 { return output.finish() }
                inflateReset(stream.pointer)
            case Z_OK:
                continue
            case Z_BUF_ERROR:
                // No progress was possible: with room left, the input ran out mid-member.
                if output.isFull { continue }
                throw .truncatedInput(.gzip)
            default:
                throw .corruptInput(.gzip, reason: stream.message ?? "zlib error \(status)")
            }
        }
    }
}

/// A `z_stream` at a fixed address: zlib keeps a pointer back to it in its state and refuses a
/// stream that has moved, so it cannot be a Swift value.
private final class ZStream {
    let pointer: UnsafeMutablePointer<z_stream>
    var isInitialized = false

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: z_stream())
    }

    /// zlib's message for the last error, if it set one.
    var message: String? { pointer.pointee.msg.map { String(cString: $0) } }

    func release(deflating: Bool) {
        if isInitialized {
            _ = deflating ? deflateEnd(pointer) : inflateEnd(pointer)
        }
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

/// zlib's `next_in` is not const (this build of zlib.h leaves `z_const` empty); it never writes there.
private func mutableBytes(_ input: UnsafeRawBufferPointer) -> UnsafeMutablePointer<Bytef>? {
    guard let base = input.baseAddress else { return nil }
    return UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
}
