import NIOCore
import SluiceKafkaProtocol

/// Reads a closed segment's batches in order, a large chunk of the file at a time (one `pread`
/// per chunk, not per batch), for the log cleaner.
///
/// Only for segments that no longer change: the cleaner reads them without the partition's
/// lock. A segment that retention deletes meanwhile stays readable (its descriptor is open).
struct SegmentBatchReader {
    /// Bytes read at a time (more when one batch is larger).
    static let chunkBytes = 1 << 20

    private let file: SegmentFile
    /// The file position of the next batch.
    private(set) var position: Int64
    private var chunk = ByteBuffer()
    private var chunkStart: Int64 = 0

    init(_ file: SegmentFile, from position: Int64 = 0) {
        self.file = file
        self.position = position
    }

    /// Whether every batch of the file has been read (false after ``next()`` stopped at bytes
    /// that frame no batch).
    var isAtEnd: Bool { position >= file.size }

    /// The next batch: its header and bytes (a slice of the chunk), or nil at the end of the
    /// file or at bytes that frame no whole batch.
    mutating func next() throws(LogError) -> (header: RecordBatchHeader, bytes: ByteBuffer)? {
        guard position < file.size else { return nil }
        var index = Int(position - chunkStart)
        if position < chunkStart || index + RecordBatchHeader.size > chunk.readableBytes {
            try load(count: Self.chunkBytes)
            index = 0
        }
        guard let header = RecordBatchHeader.framed(at: chunk.readerIndex + index, of: chunk) else { return nil }
        if index + header.byteCount > chunk.readableBytes {
            try load(count: max(Self.chunkBytes, header.byteCount))
            index = 0
            guard header.byteCount <= chunk.readableBytes else { return nil }
        }
        guard let bytes = chunk.getSlice(at: chunk.readerIndex + index, length: header.byteCount) else { return nil }
        position += Int64(header.byteCount)
        return (header, bytes)
    }

    private mutating func load(count: Int) throws(LogError) {
        chunk = try file.read(at: position, count: count)
        chunkStart = position
    }
}
