import NIOCore
import SluiceCore
import SluiceKafkaProtocol

/// One file of a partition's log, holding batches whose offsets start at `baseOffset`, with a
/// sparse offset index (offset → file position) and a time index (largest timestamp so far →
/// offset), an entry every `indexIntervalBytes`.
final class Segment {
    let baseOffset: Int64
    let file: SegmentFile
    /// One past the last offset stored.
    private(set) var nextOffset: Int64
    private(set) var largestTimestamp = Int64.min
    private var offsetIndex: [(offset: Int64, position: Int64)] = []
    private var timeIndex: [(timestamp: Int64, offset: Int64)] = []
    private var bytesSinceIndex = Int.max
    /// The indexes' bytes, in the process's memory ledger.
    private let indexBytes = MemoryShare(.brokerIndexes)
    private let indexIntervalBytes: Int

    var size: Int64 { file.size }

    /// Opens (or creates) the segment file `directory/<baseOffset, 20 digits>.log`.
    init(directory: String, baseOffset: Int64, indexIntervalBytes: Int) throws(LogError) {
        self.baseOffset = baseOffset
        self.nextOffset = baseOffset
        self.indexIntervalBytes = indexIntervalBytes
        self.file = try SegmentFile(path: "\(directory)/\(Self.fileName(baseOffset)).log", create: true)
    }

    /// Creates an empty segment in the file at `path` (emptied if it exists): the log cleaner's
    /// output, renamed into place once complete.
    init(path: String, baseOffset: Int64, indexIntervalBytes: Int) throws(LogError) {
        self.baseOffset = baseOffset
        self.nextOffset = baseOffset
        self.indexIntervalBytes = indexIntervalBytes
        self.file = try SegmentFile(path: path, create: true, truncate: true)
    }

    static func fileName(_ baseOffset: Int64) -> String {
        let digits = String(baseOffset)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    /// Appends one batch (its base offset already set) described by `entry`.
    /// Appends a batch, written with `entry`'s base offset.
    func append(_ batch: ByteBuffer, entry: RecordBatchHeader) throws(LogError) {
        let position = try file.append(batch: batch, baseOffset: entry.baseOffset)
        record(entry, at: position)
    }

    /// Appends several whole batches in one write, `entries` describing them in order (the log
    /// cleaner's output).
    func append(_ batches: ByteBuffer, entries: [RecordBatchHeader]) throws(LogError) {
        var position = try file.append(batches)
        for entry in entries {
            record(entry, at: position)
            position += Int64(entry.byteCount)
        }
    }

    private func record(_ entry: RecordBatchHeader, at position: Int64) {
        if bytesSinceIndex >= indexIntervalBytes {
            offsetIndex.append((entry.baseOffset, position))
            bytesSinceIndex = 0
            countIndexBytes()
        }
        bytesSinceIndex += entry.byteCount
        if entry.maxTimestamp > largestTimestamp {
            largestTimestamp = entry.maxTimestamp
            timeIndex.append((entry.maxTimestamp, entry.baseOffset))
            countIndexBytes()
        }
        nextOffset = entry.lastOffset + 1
    }

    private func countIndexBytes() {
        indexBytes.set(
            offsetIndex.capacity * MemoryLayout<(offset: Int64, position: Int64)>.stride
                + timeIndex.capacity * MemoryLayout<(timestamp: Int64, offset: Int64)>.stride)
    }

    /// Reads the file from the start, rebuilding the indexes. With `validate`, stops at the first
    /// batch that is incomplete or fails it and cuts the file there (a torn write); returns the
    /// number of bytes cut. `batch` sees every batch kept with its position (to rebuild producer
    /// and transaction state).
    @discardableResult
    func recover(validate: ((ByteBuffer) -> Bool)?, batch: (RecordBatchHeader, Int64) -> Void = { _, _ in }) throws(LogError) -> Int64 {
        offsetIndex = []
        timeIndex = []
        countIndexBytes()
        bytesSinceIndex = Int.max
        largestTimestamp = .min
        nextOffset = baseOffset
        var position: Int64 = 0
        while position < file.size {
            let header = try file.read(at: position, count: RecordBatchHeader.size)
            guard let entry = RecordBatchHeader.framed(at: header.readerIndex, of: header),
                entry.baseOffset >= nextOffset, position + Int64(entry.byteCount) <= file.size
            else { break }
            if let validate {
                let batch = try file.read(at: position, count: entry.byteCount)
                guard batch.readableBytes == entry.byteCount, validate(batch) else { break }
            }
            record(entry, at: position)
            batch(entry, position)
            position += Int64(entry.byteCount)
        }
        let cut = file.size - position
        if cut > 0 { try file.truncate(to: position) }
        return cut
    }

    /// The file position of the batch holding `offset` (or the first after it), or nil if the
    /// segment holds no such batch.
    func position(of offset: Int64) throws(LogError) -> Int64? {
        guard offset < nextOffset else { return nil }
        // The last index entry at or below the offset, then batch headers from there.
        var low = 0
        var high = offsetIndex.count
        while low < high {
            let middle = (low + high) / 2
            if offsetIndex[middle].offset <= offset { low = middle + 1 } else { high = middle }
        }
        var position = low == 0 ? 0 : offsetIndex[low - 1].position
        while position < file.size {
            let header = try file.read(at: position, count: RecordBatchHeader.size)
            guard let entry = RecordBatchHeader.framed(at: header.readerIndex, of: header) else { return nil }
            if entry.lastOffset >= offset { return position }
            position += Int64(entry.byteCount)
        }
        return nil
    }

    /// The first batch whose largest timestamp is at least `timestamp`: its position and entry.
    func batch(forTimestamp timestamp: Int64) throws(LogError) -> (position: Int64, entry: RecordBatchHeader)? {
        guard largestTimestamp >= timestamp else { return nil }
        // The index holds increasing maxima: start from the last entry below the target.
        var position: Int64 = 0
        if let entry = timeIndex.last(where: { $0.timestamp < timestamp }), let found = try self.position(of: entry.offset) {
            position = found
        }
        while position < file.size {
            let header = try file.read(at: position, count: RecordBatchHeader.size)
            guard let entry = RecordBatchHeader.framed(at: header.readerIndex, of: header) else { return nil }
            if entry.maxTimestamp >= timestamp { return (position, entry) }
            position += Int64(entry.byteCount)
        }
        return nil
    }

    /// Whole batches from `position`, at most `maxBytes` of them but always the first (a batch
    /// larger than `maxBytes` is returned whole, as Kafka does, so a consumer never stalls);
    /// only batches starting below `limit`.
    func read(from position: Int64, maxBytes: Int, below limit: Int64 = .max) throws(LogError) -> ByteBuffer {
        let buffer = try file.read(at: position, count: max(maxBytes, RecordBatchHeader.size))
        let start = buffer.readerIndex
        var end = start
        while let entry = RecordBatchHeader.framed(at: end, of: buffer), entry.baseOffset < limit,
            end - start + entry.byteCount <= buffer.readableBytes
        {
            end += entry.byteCount
        }
        if end == start, let first = RecordBatchHeader.framed(at: start, of: buffer), first.baseOffset < limit {
            return try file.read(at: position, count: first.byteCount)
        }
        return buffer.getSlice(at: start, length: end - start) ?? ByteBuffer()
    }
}
