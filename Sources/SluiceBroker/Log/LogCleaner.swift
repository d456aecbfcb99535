import Foundation
import NIOCore
import SluiceKafkaProtocol
import Synchronization

/// Kafka's log cleaner: in each log whose cleanup policy compacts, rewrites the closed segments
/// so that every key keeps only its latest record.
///
/// A pass over a log (Kafka's `Cleaner.doClean`):
/// 1. **Map.** The dirty records — from the cleaner's checkpoint to the first uncleanable
///    offset (the active segment, the oldest open transaction, a segment younger than
///    `min.compaction.lag.ms`) — are read, and each key's latest offset goes into a
///    ``CleanerOffsetMap`` (keys hashed to 16 bytes). Control batches, records of aborted
///    transactions and of open ones, and batches that fail their CRC or do not decode are left
///    out. When the map is full the pass ends at that record; the next pass takes the rest.
/// 2. **Rewrite.** The closed segments from the log start to where the map ends are read in
///    groups of consecutive segments of at most `segment.bytes` together (so segments that
///    cleaning shrank merge, as Kafka's `groupSegmentsBySize`), and each group is written to
///    one new segment holding, of each batch, the records that stay:
///    - records at or after the map's end, all of them;
///    - a record whose key the map holds at a later offset goes (it is superseded);
///    - a record with no key goes (as Kafka's cleaner drops them);
///    - a tombstone (null value) that is its key's latest goes once its batch's largest
///      timestamp is `delete.retention.ms` in the past — an approximation of Kafka's rule
///      (which counts from when the tombstone's segment was first cleaned) that needs no state:
///      a producer that sets old timestamps sees its tombstones go at the first cleaning — and
///      only while no transactional or unreadable batch came before it in the log (such a batch
///      is never rewritten, so an older record of the key may stay in it, which the tombstone
///      must keep hidden).
///    A batch keeps its base offset, last offset delta, producer id, epoch and base sequence,
///    and codec: one whose records all stay is copied as stored; one with some removed is
///    decoded and encoded again with the records that stay, at their own offsets (gaps
///    between them are fine: a reader asking for a removed offset gets the batch or the next
///    one that holds a later record); one left with no record is dropped. Control batches
///    and transactional batches are copied untouched, as are batches that fail their CRC.
/// 3. **Swap.** The new segment is fsynced and swapped in by ``PartitionLog/install(_:replacing:)``
///    under the partition's lock (renames, crash-safe as `PartitionLog+Cleaning.swift`
///    describes). A group of one segment in which nothing changes is read, not written.
/// 4. The checkpoint moves to the map's end.
///
/// Reading and writing happen without the partition's lock: closed segments do not change, and
/// only retention may remove them meanwhile (the swap then gives up on that group).
///
/// Limits: the map holds at most `maximumMapBytes` (24 bytes a key, at most three quarters
/// full), so a pass maps that many keys; more take several passes, each rewriting the clean
/// part of the log from its start. A log is cleaned only when its dirty bytes make up
/// `min.cleanable.dirty.ratio` of its closed bytes, or when a kept tombstone's deadline has
/// passed. Unlike Kafka's cleaner, which keeps the last batch of each producer (emptied, if
/// need be) for its sequence numbers, it drops an idempotent producer's batch like any other
/// once its records all went: should that be the producer's last batch in the partition, a
/// restart forgets the producer's sequence numbers there and takes its next batch as it
/// comes. The key hash is keyed with a secret per pass, so collisions (which would drop a
/// record of another key) cannot be chosen.
///
/// One pass at a time: the cleaner runs on its own queue (``cleanDue(_:nowMilliseconds:)``),
/// and its calls serialize.
package final class LogCleaner: @unchecked Sendable {
    /// Most passes one call runs on a log; the next call carries on.
    static let maximumPassesPerRun = 64
    /// Bytes of cleaned batches gathered before one write to the new segment.
    private static let writeBytes = 1 << 20

    private let lock = NSLock()
    private let map: CleanerOffsetMap
    private let stopped = Atomic<Bool>(false)
    private let totals = Mutex(CleanerStatistics())

    /// A cleaner whose key map takes at most `maximumMapBytes` (Kafka's
    /// `log.cleaner.dedupe.buffer.size`); it grows to that only as keys need it, and is freed
    /// after each run.
    package init(maximumMapBytes: Int = 128 << 20) {
        map = CleanerOffsetMap(maximumBytes: maximumMapBytes)
    }

    /// What the cleaner has done since it was made, over every log.
    package var statistics: CleanerStatistics { totals.withLock { $0 } }

    /// Makes a run under way stop at its next batch, leaving the group it was writing (its
    /// temporary file removed), and later runs do nothing, until ``resume()``.
    package func stop() { stopped.store(true, ordering: .relaxed) }

    /// Lets runs work again after ``stop()``.
    package func resume() { stopped.store(false, ordering: .relaxed) }

    private var isStopped: Bool { stopped.load(ordering: .relaxed) }

    /// Cleans each of `logs` that is due, skipping a log whose cleaning fails (it is tried
    /// again next time). Does nothing when a run is under way already, so timer ticks do not
    /// queue up behind a long run.
    package func cleanDue(_ logs: [PartitionLog], nowMilliseconds: Int64) {
        guard lock.try() else { return }
        defer {
            map.release()
            lock.unlock()
        }
        for log in logs where !isStopped {
            _ = try? runPasses(on: log, nowMilliseconds: nowMilliseconds)
        }
    }

    /// Runs passes on `log` while it is due (at most ``maximumPassesPerRun``); returns what
    /// they did.
    @discardableResult
    package func clean(_ log: PartitionLog, nowMilliseconds: Int64) throws(LogError) -> CleanerStatistics {
        lock.lock()
        defer {
            map.release()
            lock.unlock()
        }
        return try runPasses(on: log, nowMilliseconds: nowMilliseconds)
    }

    private func runPasses(on log: PartitionLog, nowMilliseconds now: Int64) throws(LogError) -> CleanerStatistics {
        var done = CleanerStatistics()
        for _ in 0 ..< Self.maximumPassesPerRun {
            guard !isStopped, let plan = log.cleaningPlan(nowMilliseconds: now) else { break }
            done += try pass(plan, on: log, nowMilliseconds: now)
        }
        return done
    }

    /// One pass: map, rewrite each group, move the checkpoint.
    private func pass(_ plan: PartitionLog.CleaningPlan, on log: PartitionLog, nowMilliseconds now: Int64) throws(LogError) -> CleanerStatistics {
        map.clear()
        let mapEnd = try mapLatestOffsets(plan)
        if isStopped { return CleanerStatistics() }
        var state = PassState(plan: plan, mapEnd: mapEnd, nowMilliseconds: now)
        for group in Self.groups(of: plan.segments, below: mapEnd, segmentBytes: plan.configuration.segmentBytes) {
            try clean(group, &state, in: log)
            if isStopped { return CleanerStatistics() }
        }
        state.statistics.passes = 1
        log.finishCleaningPass(through: mapEnd, tombstoneDeadline: state.tombstoneDeadline, statistics: state.statistics)
        totals.withLock { $0 += state.statistics }
        return state.statistics
    }

    // MARK: - Map

    /// Puts the latest offset of each key of the dirty records in the map; returns where the
    /// mapped records end (the first uncleanable offset, or the first record the full map
    /// could not take).
    private func mapLatestOffsets(_ plan: PartitionLog.CleaningPlan) throws(LogError) -> Int64 {
        let firstDirty = plan.firstDirtyOffset
        let end = plan.firstUncleanableOffset
        guard firstDirty < end else { return end }
        let validator = RecordBatchValidator(origin: .log)
        let map = self.map
        for segment in plan.segments {
            guard segment.baseOffset < end else { break }
            guard segment.nextOffset > firstDirty else { continue }
            var start: Int64 = 0
            if firstDirty > segment.baseOffset {
                guard let position = try segment.position(of: firstDirty) else { continue }
                start = position
            }
            var reader = SegmentBatchReader(segment.file, from: start)
            while let (header, bytes) = try reader.next() {
                if isStopped { return firstDirty }
                if header.baseOffset >= end { return end }
                guard header.lastOffset >= firstDirty, !header.isControl else { continue }
                if header.isTransactional && !plan.isCommitted(header) { continue }
                guard let view = try? validator.validateBatch(in: bytes, at: bytes.readerIndex) else { continue }
                var stop: Int64?
                do {
                    try RecordKeyReader.forEachRecord(of: view, in: bytes) { record in
                        guard record.offset >= firstDirty else { return true }
                        guard record.offset < end else {
                            stop = end
                            return false
                        }
                        guard let key = record.key else { return true }
                        let digest = key.withUnsafeReadableBytes { map.digest($0) }
                        guard map.put(digest, offset: record.offset) else {
                            stop = record.offset
                            return false
                        }
                        return true
                    }
                } catch {
                    continue
                }
                if let stop { return stop }
            }
        }
        return end
    }

    // MARK: - Rewrite

    /// The state of one pass's rewrite, carried from group to group (oldest first).
    private struct PassState {
        let plan: PartitionLog.CleaningPlan
        let mapEnd: Int64
        let nowMilliseconds: Int64
        /// False once a batch the cleaner leaves whole (transactional, or unreadable) came
        /// before: tombstones from there on stay.
        var tombstonesRemovable = true
        /// The earliest moment a tombstone kept by this pass may go.
        var tombstoneDeadline: Int64?
        var statistics = CleanerStatistics()
        /// Per record of the batch at hand, whether it stays (reused from batch to batch).
        var keeps: [Bool] = []
        /// The records of a batch being encoded again (reused).
        var retained: [KafkaRecord] = []
        /// The batch encoded again, before it joins `pending`.
        var rewritten = ByteBuffer()
        /// Cleaned batches not yet written to the new segment, and their headers.
        var pending = ByteBuffer()
        var pendingEntries: [RecordBatchHeader] = []

        init(plan: PartitionLog.CleaningPlan, mapEnd: Int64, nowMilliseconds: Int64) {
            self.plan = plan
            self.mapEnd = mapEnd
            self.nowMilliseconds = nowMilliseconds
        }
    }

    /// What becomes of one batch.
    private enum Outcome {
        /// It stays as stored.
        case whole
        /// Every record goes, and the batch with them.
        case dropped(records: Int)
        /// Some records go: the batch with the others is in `PassState.rewritten`.
        case rewritten(removed: Int, header: RecordBatchHeader)
    }

    /// Consecutive segments from the log start, those starting below `end`, grouped so that
    /// each group's bytes stay within `segmentBytes` (a larger segment is a group alone).
    static func groups(of segments: [Segment], below end: Int64, segmentBytes: Int) -> [[Segment]] {
        var groups: [[Segment]] = []
        var current: [Segment] = []
        var bytes: Int64 = 0
        for segment in segments where segment.baseOffset < end {
            if !current.isEmpty && bytes + segment.size > Int64(segmentBytes) {
                groups.append(current)
                current = []
                bytes = 0
            }
            current.append(segment)
            bytes += segment.size
        }
        if !current.isEmpty { groups.append(current) }
        return groups
    }

    /// Writes the cleaned copy of `group` and swaps it in. A group of one segment in which
    /// nothing changes is only read: its new segment is started at the first batch that
    /// changes, with the batches before it copied then.
    private func clean(_ group: [Segment], _ state: inout PassState, in log: PartitionLog) throws(LogError) {
        let plan = state.plan
        let base = group[0].baseOffset
        var output: Segment?
        defer {
            // Still at its temporary name: not swapped in (a failure or a stop).
            if let path = output?.file.path, path.hasSuffix(".cleaned") { unlink(path) }
        }
        func startOutput() throws(LogError) -> Segment {
            let segment = try Segment(
                path: "\(plan.directory)/\(PartitionLog.cleanedFileName(base))", baseOffset: base,
                indexIntervalBytes: plan.configuration.indexIntervalBytes)
            output = segment
            return segment
        }
        state.pending.clear()
        state.pendingEntries.removeAll(keepingCapacity: true)
        var writer = group.count > 1 ? try startOutput() : nil
        var bytesRead: Int64 = 0
        var removed: Int64 = 0
        for segment in group {
            var reader = SegmentBatchReader(segment.file)
            while let (header, bytes) = try reader.next() {
                if isStopped { return }
                bytesRead += Int64(header.byteCount)
                let outcome = filter(header, bytes, &state)
                if case .whole = outcome {
                    guard writer != nil else { continue }
                    state.pending.writeImmutableBuffer(bytes)
                    state.pendingEntries.append(header)
                } else {
                    if writer == nil {
                        // The first change in a lone segment: what came before stays as stored.
                        writer = try startOutput()
                        try copy(segment, before: reader.position - Int64(header.byteCount), into: &state, output: writer!)
                    }
                    switch outcome {
                    case .whole:
                        break
                    case .dropped(let records):
                        removed += Int64(records)
                    case .rewritten(let count, let rewrittenHeader):
                        removed += Int64(count)
                        state.pending.writeBuffer(&state.rewritten)
                        state.pendingEntries.append(rewrittenHeader)
                    }
                }
                if state.pending.readableBytes >= Self.writeBytes { try flush(&state, to: writer!) }
            }
            // Bytes that frame no batch (recovery cuts them, so this is damage since): leave
            // the group as it is rather than lose what follows.
            guard reader.isAtEnd else { return }
        }
        guard let writer else { return }
        try flush(&state, to: writer)
        try writer.file.sync()
        guard try log.install(writer, replacing: group) else { return }
        state.statistics.bytesRead += bytesRead
        state.statistics.bytesWritten += writer.size
        state.statistics.recordsRemoved += removed
    }

    /// Appends the batches of `segment` before file position `end`, as stored, to the new segment.
    private func copy(_ segment: Segment, before end: Int64, into state: inout PassState, output: Segment) throws(LogError) {
        var reader = SegmentBatchReader(segment.file)
        while reader.position < end, let (header, bytes) = try reader.next() {
            state.pending.writeImmutableBuffer(bytes)
            state.pendingEntries.append(header)
            if state.pending.readableBytes >= Self.writeBytes { try flush(&state, to: output) }
        }
    }

    private func flush(_ state: inout PassState, to output: Segment) throws(LogError) {
        guard state.pending.readableBytes > 0 else { return }
        try output.append(state.pending, entries: state.pendingEntries)
        state.pending.clear()
        state.pendingEntries.removeAll(keepingCapacity: true)
    }

    /// Decides what becomes of one batch (see the type's rules); a batch encoded again is left
    /// in `state.rewritten`.
    private func filter(_ header: RecordBatchHeader, _ bytes: ByteBuffer, _ state: inout PassState) -> Outcome {
        if header.isControl || header.baseOffset >= state.mapEnd { return .whole }
        if header.isTransactional {
            state.tombstonesRemovable = false
            return .whole
        }
        guard let view = try? RecordBatchValidator(origin: .log).validateBatch(in: bytes, at: bytes.readerIndex) else {
            state.tombstonesRemovable = false
            return .whole
        }
        let map = self.map
        let mapEnd = state.mapEnd
        let retention = state.plan.configuration.deleteRetentionMilliseconds
        let tombstonesExpired = state.tombstonesRemovable && header.maxTimestamp <= state.nowMilliseconds &- retention
        var keptTombstone = false
        var kept = 0
        state.keeps.removeAll(keepingCapacity: true)
        do {
            try RecordKeyReader.forEachRecord(of: view, in: bytes) { record in
                let keep: Bool
                if record.offset >= mapEnd {
                    keep = true
                } else if let key = record.key {
                    let digest = key.withUnsafeReadableBytes { map.digest($0) }
                    if let latest = map.offset(of: digest), record.offset < latest {
                        keep = false
                    } else if record.isTombstone {
                        keep = !tombstonesExpired
                        keptTombstone = keptTombstone || keep
                    } else {
                        keep = true
                    }
                } else {
                    keep = false
                }
                state.keeps.append(keep)
                if keep { kept += 1 }
                return true
            }
        } catch {
            state.tombstonesRemovable = false
            return .whole
        }
        if keptTombstone && state.tombstonesRemovable {
            let (deadline, overflow) = header.maxTimestamp.addingReportingOverflow(retention)
            state.tombstoneDeadline = min(state.tombstoneDeadline ?? .max, overflow ? .max : deadline)
        }
        let count = state.keeps.count
        if kept == count { return .whole }
        if kept == 0 { return .dropped(records: count) }
        guard let records = try? view.records(in: bytes), records.count == count, let compression = header.compression else {
            state.tombstonesRemovable = false
            return .whole
        }
        state.retained.removeAll(keepingCapacity: true)
        for (record, keep) in zip(records, state.keeps) where keep { state.retained.append(record) }
        var encoder = RecordBatchEncoder()
        encoder.baseOffset = header.baseOffset
        encoder.partitionLeaderEpoch = header.partitionLeaderEpoch
        encoder.producerID = header.producerID
        encoder.producerEpoch = header.producerEpoch
        encoder.baseSequence = header.baseSequence
        encoder.timestampType = header.timestampType
        encoder.compression = compression
        state.rewritten.clear()
        var written = encoder.encode(state.retained, into: &state.rewritten)
        // The batch keeps its last offset, as Kafka's cleaner keeps it: the offsets it covers
        // and an idempotent producer's last sequence number (base sequence + last offset
        // delta) stay what they were. The delta is inside the CRC, so the CRC is computed again.
        let start = state.rewritten.readerIndex
        written.lastOffsetDelta = header.lastOffsetDelta
        state.rewritten.setInteger(written.lastOffsetDelta, at: start + RecordBatchHeader.Position.lastOffsetDelta)
        let crcStart = start + RecordBatchHeader.Position.attributes
        written.crc = state.rewritten.crc32c(at: crcStart, length: state.rewritten.writerIndex - crcStart)!
        state.rewritten.setInteger(written.crc, at: start + RecordBatchHeader.Position.crc)
        return .rewritten(removed: count - kept, header: written)
    }
}
