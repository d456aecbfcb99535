#if canImport(Glibc)
import Glibc
#endif
import SluiceCore
import SluiceState

/// Chunks an operator sets aside on disk while its query runs, read back once, in order.
///
/// The file is unlinked as soon as it is made: it lives only as long as its descriptor, so a
/// query that ends, fails or dies with the server leaves nothing behind. Chunks are written in
/// ``ChunkCodec``'s form behind a 4-byte length, through a buffer of ``bufferSize`` bytes (a
/// sixteenth of it for each of a ``PartitionedSpill``'s files, which fill at once).
/// (COPY FROM stages its rows in one too, so that nothing is inserted before all are read.)
/// Not `Sendable`: one owner uses it at a time.
package final class ChunkSpillFile {
    static let bufferSize = 256 << 10
    private let bufferSize: Int

    let types: [DataType]
    private let descriptor: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private var length = 0
    /// The rows appended so far.
    package private(set) var rowCount = 0
    /// The bytes written so far.
    var byteCount: Int { length + buffer.count }
    /// The bytes of the largest chunk written, as encoded: about what reading it back holds.
    private(set) var largestChunkBytes = 0
    /// Where each chunk written starts in the file, and its rows (for ``chunk(at:)``).
    private(set) var offsets: [Int] = []
    private(set) var chunkSizes: [Int] = []

    /// Makes an unlinked file in `directory` for chunks of columns of `types`, written through a
    /// buffer of `bufferSize` bytes.
    package init(in directory: String, types: [DataType], bufferSize: Int = ChunkSpillFile.bufferSize) throws(SluiceError) {
        self.types = types
        self.bufferSize = bufferSize
        mkdir(directory, 0o755)
        var template = Array("\(directory)/spill-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let path = String(cString: template.map { UInt8(bitPattern: $0) } + [0])
        guard descriptor >= 0 else { throw Files.error(errno, "could not create spill file", path) }
        unlink(path)
        self.descriptor = descriptor
        self.path = path
        buffer.reserveCapacity(bufferSize + 4096)
    }

    deinit {
        close(descriptor)
    }

    /// Writes `chunk` after the others (through the buffer).
    package func append(_ chunk: Chunk) throws(SluiceError) {
        guard chunk.count > 0 else { return }
        let start = buffer.count
        offsets.append(length + start)
        chunkSizes.append(chunk.count)
        buffer.append(contentsOf: [0, 0, 0, 0])
        ChunkCodec.encode(chunk, into: &buffer)
        let frame = UInt32(buffer.count - start - 4)
        largestChunkBytes = max(largestChunkBytes, Int(frame))
        withUnsafeBytes(of: frame.littleEndian) { bytes in
            for index in 0 ..< 4 { buffer[start + index] = bytes[index] }
        }
        rowCount += chunk.count
        if buffer.count >= bufferSize { try flush() }
    }

    private func flush() throws(SluiceError) {
        guard !buffer.isEmpty else { return }
        try Files.writeAll(buffer, to: descriptor, path: path)
        length += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// The chunks written, in order. Writing ends here.
    package func chunks() throws(SluiceError) -> ChunkStream {
        try flush()
        buffer = []
        var offset = 0
        let (descriptor, path, length, types) = (self.descriptor, self.path, self.length, self.types)
        // The stream keeps the file (and so its descriptor) open until it is dropped.
        return ChunkStream { [self] () throws(SluiceError) -> Chunk? in
            _ = self
            guard offset < length else { return nil }
            return try Self.chunk(descriptor, at: &offset, path: path, types: types)
        }
    }

    /// Chunk `index` (in the order written), read back while writing may go on.
    package func chunk(at index: Int) throws(SluiceError) -> Chunk {
        var offset = offsets[index]
        if offset >= length { try flush() }
        return try Self.chunk(descriptor, at: &offset, path: path, types: types)
    }

    /// The chunk whose frame starts at `offset`, which moves past it.
    private static func chunk(_ descriptor: Int32, at offset: inout Int, path: String, types: [DataType]) throws(SluiceError) -> Chunk {
        var header = [UInt8](repeating: 0, count: 4)
        try read(descriptor, into: &header, at: offset, path: path)
        let frame = Int(UInt32(header[0]) | UInt32(header[1]) << 8 | UInt32(header[2]) << 16 | UInt32(header[3]) << 24)
        var bytes = [UInt8](repeating: 0, count: frame)
        try read(descriptor, into: &bytes, at: offset + 4, path: path)
        offset += 4 + frame
        var position = 0
        return try ChunkCodec.decode(bytes, offset: &position, types: types)
    }

    private static func read(_ descriptor: Int32, into bytes: inout [UInt8], at offset: Int, path: String) throws(SluiceError) {
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(offset + done)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Files.error(errno, "could not read spill file", path)
            }
            if count == 0 { throw SluiceError(.ioError, "spill file \"\(path)\" ended early") }
            done += count
        }
    }
}

/// Rows spread over ``partitionCount`` spill files by their keys' hash, so that rows with equal
/// keys meet in one partition: how a hash join or aggregate too big for memory is split into
/// parts that fit (the Grace hash join). Each `level` of splitting takes the next bits of the
/// hash, so a partition split again spreads out.
final class PartitionedSpill {
    static let partitionCount = 16
    static let bitsPerLevel = 4
    /// The levels the hash's top bits allow.
    static let maximumLevel = 64 / bitsPerLevel - 1

    let keys: [Int]
    let level: Int
    private(set) var files: [ChunkSpillFile]
    private var pending: [[Chunk]]
    private var pendingRows: [Int]
    /// For a join: the rows with a null key, which match nothing, kept apart (all of them would
    /// hash alike, into one partition no split could shrink).
    let nullKeyRows: ChunkSpillFile?

    init(in directory: String, types: [DataType], keys: [Int], level: Int, nullKeysApart: Bool = false) throws(SluiceError) {
        self.keys = keys
        self.level = level
        nullKeyRows = nullKeysApart ? try ChunkSpillFile(in: directory, types: types) : nil
        var files: [ChunkSpillFile] = []
        for _ in 0 ..< Self.partitionCount {
            files.append(try ChunkSpillFile(in: directory, types: types, bufferSize: ChunkSpillFile.bufferSize / Self.partitionCount))
        }
        self.files = files
        pending = Array(repeating: [], count: Self.partitionCount)
        pendingRows = Array(repeating: 0, count: Self.partitionCount)
    }

    /// The partition of each row of `chunk`.
    static func partitions(of chunk: Chunk, keys: [Int], level: Int) -> [Int] {
        let shift = UInt64(64 - bitsPerLevel * (level + 1))
        let mask = UInt64(partitionCount - 1)
        return KeyHash.hashes(chunk, keys: keys).map { Int(($0 >> shift) & mask) }
    }

    func append(_ chunk: Chunk) throws(SluiceError) {
        guard chunk.count > 0 else { return }
        let partition = Self.partitions(of: chunk, keys: keys, level: level)
        var rows = [[Int]](repeating: [], count: Self.partitionCount)
        let nullable = nullKeyRows == nil ? [] : keys.map { chunk.columns[$0] }.filter(\.hasNulls)
        if let nullKeyRows, !nullable.isEmpty {
            var nullRows: [Int] = []
            for (row, target) in partition.enumerated() {
                if nullable.contains(where: { $0.isNull(row) }) { nullRows.append(row) } else { rows[target].append(row) }
            }
            try nullKeyRows.append(chunk.gather(nullRows))
        } else {
            for (row, target) in partition.enumerated() { rows[target].append(row) }
        }
        for target in rows.indices where !rows[target].isEmpty {
            pending[target].append(rows[target].count == chunk.count ? chunk : chunk.gather(rows[target]))
            pendingRows[target] += rows[target].count
            if pendingRows[target] >= Chunk.preferredSize { try flush(target) }
        }
    }

    private func flush(_ target: Int) throws(SluiceError) {
        guard !pending[target].isEmpty else { return }
        let chunk = pending[target].count == 1 ? pending[target][0] : Chunk.concatenate(pending[target], types: files[target].types)
        try files[target].append(chunk)
        pending[target] = []
        pendingRows[target] = 0
    }

    /// The partitions' files, written out.
    func finish() throws(SluiceError) -> [ChunkSpillFile] {
        for target in pending.indices { try flush(target) }
        return files
    }
}
