#if canImport(Glibc)
import Glibc
#endif
import SluiceCore

/// The POSIX calls local file IO is built from: complete reads and writes that retry on `EINTR`,
/// fsync of files and directories, and directory creation. Errors name the path.
package enum POSIXFile {
    /// Marks the temporary files writes create beside their target; listings skip them.
    package static let temporaryMarker = ".sluice-tmp-"

    package static func openForReading(_ path: String) throws(SluiceError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileIOErrorCode.posix(errno, "could not open file", path) }
        return descriptor
    }

    package static func size(of descriptor: Int32, path: String) throws(SluiceError) -> Int {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileIOErrorCode.posix(errno, "could not stat file", path) }
        return Int(status.st_size)
    }

    /// Reads `count` bytes at `offset` with pread; a file that ends first is an error.
    package static func read(_ descriptor: Int32, path: String, offset: Int, count: Int) throws(SluiceError) -> [UInt8] {
        guard count > 0 else { return [] }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            while initialized < count {
                let read = pread(descriptor, base + initialized, count - initialized, off_t(offset + initialized))
                if read < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if read == 0 { return }
                initialized += read
            }
        }
        if failure != 0 { throw FileIOErrorCode.posix(failure, "could not read file", path) }
        guard bytes.count == count else {
            throw SluiceError(.ioError, "could not read bytes \(offset)..<\(offset + count) of file \"\(path)\": it ends at byte \(offset + bytes.count)")
        }
        return bytes
    }

    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(SluiceError) {
        let failure: Int32 = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var written = 0
            while written < buffer.count {
                let count = write(descriptor, base + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return 0
        }
        if failure != 0 { throw FileIOErrorCode.posix(failure, "could not write file", path) }
    }

    package static func sync(_ descriptor: Int32, path: String) throws(SluiceError) {
        guard fsync(descriptor) == 0 else { throw FileIOErrorCode.posix(errno, "could not fsync file", path) }
    }

    /// Fsyncs a directory, so the names renamed into it survive a crash.
    package static func syncDirectory(_ path: String) throws(SluiceError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileIOErrorCode.posix(errno, "could not open directory", path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FileIOErrorCode.posix(errno, "could not fsync directory", path) }
    }

    /// Creates `path` and its missing parents.
    package static func createDirectories(_ path: String) throws(SluiceError) {
        var status = stat()
        if stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR { return }
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/\(component)"
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw FileIOErrorCode.posix(errno, "could not create directory", prefix)
            }
        }
    }

    /// A new, exclusively created temporary file beside `path`, and its name.
    package static func createTemporary(besides path: String) throws(SluiceError) -> (descriptor: Int32, path: String) {
        let directory = LocalPath.directory(of: path)
        try createDirectories(directory)
        var generator = SystemRandomNumberGenerator()
        while true {
            let suffix = String(generator.next() as UInt64, radix: 16)
            let temporary = "\(directory == "/" ? "" : directory)/.\(LocalPath.name(of: path))\(temporaryMarker)\(suffix)"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return (descriptor, temporary) }
            if errno != EEXIST { throw FileIOErrorCode.posix(errno, "could not create file", temporary) }
        }
    }

    /// Fsyncs and closes a finished temporary file, renames it over `path` and fsyncs the
    /// directory. On failure the temporary file is removed and `path` is untouched.
    package static func publish(_ descriptor: Int32, temporary: String, as path: String) throws(SluiceError) {
        do throws(SluiceError) {
            try sync(descriptor, path: temporary)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw FileIOErrorCode.posix(code, "could not rename \"\(temporary)\" to", path)
        }
        try syncDirectory(LocalPath.directory(of: path))
    }

    /// The names in `directory` other than `.` and `..`; nil when it does not exist.
    package static func names(in directory: String) throws(SluiceError) -> [String]? {
        guard let handle = opendir(directory) else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw FileIOErrorCode.posix(errno, "could not list directory", directory)
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
