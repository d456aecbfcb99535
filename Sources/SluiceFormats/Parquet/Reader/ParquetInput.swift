import SluiceCore

/// Random access to the bytes of a Parquet file (a local file, an object store's ranged GETs,
/// or memory). The reader asks for the footer first, then for whole column chunks.
package protocol ParquetInput: Sendable {
    /// The file's size in bytes.
    var size: Int { get }
    /// Bytes `offset ..< offset + length`; the reader only asks within `0 ..< size`.
    func read(offset: Int, length: Int) throws(SluiceError) -> [UInt8]
}

/// A Parquet file held in memory.
package struct ParquetBytesInput: ParquetInput {
    package let bytes: [UInt8]

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var size: Int { bytes.count }

    package func read(offset: Int, length: Int) throws(SluiceError) -> [UInt8] {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
            throw SluiceError(.dataCorrupted, "invalid parquet file: a read of \(length) bytes at \(offset) is outside its \(bytes.count) bytes")
        }
        return Array(bytes[offset ..< offset + length])
    }
}
