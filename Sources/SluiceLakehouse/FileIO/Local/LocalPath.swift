import SluiceCore

/// A local location split into the path the operating system opens and the scheme text it was
/// written with (`file://`, `file:`, or nothing), so listings answer in the caller's spelling.
package struct LocalPath: Sendable, Hashable {
    /// The scheme text before ``path``: `""`, `"file:"`, `"file://"` or `"file://localhost"`.
    var schemePrefix: String
    /// The absolute path.
    var path: String

    /// Accepts `/abs/path`, `file:///abs/path`, `file://localhost/abs/path` and the Hadoop
    /// spelling `file:/abs/path`; anything else is a `22023` error naming the location. The path
    /// is taken literally: Iceberg writers put paths in `file:` URIs without percent-encoding.
    init(_ location: String) throws(SluiceError) {
        let prefixes = ["file://localhost/", "file:///", "file:/", "/"]
        for prefix in prefixes where location.hasPrefix(prefix) {
            // `file://host/...` names another machine's file.
            if prefix == "file:/" && location.hasPrefix("file://") { break }
            schemePrefix = String(prefix.dropLast())
            path = String(location.dropFirst(prefix.count - 1))
            guard !path.utf8.contains(0) else { break }
            return
        }
        throw SluiceError(.invalidParameterValue, "\"\(location)\" is not an absolute local path or file URI")
    }

    /// The location of `path` in this location's spelling.
    func location(of path: String) -> String { schemePrefix + path }

    /// The directory that holds `path` (`/` for a file in the root).
    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`.
    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
