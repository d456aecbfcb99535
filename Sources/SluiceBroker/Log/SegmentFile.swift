#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// A file read and written at explicit positions (POSIX `pread`/`pwrite`), owned by one segment.
final class SegmentFile {
    /// Where the file is; changes when the log cleaner renames it into place.
    private(set) var path: String
    private let descriptor: Int32
    /// Bytes in the file.
    private(set) var size: Int64

    /// Opens the file at `path`, creating it if `create` is set; `truncate` empties it first (the
    /// cleaner's output, which a failed earlier attempt may have left).
    init(path: String, create: Bool, truncate: Bool = false) throws(LogError) {
        self.path = path
        let flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0) | (truncate ? O_TRUNC : 0)
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else { throw LogError.io("open \(path)", errno: errno) }
        self.descriptor = descriptor
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            throw LogError.io("stat \(path)", errno: errno)
        }
        self.size = Int64(status.st_size)
    }

    deinit {
        close(descriptor)
    }

    /// Appends the readable bytes of `buffer`; returns the position they start at.
    @discardableResult
    func append(_ buffer: ByteBuffer) throws(LogError) -> Int64 {
        let position = size
        try buffer.withUnsafeReadableBytes { bytes in Result { () throws(LogError) in try write(bytes, at: position) } }.get()
        size += Int64(buffer.readableBytes)
        return position
    }

    /// Appends a record batch, `buffer`'s readable bytes, with its base offset (its first eight
    /// bytes) written as `baseOffset`: the batch gets its offset in the file, never copied to
    /// change it (the request's buffer still holds it).
    func append(batch buffer: ByteBuffer, baseOffset: Int64) throws(LogError) -> Int64 {
        let position = size
        var offset = baseOffset.bigEndian
        try withUnsafeBytes(of: &offset) { bytes in Result { () throws(LogError) in try write(bytes, at: position) } }.get()
        try buffer.withUnsafeReadableBytes { bytes in
            Result { () throws(LogError) in try write(UnsafeRawBufferPointer(rebasing: bytes[8...]), at: position + 8) }
        }.get()
        size += Int64(buffer.readableBytes)
        return position
    }

    private func write(_ bytes: UnsafeRawBufferPointer, at position: Int64) throws(LogError) {
        var written = 0
        let count = bytes.count
        while written < count {
            let result = pwrite(descriptor, bytes.baseAddress! + written, count - written, off_t(position) + off_t(written))
            if result < 0 {
                if errno == EINTR { continue }
                throw LogError.io("write \(path)", errno: errno)
            }
            written += result
        }
    }

    /// Up to `count` bytes from `position` (fewer at the end of the file).
    func read(at position: Int64, count: Int) throws(LogError) -> ByteBuffer {
        let available = max(0, min(Int64(count), size - position))
        var buffer = ByteBufferAllocator().buffer(capacity: Int(available))
        var done = 0
        while done < Int(available) {
            let result = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Int(available) - done) { bytes in
                let got = pread(descriptor, bytes.baseAddress!, Int(available) - done, off_t(position) + off_t(done))
                return max(got, 0)
            }
            if result == 0 { break }
            done += result
        }
        return buffer
    }

    /// Cuts the file to `newSize` bytes (a torn tail after a crash).
    func truncate(to newSize: Int64) throws(LogError) {
        guard ftruncate(descriptor, off_t(newSize)) == 0 else { throw LogError.io("truncate \(path)", errno: errno) }
        size = newSize
    }

    func sync() throws(LogError) {
        guard fsync(descriptor) == 0 else { throw LogError.io("fsync \(path)", errno: errno) }
    }

    /// Moves the file to `newPath` with rename(2), replacing what is there in one step: a reader
    /// that opens `newPath` sees the old file or this one, never a mix. The descriptor stays
    /// open, so reads go on.
    func move(to newPath: String) throws(LogError) {
        guard rename(path, newPath) == 0 else { throw LogError.io("rename \(path) to \(newPath)", errno: errno) }
        path = newPath
    }

    /// Forces the directory's entries (names created, renamed or removed) to disk, so a rename
    /// survives a crash of the machine.
    static func syncDirectory(_ directory: String) throws(LogError) {
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard descriptor >= 0 else { throw LogError.io("open \(directory)", errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw LogError.io("fsync \(directory)", errno: errno) }
    }
}
