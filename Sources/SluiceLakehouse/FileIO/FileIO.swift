import SluiceCore

/// Where a table's files live: a local directory or an object store, addressed by location
/// strings as Iceberg writes them in metadata (`file:///abs/path`, `/abs/path`, `s3://bucket/key`).
///
/// Synchronous on purpose: sinks prepare and commit on their own threads, and the catalog calls
/// it from a thread it may block. Never call it on a SwiftNIO event loop. Every failure is a
/// ``SluiceError`` (SQLSTATE 58030, `ioError`, unless a better one fits) whose message names the
/// location and the cause: the object is missing, access was denied, the store is unreachable.
/// `size` returns nil for a missing object instead of throwing.
package protocol FileIO: Sendable {
    /// Writes the whole object; readers see either nothing or all of it (local: temp file,
    /// fsync, rename; S3: one PUT, or a multipart upload above the part size).
    func write(_ location: String, _ bytes: [UInt8]) throws(SluiceError)
    /// The whole object.
    func read(_ location: String) throws(SluiceError) -> [UInt8]
    /// `range` of the object's bytes (a Parquet footer, a column chunk).
    func read(_ location: String, range: Range<Int>) throws(SluiceError) -> [UInt8]
    /// The object's size in bytes, or nil when it does not exist.
    func size(_ location: String) throws(SluiceError) -> Int?
    /// Deletes the object; deleting one that does not exist is not an error.
    func delete(_ location: String) throws(SluiceError)
    /// The objects whose location starts with `prefix`, with their sizes, in location order.
    func list(prefix: String) throws(SluiceError) -> [FileEntry]
    /// An output written piece by piece (a large Parquet file): S3 uses a multipart upload once
    /// the buffered bytes pass the part size. Nothing is visible before `close()` returns.
    func output(_ location: String) throws(SluiceError) -> any FileOutput
}

package struct FileEntry: Sendable, Hashable {
    package var location: String
    package var size: Int

    package init(location: String, size: Int) {
        self.location = location
        self.size = size
    }
}

/// A file being written; see ``FileIO/output(_:)``.
package protocol FileOutput: AnyObject {
    func write(_ bytes: [UInt8]) throws(SluiceError)
    /// Makes the whole file visible; returns its size.
    func close() throws(SluiceError) -> Int
    /// Drops what was written (aborts a multipart upload).
    func abort()
}
