import SluiceCore
import SluiceFormats

/// A Parquet file in a ``FileIO`` store, read by range: the reader fetches the footer and
/// then only the column chunks it decodes, so an object store serves ranged GETs instead of
/// whole files.
///
/// The size comes from the manifest (`file_size_in_bytes`), as Iceberg readers trust it,
/// which saves a request per file; a wrong size shows as a corrupt-file error.
package struct FileIOParquetInput: ParquetInput {
    package let fileIO: any FileIO
    package let location: String
    package let size: Int
    /// The file's last bytes, fetched once: the reader's footer-length and footer reads are
    /// served from them instead of costing a request each.
    private let tail: [UInt8]

    /// How many trailing bytes ``init(fileIO:location:size:prefetchingTail:)`` fetches by
    /// default: enough for the footers of typical data files.
    package static let defaultTailBytes = 64 << 10

    /// A file of `size` bytes; with `prefetchingTail` > 0 its last bytes are read now.
    package init(fileIO: any FileIO, location: String, size: Int, prefetchingTail: Int = 0) throws(SluiceError) {
        self.fileIO = fileIO
        self.location = location
        self.size = size
        let count = min(max(prefetchingTail, 0), max(size, 0))
        guard count > 0 else {
            tail = []
            return
        }
        let bytes = try fileIO.read(location, range: size - count ..< size)
        guard bytes.count == count else {
            throw SluiceError(.dataCorrupted, "invalid parquet file \"\(location)\": it is shorter than the \(size) bytes its manifest records")
        }
        tail = bytes
    }

    /// The file at `location`, its size asked of the store.
    /// - Throws: `58P01` when it does not exist.
    package init(fileIO: any FileIO, location: String) throws(SluiceError) {
        guard let size = try fileIO.size(location) else {
            throw SluiceError(SQLState("58P01"), "could not open file \"\(location)\": no such file")
        }
        try self.init(fileIO: fileIO, location: location, size: size)
    }

    package func read(offset: Int, length: Int) throws(SluiceError) -> [UInt8] {
        guard offset >= 0, length >= 0, offset <= size, length <= size - offset else {
            throw SluiceError(.dataCorrupted, "invalid parquet file \"\(location)\": a read of \(length) bytes at \(offset) is outside its \(size) bytes")
        }
        if length == 0 { return [] }
        let tailStart = size - tail.count
        if offset >= tailStart {
            return Array(tail[(offset - tailStart) ..< (offset - tailStart + length)])
        }
        let bytes = try fileIO.read(location, range: offset ..< offset + length)
        guard bytes.count == length else {
            throw SluiceError(.dataCorrupted, "invalid parquet file \"\(location)\": it is shorter than the \(size) bytes its manifest records")
        }
        return bytes
    }
}
