#if canImport(Glibc)
import Glibc
#endif
import SluiceCore

/// ``FileIO`` over the local file system: locations are absolute paths or `file:` URIs.
///
/// Writes are atomic and durable: the bytes go to a temporary file in the target's directory
/// (created with its parents), which is fsynced, renamed over the target, and the directory
/// fsynced, so a crash leaves the old file or the new one. Temporary files carry
/// ``POSIXFile/temporaryMarker`` in their names and listings skip them.
package struct LocalFileIO: FileIO {
    package init() {}

    package func write(_ location: String, _ bytes: [UInt8]) throws(SluiceError) {
        let path = try LocalPath(location).path
        let (descriptor, temporary) = try POSIXFile.createTemporary(besides: path)
        do throws(SluiceError) {
            try POSIXFile.writeAll(bytes, to: descriptor, path: temporary)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        try POSIXFile.publish(descriptor, temporary: temporary, as: path)
    }

    package func read(_ location: String) throws(SluiceError) -> [UInt8] {
        let path = try LocalPath(location).path
        let descriptor = try POSIXFile.openForReading(path)
        defer { close(descriptor) }
        let size = try POSIXFile.size(of: descriptor, path: path)
        return try POSIXFile.read(descriptor, path: path, offset: 0, count: size)
    }

    package func read(_ location: String, range: Range<Int>) throws(SluiceError) -> [UInt8] {
        let path = try LocalPath(location).path
        guard range.lowerBound >= 0 else {
            throw SluiceError(.invalidParameterValue, "cannot read bytes \(range.lowerBound)..<\(range.upperBound) of file \"\(path)\"")
        }
        let descriptor = try POSIXFile.openForReading(path)
        defer { close(descriptor) }
        return try POSIXFile.read(descriptor, path: path, offset: range.lowerBound, count: range.count)
    }

    package func size(_ location: String) throws(SluiceError) -> Int? {
        let path = try LocalPath(location).path
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw FileIOErrorCode.posix(errno, "could not stat file", path)
        }
        return (status.st_mode & S_IFMT) == S_IFREG ? Int(status.st_size) : nil
    }

    package func delete(_ location: String) throws(SluiceError) {
        let path = try LocalPath(location).path
        guard unlink(path) == 0 || errno == ENOENT || errno == ENOTDIR else {
            throw FileIOErrorCode.posix(errno, "could not remove file", path)
        }
    }

    /// Walks the directory that holds `prefix`'s last component, descending only into
    /// directories whose paths can still match, and keeps the regular files (symbolic links to
    /// them included) whose paths start with `prefix`. Links to directories are not followed, so
    /// a cycle cannot make the walk loop.
    package func list(prefix: String) throws(SluiceError) -> [FileEntry] {
        let local = try LocalPath(prefix)
        let prefixPath = local.path
        var entries: [FileEntry] = []
        var pending = [LocalPath.directory(of: prefixPath)]
        while let directory = pending.popLast() {
            guard let names = try POSIXFile.names(in: directory) else { continue }
            for name in names where !name.contains(POSIXFile.temporaryMarker) {
                let path = directory == "/" ? "/\(name)" : "\(directory)/\(name)"
                var status = stat()
                guard lstat(path, &status) == 0 else { continue }  // removed meanwhile
                var kind = status.st_mode & S_IFMT
                if kind == S_IFLNK {
                    guard stat(path, &status) == 0 else { continue }  // a dangling link
                    kind = status.st_mode & S_IFMT
                    if kind == S_IFDIR { continue }
                } else if kind == S_IFDIR {
                    let asDirectory = path + "/"
                    if asDirectory.hasPrefix(prefixPath) || prefixPath.hasPrefix(asDirectory) { pending.append(path) }
                    continue
                }
                if kind == S_IFREG && path.hasPrefix(prefixPath) {
                    entries.append(FileEntry(location: local.location(of: path), size: Int(status.st_size)))
                }
            }
        }
        // Byte order, as S3 lists keys.
        entries.sort { $0.location.utf8.lexicographicallyPrecedes($1.location.utf8) }
        return entries
    }

    package func output(_ location: String) throws(SluiceError) -> any FileOutput {
        try LocalFileOutput(path: LocalPath(location).path)
    }
}
