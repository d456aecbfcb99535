import Foundation
import NIOCore
import SluiceKafkaProtocol
import Synchronization

/// The log of one topic partition: record batches stored as received (compressed ones too),
/// in segment files under one directory, each batch's base offset assigned on append.
///
/// Safe to use from many threads: appends and reads take the partition's lock (reads only to
/// find where to read and to `pread`, which does not move a file position).
/// - Complexity: append O(batch bytes); read O(log segments + index interval); recovery reads
///   the batch headers of every segment and checks the CRC of every batch in the last one.
package final class PartitionLog: @unchecked Sendable {
    package let directory: String
    // `settings`, `lock`, `segments` and the transaction state are internal, not private, for
    // the log cleaner's half of the class (PartitionLog+Cleaning.swift).
    /// The log's settings; guarded by `lock` (AlterConfigs changes them while the log is in use).
    var settings: LogConfiguration
    let lock = NSLock()
    /// The segments, oldest first; the last is the active one, the only one appended to.
    var segments: [Segment] = []
    private var lastFlush = ContinuousClock.now
    /// Appended bytes not yet fsynced under the interval policy.
    private var unsynced = false
    /// Bytes cut from the end of the last segment at start-up (a torn write).
    package private(set) var recoveredBytesCut: Int64 = 0
    /// The last batches of each idempotent producer found at start-up (at most five each, oldest
    /// first), to rebuild the broker's producer state.
    package private(set) var recoveredProducerBatches: [(producerID: Int64, epoch: Int16, firstSequence: Int32, lastSequence: Int32, offset: Int64)] = []
    /// The transactions open in this partition: producer id → the offset of its first batch in
    /// the transaction. The smallest bounds the last stable offset.
    var openTransactions: [Int64: Int64] = [:]
    /// Aborted transactions, oldest first: what a `read_committed` fetch tells the consumer to
    /// skip (Kafka's transaction index).
    var abortedTransactions: [AbortedTransaction] = []
    /// The log cleaner's progress: the offsets below this one in the closed segments have been
    /// cleaned (Kafka's cleaner checkpoint), kept in `cleaner-offset-checkpoint`.
    var firstDirtyOffset: Int64 = 0
    /// When the oldest tombstone the cleaner kept may go (milliseconds since the epoch), which
    /// makes the log due for cleaning even with nothing dirty; nil when it kept none.
    var tombstoneDeadline: Int64?
    /// What the log cleaner has done to this log since it was opened.
    var cleaning = CleanerStatistics()
    /// Whether the log's topic was deleted (see ``markDeleted()``).
    var isDeleted = false

    /// Opens the log in `directory` (created if missing), recovering its last segment:
    /// `validate` decides whether a stored batch is intact (its CRC); the first one that is not,
    /// and everything after it, is cut off.
    package init(directory: String, configuration: LogConfiguration = LogConfiguration(), validate: @escaping (ByteBuffer) -> Bool) throws(LogError) {
        self.directory = directory
        self.settings = configuration
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw LogError.io("create \(directory)", errno: errno)
        }
        try Self.finishInterruptedCleaning(in: directory)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".log") }
        let bases = names.compactMap { Int64($0.dropLast(4)) }.sorted()
        for (index, base) in bases.enumerated() {
            let segment = try Segment(directory: directory, baseOffset: base, indexIntervalBytes: settings.indexIntervalBytes)
            let isLast = index == bases.count - 1
            let cut = try segment.recover(validate: isLast ? validate : nil) { entry, position in
                if entry.isTransactional {
                    if entry.isControl {
                        if let bytes = try? segment.file.read(at: position, count: entry.byteCount),
                            let marker = TransactionMarker(controlBatch: bytes)
                        {
                            end(marker, at: entry.baseOffset)
                        }
                        return
                    }
                    if openTransactions[entry.producerID] == nil { openTransactions[entry.producerID] = entry.baseOffset }
                }
                guard entry.producerID >= 0 else { return }
                recoveredProducerBatches.append(
                    (entry.producerID, entry.producerEpoch, entry.baseSequence,
                     entry.baseSequence &+ entry.lastOffsetDelta, entry.baseOffset))
                let same = recoveredProducerBatches.indices.filter { recoveredProducerBatches[$0].producerID == entry.producerID }
                if same.count > 5 { recoveredProducerBatches.remove(at: same[0]) }
            }
            if isLast { recoveredBytesCut = cut }
            segments.append(segment)
        }
        if segments.isEmpty {
            segments.append(try Segment(directory: directory, baseOffset: 0, indexIntervalBytes: settings.indexIntervalBytes))
        }
        (firstDirtyOffset, tombstoneDeadline) = Self.readCleanerCheckpoint(in: directory)
    }

    /// The log's settings.
    package var configuration: LogConfiguration {
        get { lock.withLock { settings } }
        set { lock.withLock { settings = newValue } }
    }

    /// The first offset still stored.
    package var logStartOffset: Int64 {
        lock.withLock { segments[0].baseOffset }
    }

    /// The offset the next record will get (the high watermark: there are no replicas).
    package var logEndOffset: Int64 {
        lock.withLock { segments[segments.count - 1].nextOffset }
    }

    /// The offset below which every transaction has ended (committed or aborted): what
    /// `read_committed` consumers may read up to.
    package var lastStableOffset: Int64 {
        lock.withLock { openTransactions.values.min() ?? segments[segments.count - 1].nextOffset }
    }

    /// The aborted transactions with records at or after `offset` and before `end`, oldest
    /// first, for a `read_committed` fetch of that range.
    package func abortedTransactions(from offset: Int64, before end: Int64) -> [AbortedTransaction] {
        lock.withLock { abortedTransactions.filter { $0.lastOffset >= offset && $0.firstOffset < end } }
    }

    /// Appends the marker that ends `marker.producerID`'s transaction here; returns its offset.
    /// A marker for a producer with no transaction open is written all the same (a coordinator
    /// finishing a transaction again after a restart), and changes nothing.
    @discardableResult
    package func appendMarker(_ marker: TransactionMarker, timestamp: Int64) throws(LogError) -> Int64 {
        let offset = try append([marker.batch(timestamp: timestamp)]).first
        lock.withLock { end(marker, at: offset) }
        return offset
    }

    /// Closes the producer's open transaction at `offset`, the marker's. Call with the lock held
    /// (or during recovery).
    private func end(_ marker: TransactionMarker, at offset: Int64) {
        guard let first = openTransactions.removeValue(forKey: marker.producerID) else { return }
        if !marker.commits {
            abortedTransactions.append(AbortedTransaction(producerID: marker.producerID, firstOffset: first, lastOffset: offset))
        }
    }

    /// Bytes stored.
    package var size: Int64 {
        lock.withLock { segments.reduce(0) { $0 + $1.size } }
    }

    /// Appends `batches` (each one whole record batch, already validated), giving them
    /// consecutive offsets from the log end; returns the first and last offsets given. Flushes
    /// as the configuration says before returning.
    @discardableResult
    package func append(_ batches: [ByteBuffer]) throws(LogError) -> (first: Int64, last: Int64) {
        lock.lock()
        defer { lock.unlock() }
        do {
            var next = segments[segments.count - 1].nextOffset
            let first = next
            for batch in batches {
                guard var placed = RecordBatchHeader.framed(at: batch.readerIndex, of: batch), placed.byteCount == batch.readableBytes else {
                    throw LogError.invalidBatch("a batch's length does not match its bytes")
                }
                // The base offset lies outside the CRC: the segment writes the batch with it.
                placed.baseOffset = next
                var active = segments[segments.count - 1]
                if active.size > 0 && active.size + Int64(placed.byteCount) > Int64(settings.segmentBytes) {
                    try active.file.seal()
                    if settings.flush != .never { try active.file.sync() }
                    active = try Segment(directory: directory, baseOffset: next, indexIntervalBytes: settings.indexIntervalBytes)
                    segments.append(active)
                }
                try active.append(batch, entry: placed)
                if placed.isTransactional && !placed.isControl && openTransactions[placed.producerID] == nil {
                    openTransactions[placed.producerID] = placed.baseOffset
                }
                next = placed.lastOffset + 1
            }
            switch settings.flush {
            case .never:
                break
            case .everyAppend:
                try segments[segments.count - 1].file.sync()
            case .interval(let milliseconds):
                unsynced = true
                if ContinuousClock.now - lastFlush >= .milliseconds(milliseconds) {
                    try segments[segments.count - 1].file.sync()
                    lastFlush = .now
                    unsynced = false
                }
            }
            return (first, next - 1)
        }
    }

    /// Whole batches starting with the one that holds `offset`, up to `maxBytes` (but always at
    /// least one batch); empty at the log end. With `limit`, only batches that start below it
    /// (for `read_committed`, the last stable offset).
    package func read(from offset: Int64, maxBytes: Int, below limit: Int64 = .max) throws(LogError) -> ByteBuffer {
        lock.lock()
        defer { lock.unlock() }
        do {
            let start = segments[0].baseOffset
            let end = segments[segments.count - 1].nextOffset
            guard offset >= start, offset <= end else { throw LogError.offsetOutOfRange(requested: offset, start: start, end: end) }
            if offset == end || offset >= limit { return ByteBuffer() }
            var index = segments.count - 1
            while index > 0 && segments[index].baseOffset > offset { index -= 1 }
            while index < segments.count {
                if let position = try segments[index].position(of: offset) {
                    return try segments[index].read(from: position, maxBytes: maxBytes, below: limit)
                }
                index += 1
            }
            return ByteBuffer()
        }
    }

    /// The first record whose timestamp is at least `timestamp`, with its timestamp (Kafka's
    /// ListOffsets by time); nil when every record is older. The records of the one batch that
    /// holds it are decoded (decompressed, if need be, as Kafka's broker does); should they not
    /// decode, the answer is the batch's first offset and its largest timestamp.
    package func offset(forTimestamp timestamp: Int64) throws(LogError) -> (offset: Int64, timestamp: Int64)? {
        lock.lock()
        defer { lock.unlock() }
        for segment in segments {
            guard let (position, entry) = try segment.batch(forTimestamp: timestamp) else { continue }
            let bytes = try segment.file.read(at: position, count: entry.byteCount)
            if let view = try? RecordBatchValidator(origin: .log).validateBatch(in: bytes, at: bytes.readerIndex),
                let records = try? view.records(in: bytes),
                let record = records.first(where: { $0.timestamp >= timestamp })
            {
                return (record.offset, record.timestamp)
            }
            return (entry.baseOffset, entry.maxTimestamp)
        }
        return nil
    }

    /// Deletes closed segments past the retention limits; returns how many went. A log whose
    /// cleanup policy does not delete (compact only) keeps every segment.
    @discardableResult
    package func enforceRetention(nowMilliseconds: Int64) -> Int {
        lock.withLock {
            var removed = 0
            var total = segments.reduce(0) { $0 + $1.size }
            while settings.deletes && segments.count > 1 {
                let oldest = segments[0]
                let expired = settings.retentionMilliseconds.map { oldest.largestTimestamp < nowMilliseconds - $0 } ?? false
                let oversized = settings.retentionBytes.map { total - oldest.size >= $0 } ?? false
                guard expired || oversized else { break }
                try? FileManager.default.removeItem(atPath: oldest.file.path)
                total -= oldest.size
                segments.removeFirst()
                removed += 1
            }
            let start = segments[0].baseOffset
            abortedTransactions.removeAll { $0.lastOffset < start }
            return removed
        }
    }

    /// Forces every appended byte to disk.
    package func sync() throws(LogError) {
        lock.lock()
        defer { lock.unlock() }
        try segments[segments.count - 1].file.sync()
        unsynced = false
    }

    /// Under the interval policy, fsyncs appends older than the interval that no later append
    /// has flushed (the broker's flush timer calls this, as Kafka's `log.flush.interval.ms`
    /// scheduler does).
    package func syncIfDue() throws(LogError) {
        guard case .interval(let milliseconds) = settings.flush else { return }
        lock.lock()
        defer { lock.unlock() }
        guard unsynced, ContinuousClock.now - lastFlush >= .milliseconds(milliseconds) else { return }
        try segments[segments.count - 1].file.sync()
        lastFlush = .now
        unsynced = false
    }
}


/// A transaction aborted in a partition: the producer, and the offsets of its first record and
/// of its abort marker (a Fetch response carries the producer and first offset).
package struct AbortedTransaction: Hashable, Sendable {
    package var producerID: Int64
    package var firstOffset: Int64
    package var lastOffset: Int64
}
