import Synchronization
import SluiceCore
import SluiceState

/// A source's deduplication (`dedup.key`, `dedup.window`): drops each event whose key was kept
/// before with an event time at most the window away, and counts what it drops.
///
/// The seen keys are a state table (``TableStore/seenKeys(keyTypes:timeType:memory:)``): each
/// key with the time of its latest kept event, paged and evicted past the memory limit like a
/// table, checkpointed under its own id in the same cut as the source's positions and restored
/// with them, so a source replaying from a checkpoint after a crash meets the keys it had seen
/// up to there. The watermark forgets keys: once it has passed a key's time by more than the
/// window, no event still to come (none is behind the watermark) can be a repeat of it.
///
/// Applied after the watermark filter, in the source's delivery step, a chunk at a time: the key
/// columns and the time are gathered once per chunk and looked up together, with no `Value` and
/// no dictionary per row unless a chunk repeats a key. A row whose time is NULL is kept and not
/// remembered (it cannot be placed in a window, and never leaves one). Safe from any thread;
/// a source calls it from its one delivery step at a time.
package final class SourceDeduplicator: Sendable {
    /// The key columns and the event-time column, by index in the relation's columns.
    package let keyColumns: [Int]
    package let timeColumn: Int
    /// `dedup.window` in microseconds.
    package let window: Int64
    /// The state table's id in checkpoints.
    package let stateTableID: Int
    /// The seen keys.
    package let seen: TableStore
    /// Events dropped as repeats (`sluice_sources.rows_deduplicated`).
    package let rowsDeduplicated = Atomic<Int>(0)
    /// The current epoch (the stream runtime's), when the deduplicator feeds one: keys are
    /// forgotten at most once an epoch, at the first delivery after its barrier, as an
    /// operator cleans its state behind a watermark at barriers (``WatermarkCleaning``). Nil
    /// (a snapshot's or scan's judge): whenever the bound moved enough.
    private let epoch: (@Sendable () -> UInt64)?
    /// The bound keys were last forgotten below and the epoch that happened in: the scan that
    /// forgets them runs once the bound moved a quarter window, and not twice in an epoch.
    private let forgetting = Mutex<(below: Int64, epoch: UInt64?)>((.min, nil))

    /// A deduplicator of rows of `types`, remembering keys in a new, empty state table counted
    /// against `memory`; `epoch` tells the current epoch of the stream it feeds.
    package init(
        types: [DataType], keyColumns: [Int], timeColumn: Int, window: Int64, stateTableID: Int, memory: StateMemory?,
        epoch: (@Sendable () -> UInt64)? = nil
    ) {
        self.keyColumns = keyColumns
        self.timeColumn = timeColumn
        self.window = window
        self.stateTableID = stateTableID
        self.epoch = epoch
        seen = TableStore.seenKeys(keyTypes: keyColumns.map { types[$0] }, timeType: types[timeColumn], memory: memory)
    }

    /// What ``apply(_:watermark:recordingIn:)`` did, to take back with ``takeBack(_:)``.
    package struct Undo: Sendable {
        var seen = TableStore.SeenKeysUndo()
        var dropped = 0

        package init() {}
    }

    /// `chunk` without the repeats of events seen before (or earlier in it), which are counted;
    /// then the keys the watermark `watermark` (the source's, after the chunk) puts out of reach
    /// are forgotten, when due (``forget(below:)``).
    package func apply(_ chunk: Chunk, watermark: Int64?) -> Chunk {
        let kept = admit(chunk)
        count(dropped: chunk.count - kept.count)
        if let watermark { forget(below: watermark) }
        return kept
    }

    /// ``apply(_:watermark:)`` as one part of a write that may still fail (a table's insert,
    /// whose log append comes after): what it remembers and counts is recorded in `undo`, for
    /// ``takeBack(_:)`` to undo if the write does not happen. (Keys forgotten stay forgotten:
    /// the watermark put them out of reach whatever the write.)
    package func apply(_ chunk: Chunk, watermark: Int64?, recordingIn undo: inout Undo) -> Chunk {
        let kept = admit(chunk, recordingIn: &undo.seen)
        let dropped = chunk.count - kept.count
        count(dropped: dropped)
        undo.dropped += dropped
        if let watermark { forget(below: watermark) }
        return kept
    }

    /// Takes back the keys remembered and the repeats counted by the applications `undo`
    /// recorded: the events of a write that failed are judged again, as new, when it is retried.
    package func takeBack(_ undo: Undo) {
        seen.takeBack(undo.seen)
        if undo.dropped > 0 { rowsDeduplicated.subtract(undo.dropped, ordering: .relaxed) }
    }

    private func count(dropped: Int) {
        if dropped > 0 { rowsDeduplicated.add(dropped, ordering: .relaxed) }
    }

    /// `chunk` without its repeats, its kept keys remembered; nothing counted.
    package func admit(_ chunk: Chunk) -> Chunk {
        var ignored = TableStore.SeenKeysUndo()
        return admit(chunk, recordingIn: &ignored, recording: false)
    }

    /// `chunk` without its repeats; with `recording`, what the seen keys wrote goes in `undo`.
    private func admit(_ chunk: Chunk, recordingIn undo: inout TableStore.SeenKeysUndo, recording: Bool = true) -> Chunk {
        guard !chunk.isEmpty else { return chunk }
        let times = chunk.columns[timeColumn]
        // Rows with a time are judged; rows without one pass.
        var timed: [Int] = []
        if times.hasNulls {
            timed.reserveCapacity(chunk.count)
            for row in 0 ..< chunk.count where !times.isNull(row) { timed.append(row) }
            if timed.isEmpty { return chunk }
        }
        let judged = timed.isEmpty ? chunk : chunk.gather(timed)
        let events = Chunk(columns: keyColumns.map { judged.columns[$0] } + [judged.columns[timeColumn]], count: judged.count)
        let admitted = recording ? seen.admit(events, window: window, recordingIn: &undo) : seen.admit(events, window: window)
        if admitted.count == judged.count { return chunk }
        guard !timed.isEmpty else { return chunk.gather(admitted) }
        // The untimed rows and the admitted timed ones, in their order.
        var keep = [Bool](repeating: true, count: chunk.count)
        for row in timed { keep[row] = false }
        for index in admitted { keep[timed[index]] = true }
        return chunk.gather((0 ..< chunk.count).filter { keep[$0] })
    }

    /// Forgets the keys whose time is more than the window before `watermark`, when that bound
    /// moved by a quarter window since the last time and (feeding a stream) not yet in this
    /// epoch.
    package func forget(below watermark: Int64) {
        let (bound, overflow) = watermark.subtractingReportingOverflow(window)
        guard !overflow else { return }
        let now = epoch?()
        let due = forgetting.withLock { last -> Bool in
            if last.below != .min {
                // (A difference past Int64's range is a move far enough, or far back.)
                let (moved, overflow) = bound.subtractingReportingOverflow(last.below)
                guard overflow ? bound > last.below : moved >= max(window / 4, 1) else { return false }
                if let now, now == last.epoch { return false }
            }
            last = (bound, now)
            return true
        }
        if due { seen.forgetKeys(before: bound) }
    }

    /// Makes the seen keys' commits keep their changes for checkpoints.
    package func enableCheckpoints() {
        seen.enableCheckpoints()
    }

    /// The seen keys' piece of a state checkpoint (at its cut, no delivery in progress).
    package func checkpointPiece(generation: Int) -> FragmentCheckpoint {
        seen.checkpointPiece(id: stateTableID, generation: generation)
    }

    /// Makes a checkpoint's seen keys (`restored`, the chain filed under ``stateTableID``) the
    /// state; its pages stay in the run files until read.
    package func restore(from restored: RestoredTables, generation: Int) throws(SluiceError) {
        try seen.restore(from: restored, generation: generation)
    }
}
