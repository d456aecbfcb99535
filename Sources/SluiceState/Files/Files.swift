#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SluiceCodecs
import SluiceCore

/// The file operations durable state needs, over POSIX calls: whole reads, complete writes,
/// fsync of files and of the directories that name them, and atomic replacement. Errors are
/// ``SluiceError``s naming the path, with a full disk as `53100`.
package enum Files {
    package static func createDirectory(_ path: String) throws(SluiceError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/\(component)"
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { throw error(errno, "could not create directory", prefix) }
        }
    }

    package static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The names in `directory` (not `.` and `..`); empty when it does not exist.
    package static func list(_ directory: String) throws(SluiceError) -> [String] {
        guard let handle = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw error(errno, "could not list", directory)
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The numbers `n` of the files named `<prefix><n>` in `directory`, ascending (checkpoint
    /// manifests).
    package static func numbers(in directory: String, prefix: String) -> [UInt64] {
        ((try? list(directory)) ?? []).compactMap { name in
            name.hasPrefix(prefix) ? UInt64(name.dropFirst(prefix.count)) : nil
        }.sorted()
    }

    /// The whole file.
    package static func read(_ path: String) throws(SluiceError) -> [UInt8] {
        let (descriptor, size) = try openForReading(path)
        defer { close(descriptor) }
        // Read straight into an array of the file's size; a file that grew meanwhile reads on.
        var failure: Int32 = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            while initialized < size {
                let count = Glibc.read(descriptor, buffer.baseAddress! + initialized, size - initialized)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if count == 0 { return }
                initialized += count
            }
        }
        if failure != 0 { throw error(failure, "could not read", path) }
        var more = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = more.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw error(errno, "could not read", path)
            }
            if count == 0 { break }
            bytes += more[0 ..< count]
        }
        return bytes
    }

    /// Writes all of `bytes` to `descriptor` (a file at `path`, for errors).
    ///
    /// With `syncingBehind` (a file that is made durable when done), each time the file passes
    /// another ``writeBehindBytes``, what it holds is synced
    /// (`fdatasync`): a large file (a checkpoint's run file, a file sink's) never piles up
    /// gigabytes of dirty pages that a small fsync elsewhere (the write-ahead log's, under ext4's
    /// ordered journal) would have to wait for, as RocksDB's `bytes_per_sync` does.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String, syncingBehind: Bool = false) throws(SluiceError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw error(errno, "could not write", path)
            }
            written += count
        }
        if syncingBehind { writeBehind(descriptor, wrote: bytes.count) }
    }

    /// How much a file is written before its pages are handed to the disk.
    static let writeBehindBytes: off_t = 8 << 20

    private static func writeBehind(_ descriptor: Int32, wrote count: Int) {
        let end = lseek(descriptor, 0, SEEK_CUR)
        guard end > 0 else { return }
        let window = writeBehindBytes
        guard end / window > (end - off_t(count)) / window else { return }
        // (A failure here is found again by the fsync that makes the file durable.)
        _ = fdatasync(descriptor)
    }

    /// Replaces `path` with `bytes` so that a crash leaves the old file or the new one, never a
    /// mix: written to a temporary file, fsynced, renamed over `path`, and the directory fsynced.
    /// With `permissions` (0600 for a file holding credentials) the file has exactly those from
    /// its first byte; without, 0644 as the umask narrows it.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, permissions: mode_t? = nil) throws(SluiceError) {
        try replace(path, permissions: permissions) { (descriptor: Int32, temporary: String) throws(SluiceError) in
            try writeAll(bytes, to: descriptor, path: temporary, syncingBehind: true)
        }
    }

    /// Like ``writeAtomically(_:to:)``, with the CRC-32C of `bytes` appended (4 bytes,
    /// little-endian), for ``readChecksummed(_:)``.
    package static func writeChecksummed(_ bytes: [UInt8], to path: String) throws(SluiceError) {
        try writeChecksummed(to: path) { (write: (borrowing [UInt8]) throws(SluiceError) -> Void) throws(SluiceError) in try write(bytes) }
    }

    /// Writes a checksummed file atomically from pieces: `produce` calls its argument with each
    /// piece in order; the pieces are written as they come (no whole-file buffer), followed by
    /// the CRC-32C of all of them, as ``writeAtomically(_:to:)`` writes. Returns the bytes written.
    @discardableResult
    package static func writeChecksummed(
        to path: String, _ produce: (_ write: (borrowing [UInt8]) throws(SluiceError) -> Void) throws(SluiceError) -> Void
    ) throws(SluiceError) -> Int {
        var written = 0
        try replace(path) { (descriptor: Int32, temporary: String) throws(SluiceError) in
            var crc = CRC32C()
            try produce { (piece: borrowing [UInt8]) throws(SluiceError) in
                crc.update(piece)
                try writeAll(piece, to: descriptor, path: temporary, syncingBehind: true)
                written += piece.count
            }
            var trailer: [UInt8] = []
            withUnsafeBytes(of: crc.checksum.littleEndian) { trailer.append(contentsOf: $0) }
            try writeAll(trailer, to: descriptor, path: temporary)
            written += 4
        }
        return written
    }

    /// A file written by ``writeChecksummed(_:to:)``, without its checksum; a file that is short
    /// or fails its checksum is an error (`XX001`) naming the path.
    package static func readChecksummed(_ path: String) throws(SluiceError) -> [UInt8] {
        try withMappedChecksummedFile(path) { (contents: UnsafeRawBufferPointer) throws(SluiceError) in Array(contents) }
    }

    /// Maps a file written by ``writeChecksummed(_:to:)`` into memory, checks its checksum, and
    /// runs `body` over its contents without the checksum; the mapping ends when `body` returns.
    /// Reading this way skips copying the file into a fresh array.
    package static func withMappedChecksummedFile<T>(
        _ path: String, _ body: (UnsafeRawBufferPointer) throws(SluiceError) -> T
    ) throws(SluiceError) -> T {
        let (descriptor, _) = try openForReading(path)
        defer { close(descriptor) }
        return try withMappedChecksummedFile(descriptor: descriptor, path: path, body)
    }

    /// ``withMappedChecksummedFile(_:_:)`` over a file the caller opened (and closes).
    package static func withMappedChecksummedFile<T>(
        descriptor: Int32, path: String, _ body: (UnsafeRawBufferPointer) throws(SluiceError) -> T
    ) throws(SluiceError) -> T {
        try withMappedFile(descriptor: descriptor, path: path) { (mapped: UnsafeRawBufferPointer) throws(SluiceError) -> T in
            guard mapped.count >= 4 else { throw SluiceError(.dataCorrupted, "file \(path) is truncated") }
            let contents = UnsafeRawBufferPointer(rebasing: mapped[0 ..< mapped.count - 4])
            let stored = UInt32(littleEndian: mapped.loadUnaligned(fromByteOffset: mapped.count - 4, as: UInt32.self))
            // Checked a window at a time, each let go of once read: a file larger than memory
            // is never resident whole (its pages stay in the page cache for the body's reads).
            var crc = CRC32C()
            var start = 0
            while start < contents.count {
                let end = min(start + Self.mappedWindow, contents.count)
                crc.update(UnsafeRawBufferPointer(rebasing: contents[start ..< end]))
                dropMappedPages(mapped, start ..< end)
                start = end
            }
            guard crc.checksum == stored else { throw SluiceError(.dataCorrupted, "file \(path) fails its checksum") }
            return try body(contents)
        }
    }

    /// How much of a mapped file is read before the pages read are let go of (``dropMappedPages(_:_:)``).
    package static let mappedWindow = 8 << 20

    /// Lets the kernel take back the whole pages of `range` in `mapped`, a read-only mapping of
    /// a file (``withMappedFile(descriptor:path:_:)``'s): they leave the process's resident set,
    /// and a later read faults them back in from the file (the page cache, mostly). Reading a
    /// file larger than memory through a mapping so holds only what was read since the last
    /// call. Never for memory that is not such a mapping: anonymous memory would read as zeros.
    package static func dropMappedPages(_ mapped: UnsafeRawBufferPointer, _ range: Range<Int>) {
        guard let base = mapped.baseAddress, !range.isEmpty else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let address = Int(bitPattern: base)
        let first = (address + range.lowerBound + page - 1) / page * page
        let last = (address + range.upperBound) / page * page
        guard last > first, let pointer = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(pointer, last - first, MADV_DONTNEED)
    }

    /// Maps the whole of an open file (read-only, read sequentially) and runs `body` over it;
    /// the mapping ends when `body` returns.
    package static func withMappedFile<T>(
        descriptor: Int32, path: String, _ body: (UnsafeRawBufferPointer) throws(SluiceError) -> T
    ) throws(SluiceError) -> T {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw error(errno, "could not stat", path) }
        let size = Int(status.st_size)
        guard size > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        guard let mapping = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapping != MAP_FAILED else {
            throw error(errno, "could not map", path)
        }
        defer { munmap(mapping, size) }
        _ = madvise(mapping, size, MADV_SEQUENTIAL)
        return try body(UnsafeRawBufferPointer(start: mapping, count: size))
    }

    /// `path` opened for reading, and its size; the caller closes the descriptor.
    private static func openForReading(_ path: String) throws(SluiceError) -> (descriptor: Int32, size: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(errno, "could not open", path) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw error(code, "could not stat", path)
        }
        return (descriptor, Int(status.st_size))
    }

    /// Runs `write` on a new temporary file beside `path`, fsyncs it, renames it over `path` and
    /// fsyncs the directory; on any failure the temporary file is removed and `path` untouched.
    private static func replace(
        _ path: String, permissions: mode_t? = nil, _ write: (_ descriptor: Int32, _ temporary: String) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, permissions ?? 0o644)
        guard descriptor >= 0 else { throw error(errno, "could not create", temporary) }
        do throws(SluiceError) {
            // (A temporary file a crash left keeps its old mode through open: set it again.)
            if let permissions, fchmod(descriptor, permissions) != 0 { throw error(errno, "could not set the permissions of", temporary) }
            try write(descriptor, temporary)
            guard fsync(descriptor) == 0 else { throw error(errno, "could not fsync", temporary) }
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw error(code, "could not rename \(temporary) to", path)
        }
        try syncDirectory(directory(of: path))
    }

    /// Fsyncs a directory, so the names created or renamed in it are durable.
    package static func syncDirectory(_ path: String) throws(SluiceError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw error(errno, "could not open directory", path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw error(errno, "could not fsync directory", path) }
    }

    package static func remove(_ path: String) {
        unlink(path)
    }

    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The error for a failed call: `53100` for a full disk, `58030` otherwise.
    package static func error(_ code: Int32, _ action: String, _ path: String) -> SluiceError {
        let reason = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT {
            return SluiceError(.diskFull, "\(action) \"\(path)\": \(reason)")
        }
        return SluiceError(.ioError, "\(action) \"\(path)\": \(reason)")
    }
}

/// Named points where a test build's process can be made to die, to test recovery from a crash
/// at exactly that step. `SLUICE_FAILPOINT=name` kills the process with SIGKILL the first time
/// it reaches `name`; `name@n` the n-th time. Unset, a failpoint costs one comparison.
package enum Failpoints {
    private static let armed: (name: String, hit: Int)? = {
        guard let raw = getenv("SLUICE_FAILPOINT") else { return nil }
        let text = String(cString: raw)
        let parts = text.split(separator: "@", maxSplits: 1)
        guard let name = parts.first else { return nil }
        return (String(name), parts.count > 1 ? Int(parts[1]) ?? 1 : 1)
    }()
    private static let hits = Mutex<Int>(0)

    /// Dies here if this failpoint is armed and its count is reached. Throws nothing: the
    /// signature lets a failpoint stand inside throwing code without a `try` of its own meaning.
    package static func hit(_ name: String) throws(SluiceError) {
        guard let armed, armed.name == name else { return }
        let count = hits.withLock { count -> Int in
            count += 1
            return count
        }
        if count >= armed.hit {
            raise(SIGKILL)
        }
    }
}
