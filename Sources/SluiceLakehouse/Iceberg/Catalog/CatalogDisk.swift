#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceCore

/// The few POSIX file operations the catalog's own state needs: whole reads and crash-safe
/// whole replacements (write a temp file, fsync it, rename it over the target, fsync the
/// directory). A crash leaves either the old file or the new one, plus at worst a stray temp
/// file that readers never look at.
enum CatalogDisk {
    static func createDirectory(_ path: String) throws(SluiceError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/\(component)"
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST { throw failure(errno, "could not create directory", prefix) }
        }
    }

    /// The file's bytes, or nil when it does not exist.
    static func read(_ path: String) throws(SluiceError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw failure(errno, "could not open", path)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure(errno, "could not read", path)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0 ..< count])
        }
    }

    /// Replaces `path` with `bytes` atomically and durably.
    static func replace(_ path: String, with bytes: [UInt8]) throws(SluiceError) {
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(errno, "could not create", temporary) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(descriptor)
                unlink(temporary)
                throw failure(code, "could not write", temporary)
            }
            written += count
        }
        if fsync(descriptor) != 0 {
            let code = errno
            close(descriptor)
            unlink(temporary)
            throw failure(code, "could not fsync", temporary)
        }
        close(descriptor)
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw failure(code, "could not rename", temporary)
        }
        try syncDirectory(of: path)
    }

    static func syncDirectory(of path: String) throws(SluiceError) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(errno, "could not open directory", directory) }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 { throw failure(errno, "could not fsync directory", directory) }
    }

    /// Removes temp files a crash left next to `path` (`<path>.tmp-…`).
    static func removeStrayTemporaries(of path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let name = parts.last else { return }
        let directory = parts.dropLast().joined(separator: "/")
        guard let handle = opendir(directory.isEmpty ? "." : directory) else { return }
        defer { closedir(handle) }
        var strays: [String] = []
        while let entry = readdir(handle) {
            let entryName = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if entryName.hasPrefix("\(name).tmp-") { strays.append(entryName) }
        }
        for stray in strays { unlink("\(directory)/\(stray)") }
    }

    static func failure(_ code: Int32, _ what: String, _ path: String) -> SluiceError {
        let reason = String(cString: strerror(code))
        return SluiceError(code == ENOSPC ? .diskFull : .ioError, "\(what) \"\(path)\": \(reason)")
    }
}
