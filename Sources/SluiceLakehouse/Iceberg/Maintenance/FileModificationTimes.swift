#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceCore

/// A store that can tell when a file was last written, so orphan cleanup can spare young files
/// on the first look. ``FileIO`` listings carry no time; stores that cannot tell are handled
/// with ``IcebergOrphanSightings`` instead.
package protocol FileModificationTimes: Sendable {
    /// Milliseconds since the epoch of the file's last modification; nil when it does not exist.
    func lastModifiedMs(_ location: String) throws(SluiceError) -> Int64?
}

extension LocalFileIO: FileModificationTimes {
    package func lastModifiedMs(_ location: String) throws(SluiceError) -> Int64? {
        // The location forms LocalFileIO accepts: a path, file:///path, file://localhost/path, file:/path.
        var path = location
        for prefix in ["file://localhost/", "file:///", "file:/"] where path.hasPrefix(prefix) {
            // `file://host/…` names another machine's file.
            if prefix == "file:/" && path.hasPrefix("file://") { break }
            path = "/" + path.dropFirst(prefix.count)
            break
        }
        guard path.hasPrefix("/"), !path.hasPrefix("//") else {
            throw SluiceError(.invalidParameterValue, "\"\(location)\" is not an absolute local path or file URI")
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw SluiceError(.ioError, "could not stat file \"\(path)\": \(String(cString: strerror(errno)))")
        }
        return Int64(status.st_mtim.tv_sec) * 1000 + Int64(status.st_mtim.tv_nsec) / 1_000_000
    }
}
