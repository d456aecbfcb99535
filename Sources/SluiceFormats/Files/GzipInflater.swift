import CZlib
import SluiceCore

/// Inflates a gzip file (RFC 1952, members one after another) as its bytes arrive, handing the
/// output over in pieces of at most `pieceBytes`, so a large file is never whole in memory.
package final class GzipInflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let pieceBytes: Int
    private var isEnded = false

    package init(pieceBytes: Int = 1 << 20) {
        self.pieceBytes = pieceBytes
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = inflateInit2_(stream, MAX_WBITS + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "inflateInit2 failed with \(status): out of memory")
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Whether `bytes` start with gzip's magic number.
    package static func isGzip(_ bytes: some Collection<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        return iterator.next() == 0x1F && iterator.next() == 0x8B
    }

    /// Inflates `input` (the next bytes of the file), calling `body` with each piece of output.
    /// With `isLast`, a stream that stops mid-member is an error (a truncated file).
    package func feed(_ input: UnsafeRawBufferPointer, isLast: Bool, _ body: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) {
        var output = [UInt8](repeating: 0, count: pieceBytes)
        stream.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        stream.pointee.avail_in = UInt32(clamping: input.count)
        while true {
            let (status, produced) = output.withUnsafeMutableBytes { room -> (Int32, Int) in
                stream.pointee.next_out = room.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = UInt32(room.count)
                let status = inflate(stream, Z_NO_FLUSH)
                return (status, room.count - Int(stream.pointee.avail_out))
            }
            if produced > 0 {
                try output.withRawBytes { (room) throws(SluiceError) in try body(UnsafeRawBufferPointer(rebasing: room[..<produced])) }
            }
            switch status {
            case Z_STREAM_END:
                isEnded = true
                // Another member may follow.
                if stream.pointee.avail_in == 0 { return }
                inflateReset(stream)
                isEnded = false
            case Z_OK:
                if stream.pointee.avail_in == 0 && produced < pieceBytes {
                    if isLast { throw SluiceError(.dataCorrupted, "the gzip data ends before its end") }
                    return
                }
            case Z_BUF_ERROR:
                if stream.pointee.avail_in == 0 {
                    if isLast && !isEnded { throw SluiceError(.dataCorrupted, "the gzip data ends before its end") }
                    return
                }
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw SluiceError(.dataCorrupted, "the gzip data is damaged: \(reason)")
            }
        }
    }
}
