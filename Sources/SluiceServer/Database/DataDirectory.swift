import Foundation
import SluiceCore

/// The server's data directory. It holds the catalog (with connectors' credentials and users'
/// password verifiers), the tables' and views' state, the broker's logs and the built-in
/// catalog's warehouse and signing key: only the server's user may enter it (0700), as
/// PostgreSQL requires of its own data directory.
enum DataDirectory {
    /// Creates `path` (and its parents) if missing, and leaves it mode 0700; a directory that
    /// exists with wider permissions (made by hand, or by an earlier version) is narrowed.
    static func prepare(_ path: String) throws(SluiceError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SluiceError(.ioError, "could not create the data directory \(path): \(error)")
        }
        guard chmod(path, 0o700) == 0 else {
            throw SluiceError(.ioError, "could not make the data directory \(path) private (mode 0700): \(String(cString: strerror(errno)))")
        }
    }
}
