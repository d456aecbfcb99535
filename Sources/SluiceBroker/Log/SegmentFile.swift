#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import SluiceCore

/// A file read and written at explicit positions (POSIX `pread`/`pwrite`), owned by one segment.
///
/// Large appends (a produced batch of ``directMinimum`` bytes or more) go to the disk with direct
/// I/O, from an aligned copy, in whole blocks: the copy into fresh page-cache pages was most of
/// the broker's time under a producer at full speed (0.3 GB/s on a new virtual machine's memory,
/// against 1.8 GB/s for the disk). Their last partial block is written padded with zeros and
/// again, whole, by the next direct append, so the file's bytes past ``size`` are zeros until
/// ``seal()`` cuts them (or recovery does, after a crash: a zero header ends the batches). Every
/// append is in the kernel's hands before it returns, as through the page cache: a produce that
/// was acknowledged survives the process. Small appends keep the page cache. Reads of
/// ``directMinimum`` bytes and more are direct too, into the answer's memory, below the first
/// append that went through the page cache. Where the file system refuses direct I/O, every
/// append and read goes through the page cache.
final class SegmentFile {
    /// Where the file is; changes when the log cleaner renames it into place.
    private(set) var path: String
    private let descriptor: Int32
    /// Bytes in the file (the padding of a direct append not counted).
    private(set) var size: Int64

    /// Appends at least this long are written directly.
    static let directMinimum = 64 << 10
    /// The file opened for direct I/O, on the first large append or read; nil before.
    private var direct: Direct?
    private enum Direct {
        case open(Int32)
        case refused
    }
    /// The bytes of the block that holds ``size`` (from its start to ``size``) when a direct
    /// append wrote them last: the next one starts with them. Read back from the file otherwise.
    private var tail: UnsafeMutableRawPointer?
    private var tailKnown = false
    /// Whether a direct append left zeros past ``size``.
    private var padded = false
    /// Where the first append through the page cache started: reads wholly below it may go
    /// directly to the disk (above it they would first wait for the page cache's writeback).
    private var cachedFrom = Int64.max

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
        if case .open(let directDescriptor) = direct { close(directDescriptor) }
        close(descriptor)
        tail?.deallocate()
    }

    /// Appends the readable bytes of `buffer`; returns the position they start at.
    @discardableResult
    func append(_ buffer: ByteBuffer) throws(LogError) -> Int64 {
        let position = size
        try buffer.withUnsafeReadableBytes { bytes in Result { () throws(LogError) in try write(bytes, at: position) } }.get()
        cachedFrom = min(cachedFrom, position)
        size += Int64(buffer.readableBytes)
        tailKnown = false
        return position
    }

    /// Appends a record batch, `buffer`'s readable bytes, with its base offset (its first eight
    /// bytes) written as `baseOffset`: the batch gets its offset in the file, never copied to
    /// change it (the request's buffer still holds it).
    func append(batch buffer: ByteBuffer, baseOffset: Int64) throws(LogError) -> Int64 {
        let position = size
        let written = try buffer.withUnsafeReadableBytes { bytes in
            Result { () throws(LogError) in
                try appendDirect(count: bytes.count) { target in
                    target.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                    target.storeBytes(of: baseOffset.bigEndian, as: Int64.self)
                }
            }
        }.get()
        if written { return position }
        cachedFrom = min(cachedFrom, position)
        tailKnown = false
        var offset = baseOffset.bigEndian
        try withUnsafeBytes(of: &offset) { bytes in Result { () throws(LogError) in try write(bytes, at: position) } }.get()
        try buffer.withUnsafeReadableBytes { bytes in
            Result { () throws(LogError) in try write(UnsafeRawBufferPointer(rebasing: bytes[8...]), at: position + 8) }
        }.get()
        size += Int64(buffer.readableBytes)
        return position
    }

    /// Appends `count` bytes that `fill` writes (to unaligned memory) with one direct write of
    /// whole blocks; false, with nothing written, where the append is small or direct I/O is
    /// refused.
    private func appendDirect(count: Int, fill: (UnsafeMutableRawPointer) -> Void) throws(LogError) -> Bool {
        guard count >= Self.directMinimum, let directDescriptor = openDirect() else { return false }
        let block = DirectIO.block
        let start = size & ~Int64(block - 1)
        let lead = Int(size - start)
        let tail = tail ?? UnsafeMutableRawPointer.allocate(byteCount: block, alignment: block)
        self.tail = tail
        if lead > 0 && !tailKnown {
            let bytes = try read(at: start, count: lead)
            guard bytes.readableBytes == lead else { throw LogError.io("read \(path)", errno: EIO) }
            bytes.withUnsafeReadableBytes { tail.copyMemory(from: $0.baseAddress!, byteCount: lead) }
        }
        let length = DirectIO.roundUp(lead + count)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: block)
        defer { memory.deallocate() }
        memory.copyMemory(from: tail, byteCount: lead)
        fill(memory + lead)
        (memory + lead + count).initializeMemory(as: UInt8.self, repeating: 0, count: length - lead - count)
        do {
            try write(UnsafeRawBufferPointer(start: memory, count: length), at: start, to: directDescriptor)
        } catch .io(_, errno: EINVAL) {
            // Direct writes refused after all (the open was accepted): the page cache. (EINVAL
            // comes before anything is written.)
            close(directDescriptor)
            direct = .refused
            return false
        }
        let end = lead + count
        let kept = end & (block - 1)
        tail.copyMemory(from: memory + (end - kept), byteCount: kept)
        tailKnown = true
        padded = kept > 0
        size += Int64(count)
        return true
    }

    /// The descriptor for direct I/O, opened on first use; nil where it is refused.
    private func openDirect() -> Int32? {
        switch direct {
        case .open(let directDescriptor):
            return directDescriptor
        case .refused:
            return nil
        case nil:
            let opened = open(path, O_RDWR | O_CLOEXEC | DirectIO.flag)
            direct = opened >= 0 ? .open(opened) : .refused
            return opened >= 0 ? opened : nil
        }
    }

    /// Ends appends to a segment that takes no more: its padding cut, the tail block let go.
    func seal() throws(LogError) {
        tail?.deallocate()
        tail = nil
        tailKnown = false
        if padded {
            guard ftruncate(descriptor, off_t(size)) == 0 else { throw LogError.io("truncate \(path)", errno: errno) }
            padded = false
        }
    }

    /// Writes all of `bytes` at `position` of `target` (this file's descriptor by default).
    private func write(_ bytes: UnsafeRawBufferPointer, at position: Int64, to target: Int32? = nil) throws(LogError) {
        let target = target ?? descriptor
        var written = 0
        let count = bytes.count
        while written < count {
            let result = pwrite(target, bytes.baseAddress! + written, count - written, off_t(position) + off_t(written))
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
        if available >= Self.directMinimum, position + available <= cachedFrom, let buffer = readDirect(at: position, count: Int(available)) {
            return buffer
        }
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

    /// `count` bytes from `position` read directly into the answer's memory (a read through the
    /// page cache would first fill fresh pages of it); nil where direct reads are refused.
    private func readDirect(at position: Int64, count: Int) -> ByteBuffer? {
        guard let directDescriptor = openDirect() else { return nil }
        let block = DirectIO.block
        let start = position & ~Int64(block - 1)
        let lead = Int(position - start)
        let length = DirectIO.roundUp(lead + count)
        var buffer = ByteBufferAllocator().buffer(capacity: length + block)
        var skip = 0
        var refused = false
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length + block) { bytes in
            let base = bytes.baseAddress!
            skip = (block - Int(bitPattern: base) & (block - 1)) & (block - 1)
            var done = 0
            while done < lead + count {
                let got = pread(directDescriptor, base + skip + done, length - done, off_t(start) + off_t(done))
                if got < 0 && errno == EINTR { continue }
                if got <= 0 {
                    refused = true
                    break
                }
                done += got
            }
            return refused ? 0 : skip + lead + count
        }
        guard !refused else { return nil }
        buffer.moveReaderIndex(forwardBy: skip + lead)
        return buffer
    }

    /// Cuts the file to `newSize` bytes (a torn tail after a crash).
    func truncate(to newSize: Int64) throws(LogError) {
        guard ftruncate(descriptor, off_t(newSize)) == 0 else { throw LogError.io("truncate \(path)", errno: errno) }
        size = newSize
        tailKnown = false
        padded = false
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
