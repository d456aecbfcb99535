import Foundation
import NIOCore
import SluiceKafkaProtocol

/// What the log cleaner has done to one log, or, summed, to every log it cleaned.
package struct CleanerStatistics: Sendable, Equatable {
    /// Cleaning passes run.
    package var passes = 0
    /// Bytes of closed segments the cleaner read and rewrote: the cleaned bytes.
    package var bytesRead: Int64 = 0
    /// Bytes of the segments that replaced them.
    package var bytesWritten: Int64 = 0
    /// Records removed: superseded by a later record of their key, keyless, or expired tombstones.
    package var recordsRemoved: Int64 = 0

    package init() {}

    static func += (total: inout CleanerStatistics, part: CleanerStatistics) {
        total.passes += part.passes
        total.bytesRead += part.bytesRead
        total.bytesWritten += part.bytesWritten
        total.recordsRemoved += part.recordsRemoved
    }
}

/// The log's side of compaction: what a cleaning pass may work on, swapping a cleaned segment
/// in, the cleaner's checkpoint, and finishing at start-up a swap a crash interrupted.
///
/// On disk, a group of closed segments is replaced in four steps, so that a crash at any point
/// leaves either the old segments or the cleaned one, never a mix:
/// 1. the cleaned batches are written to `<base>.cleaned` and fsynced (outside the lock);
/// 2. that file is renamed `<base>.<last base>.swap` and the directory fsynced: from here on
///    the cleaned segment is the one that counts;
/// 3. the group's other segment files are removed;
/// 4. the swap file is renamed `<base>.log`, replacing the group's first file, and the
///    directory fsynced.
/// At start-up a `.cleaned` file is removed (the old segments are intact) and a `.swap` file
/// completes steps 3 and 4.
extension PartitionLog {
    /// What one cleaning pass works on, taken under the lock. The closed segments do not change
    /// while the pass reads them without the lock; retention may remove some meanwhile, in which
    /// case ``install(_:replacing:)`` refuses their cleaned copy.
    struct CleaningPlan {
        var directory: String
        /// The closed segments, oldest first.
        var segments: [Segment]
        /// The records below this offset were cleaned by earlier passes.
        var firstDirtyOffset: Int64
        /// The records from this offset on are not cleaned yet: the active segment's base, the
        /// first offset of the oldest open transaction (the last stable offset), or the first
        /// segment younger than `min.compaction.lag.ms`, whichever is lowest.
        var firstUncleanableOffset: Int64
        var configuration: LogConfiguration
        /// The aborted transactions' offset ranges (first record to marker), by producer id.
        var abortedRanges: [Int64: [ClosedRange<Int64>]]
        /// The open transactions: producer id → the offset of its first batch.
        var openTransactions: [Int64: Int64]

        /// Whether a transactional data batch belongs to a transaction that committed (not one
        /// that aborted, nor one still open).
        func isCommitted(_ header: RecordBatchHeader) -> Bool {
            if let first = openTransactions[header.producerID], first <= header.baseOffset { return false }
            return !(abortedRanges[header.producerID]?.contains { $0.contains(header.baseOffset) } ?? false)
        }
    }

    /// What the log cleaner did to this log since it was opened.
    package var cleanerStatistics: CleanerStatistics {
        lock.withLock { cleaning }
    }

    /// The offset below which the closed segments are cleaned (the cleaner's checkpoint).
    package var cleanerCheckpoint: Int64 {
        lock.withLock { firstDirtyOffset }
    }

    /// Marks the log as going with its topic, before its directory is removed: a cleaning pass
    /// under way then installs nothing and writes no checkpoint (a topic created again under
    /// the same name gets the same directory).
    package func markDeleted() {
        lock.withLock { isDeleted = true }
    }

    /// The next pass's plan, or nil when the log is not due: it does not compact, or it has no
    /// cleanable dirty records making up `min.cleanable.dirty.ratio` of its closed bytes, and no
    /// kept tombstone has reached its deadline.
    func cleaningPlan(nowMilliseconds now: Int64) -> CleaningPlan? {
        lock.withLock {
            guard settings.compacts, !isDeleted, segments.count > 1 else { return nil }
            let closed = Array(segments.dropLast())
            let firstDirty = max(firstDirtyOffset, closed[0].baseOffset)
            var uncleanable = segments[segments.count - 1].baseOffset
            if let firstOpen = openTransactions.values.min() { uncleanable = min(uncleanable, firstOpen) }
            let lag = settings.minCompactionLagMilliseconds
            if lag > 0, let young = closed.first(where: { $0.largestTimestamp > now - lag }) {
                uncleanable = min(uncleanable, young.baseOffset)
            }
            uncleanable = max(uncleanable, firstDirty)
            var cleanBytes: Int64 = 0
            var dirtyBytes: Int64 = 0
            for segment in closed where segment.baseOffset < uncleanable {
                if segment.nextOffset <= firstDirty { cleanBytes += segment.size } else { dirtyBytes += segment.size }
            }
            let dirty = firstDirty < uncleanable && dirtyBytes > 0
                && Double(dirtyBytes) >= settings.minCleanableDirtyRatio * Double(cleanBytes + dirtyBytes)
            let tombstonesDue = tombstoneDeadline.map { now >= $0 } ?? false
            guard dirty || tombstonesDue else { return nil }
            var abortedRanges: [Int64: [ClosedRange<Int64>]] = [:]
            for aborted in abortedTransactions {
                abortedRanges[aborted.producerID, default: []].append(aborted.firstOffset ... aborted.lastOffset)
            }
            return CleaningPlan(
                directory: directory, segments: closed, firstDirtyOffset: firstDirty, firstUncleanableOffset: uncleanable,
                configuration: settings, abortedRanges: abortedRanges, openTransactions: openTransactions)
        }
    }

    /// Replaces `group` (consecutive closed segments) with `cleaned`, whose file is complete and
    /// fsynced at its temporary path, in the steps the type's overview lists. Returns false,
    /// changing nothing, when the group is no longer in the log (retention removed part of it)
    /// or the log was deleted.
    ///
    /// Takes the lock: reads wait for the renames, never see a half-written file, and find the
    /// cleaned segment (with its indexes, built as it was written) afterwards.
    /// - Throws: When a rename or removal fails. Before the swap file exists, the old segments
    ///   stand; after, the swap completes at the next start-up.
    func install(_ cleaned: Segment, replacing group: [Segment]) throws(LogError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !isDeleted, let start = segments.firstIndex(where: { $0 === group[0] }), start + group.count < segments.count,
            zip(segments[start...], group).allSatisfy({ $0 === $1 })
        else { return false }
        let target = group[0].file.path
        try cleaned.file.move(
            to: "\(directory)/\(Self.swapFileName(first: group[0].baseOffset, last: group[group.count - 1].baseOffset))")
        try SegmentFile.syncDirectory(directory)
        for segment in group.dropFirst() {
            guard unlink(segment.file.path) == 0 || errno == ENOENT else { throw LogError.io("remove \(segment.file.path)", errno: errno) }
        }
        try cleaned.file.move(to: target)
        try SegmentFile.syncDirectory(directory)
        segments.replaceSubrange(start ..< start + group.count, with: [cleaned])
        return true
    }

    /// Records a finished pass: the closed segments are clean below `offset`, the oldest kept
    /// tombstone may go at `tombstoneDeadline`. The checkpoint is written to
    /// `cleaner-offset-checkpoint` (losing it costs one more pass after a restart, nothing else).
    func finishCleaningPass(through offset: Int64, tombstoneDeadline deadline: Int64?, statistics: CleanerStatistics) {
        let checkpoint: String? = lock.withLock {
            guard !isDeleted else { return nil }
            firstDirtyOffset = max(firstDirtyOffset, offset)
            tombstoneDeadline = deadline
            cleaning += statistics
            return "\(firstDirtyOffset) \(deadline ?? -1)\n"
        }
        try? checkpoint?.write(toFile: "\(directory)/\(Self.checkpointFileName)", atomically: true, encoding: .utf8)
    }

    static let checkpointFileName = "cleaner-offset-checkpoint"

    /// The cleaner's output for the group starting at `baseOffset`, before it is complete.
    static func cleanedFileName(_ baseOffset: Int64) -> String {
        "\(Segment.fileName(baseOffset)).cleaned"
    }

    /// The complete cleaned segment replacing the segments from `first` to `last` (base offsets).
    static func swapFileName(first: Int64, last: Int64) -> String {
        "\(Segment.fileName(first)).\(Segment.fileName(last)).swap"
    }

    /// The checkpoint kept by ``finishCleaningPass(through:tombstoneDeadline:statistics:)``:
    /// (0, nil) when there is none.
    static func readCleanerCheckpoint(in directory: String) -> (Int64, Int64?) {
        guard let text = try? String(contentsOfFile: "\(directory)/\(checkpointFileName)", encoding: .utf8) else { return (0, nil) }
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let offset = Int64(fields[0]), let deadline = Int64(fields[1]) else { return (0, nil) }
        return (offset, deadline < 0 ? nil : deadline)
    }

    /// Removes a cleaned segment a crash left incomplete, and completes a swap a crash
    /// interrupted (steps 3 and 4 of the type's overview). Runs before the segments are opened.
    static func finishInterruptedCleaning(in directory: String) throws(LogError) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var changed = false
        for name in names where name.hasSuffix(".cleaned") {
            try? FileManager.default.removeItem(atPath: "\(directory)/\(name)")
        }
        for name in names where name.hasSuffix(".swap") {
            let bases = name.dropLast(5).split(separator: ".").compactMap { Int64($0) }
            guard bases.count == 2 else { continue }
            for other in names where other.hasSuffix(".log") {
                guard let base = Int64(other.dropLast(4)), base > bases[0], base <= bases[1] else { continue }
                guard unlink("\(directory)/\(other)") == 0 || errno == ENOENT else {
                    throw LogError.io("remove \(directory)/\(other)", errno: errno)
                }
            }
            guard rename("\(directory)/\(name)", "\(directory)/\(Segment.fileName(bases[0])).log") == 0 else {
                throw LogError.io("rename \(directory)/\(name)", errno: errno)
            }
            changed = true
        }
        if changed { try SegmentFile.syncDirectory(directory) }
    }
}
