#if canImport(Glibc)
import Glibc
#endif
import SluiceCore

/// One table's rows in a table checkpoint as an earlier version wrote them (tables are now in
/// the state checkpoints): a file of ``ChunkCodec`` chunks after ``header``, written by
/// ``Files/writeChecksummed(to:_:)``.
///
/// Recovery of such a data directory opens the file with ``open(_:types:)``, which checks its
/// checksum and every chunk's layout, and leaves the rows on disk: a ``TableStore`` decodes them
/// at its first use (``chunks()``). The file stays open, so a checkpoint that removes its name
/// (the first state checkpoints write every table whole) can still read it.
package final class TableFile: Sendable {
    package static let header = Array("SLUICE-TABLE-1\n".utf8)

    package let path: String
    package let types: [DataType]
    /// The rows in the file.
    package let rowCount: Int
    /// The file's size, checksum included.
    package let size: Int
    private let descriptor: Int32

    private init(path: String, types: [DataType], rowCount: Int, size: Int, descriptor: Int32) {
        self.path = path
        self.types = types
        self.rowCount = rowCount
        self.size = size
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Opens the table file at `path`, holding rows of `types`, and checks it whole: its
    /// checksum and the layout of every chunk. A file that fails is an `XX001` error naming it.
    package static func open(_ path: String, types: [DataType]) throws(SluiceError) -> TableFile {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Files.error(errno, "could not open", path) }
        do throws(SluiceError) {
            var rowCount = 0
            let size = try Files.withMappedChecksummedFile(descriptor: descriptor, path: path) {
                (bytes: UnsafeRawBufferPointer) throws(SluiceError) -> Int in
                guard bytes.starts(with: header) else { throw SluiceError(.dataCorrupted, "table file \(path) has an unknown format") }
                var offset = header.count
                do throws(SluiceError) {
                    while offset < bytes.count { rowCount += try ChunkCodec.check(bytes, offset: &offset, types: types) }
                } catch {
                    throw SluiceError(.dataCorrupted, "table file \(path) is damaged: \(error.message)")
                }
                return bytes.count + 4
            }
            return TableFile(path: path, types: types, rowCount: rowCount, size: size, descriptor: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// Decodes every chunk of the file. The file was checked when it was opened, so this fails
    /// only if it was changed on disk since (checkpoint files never are).
    package func chunks() throws(SluiceError) -> [Chunk] {
        try Files.withMappedFile(descriptor: descriptor, path: path) { (bytes: UnsafeRawBufferPointer) throws(SluiceError) -> [Chunk] in
            let contents = UnsafeRawBufferPointer(rebasing: bytes[0 ..< max(0, bytes.count - 4)])
            var offset = Self.header.count
            var chunks: [Chunk] = []
            while offset < contents.count { chunks.append(try ChunkCodec.decode(contents, offset: &offset, types: types)) }
            return chunks
        }
    }
}
