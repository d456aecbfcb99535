import SluiceCore

/// A table of seen event keys (`dedup.key`): each row is a key's columns and then the event
/// time (microseconds, as the source's time column has it) of the latest event kept under it, keyed by the key's
/// columns. What a source's deduplication keeps, in the state store like any table: paged,
/// checkpointed, and evicted past the memory limit.
extension TableStore {
    /// The state table of seen keys of key columns `keyTypes` and event times of `timeType`
    /// (`timestamp` or `timestamptz`).
    package static func seenKeys(keyTypes: [DataType], timeType: DataType, memory: StateMemory?) -> TableStore {
        TableStore(types: keyTypes + [timeType], primaryKey: Array(keyTypes.indices), memory: memory)
    }

    /// What admissions wrote to a table of seen keys, in order: enough to take them back
    /// (``takeBack(_:)``) when the write they were judged for does not happen (the log refused it).
    package struct SeenKeysUndo: Sendable {
        /// Per admission that remembered keys: the rows it wrote (a key and its new time), and the
        /// rows they replaced, as they were.
        fileprivate var steps: [(written: Chunk, replaced: Chunk?)] = []

        package init() {}

        package var isEmpty: Bool { steps.isEmpty }
    }

    /// Decides which events of `events` are new, in order, and remembers them. `events` holds
    /// the key columns and then the event time, never NULL. An event is a repeat when its key
    /// is held with a time at most `window` microseconds from its own (either way); otherwise
    /// it is kept and its key's time becomes the later of the two. Events of one chunk are
    /// judged one after the other, so a key's second event in a chunk meets its first.
    /// Returns the kept events' positions, ascending.
    /// - Complexity: O(events): a hash and a lookup per event, one staging of the changed keys.
    package func admit(_ events: Chunk, window: Int64) -> [Int] {
        admit(events, window: window, recording: false).kept
    }

    /// ``admit(_:window:)``, recording what it writes in `undo`, so that ``takeBack(_:)`` can
    /// restore the keys as they were before (the rows replaced are gathered for that).
    package func admit(_ events: Chunk, window: Int64, recordingIn undo: inout SeenKeysUndo) -> [Int] {
        let (kept, step) = admit(events, window: window, recording: true)
        if let step { undo.steps.append(step) }
        return kept
    }

    /// The kept events' positions, and (`recording`) what was written and replaced.
    private func admit(_ events: Chunk, window: Int64, recording: Bool) -> (kept: [Int], step: (written: Chunk, replaced: Chunk?)?) {
        guard !events.isEmpty else { return ([], nil) }
        let timeColumn = events.columns.count - 1
        guard case .int64(let times) = events.columns[timeColumn].storage else { return (Array(0 ..< events.count), nil) }
        let keys = keys(of: events)
        return state.withLock { state in
            load(&state)
            let hashes = Self.hashes(of: keys)
            let groups = Self.rowsByKey(keys, hashes: hashes)
            var kept: [Int] = []
            kept.reserveCapacity(events.count)
            var written: [Int] = []
            var signs: [Int8] = []
            var replaced = RowPicks()
            for group in 0 ..< groups.count {
                let members = groups[group]
                let first = members.first!
                var latest: Int64?
                var held: (rows: Chunk, index: Int)?
                if let found = Self.find(first, of: keys, hash: hashes[first], in: &state),
                   case .int64(let heldTimes) = found.rows.columns[timeColumn].storage {
                    latest = heldTimes[found.index]
                    held = found
                }
                var latestRow: Int?
                for row in members {
                    let time = times[row]
                    if let latest, Self.isWithin(time, latest, window: window) { continue }
                    kept.append(row)
                    if latest.map({ time > $0 }) ?? true {
                        latest = time
                        latestRow = row
                    }
                }
                if let latestRow {
                    written.append(latestRow)
                    signs.append(held == nil ? 1 : 0)
                    if let held, recording { replaced.add(held.rows, held.index) }
                }
            }
            var step: (written: Chunk, replaced: Chunk?)?
            if !written.isEmpty {
                let rows = events.gather(written)
                Self.stage(rows, signs: signs, keys: keys, keyOf: { written[$0] }, hashes: hashes, in: &state)
                Self.commitIfMany(&state, memory: memory, byRowID: false)
                if recording { step = (rows, replaced.isEmpty ? nil : replaced.gathered(types: types)) }
            }
            kept.sort()
            return (kept, step)
        }
    }

    /// Takes back what the admissions `undo` recorded, last first: the keys they added are
    /// forgotten, the keys whose time they moved get their earlier time back.
    package func takeBack(_ undo: SeenKeysUndo) {
        for step in undo.steps.reversed() {
            _ = delete(keysOf: step.written)
            // (A key of this table is never NULL, so restoring it cannot fail.)
            if let replaced = step.replaced { _ = try? insert(replaced) }
        }
    }

    /// Whether `a` and `b` are at most `window` apart (a difference past Int64's range is not).
    static func isWithin(_ a: Int64, _ b: Int64, window: Int64) -> Bool {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        return !overflow && difference.magnitude <= UInt64(window)
    }

    /// Forgets every key whose time is before `bound` (the watermark less the window: no event
    /// still to come can be a repeat of it). Returns how many were forgotten.
    /// - Complexity: a scan of every page (an evicted one read back for the scan alone, not
    ///   kept), keeping the keys of the rows removed and nothing else of them.
    @discardableResult
    package func forgetKeys(before bound: Int64) -> Int {
        let timeColumn = types.count - 1
        return removeRows { rows in
            guard case .int64(let times) = rows.columns[timeColumn].storage else { return [] }
            return (0 ..< rows.count).filter { times[$0] < bound }
        }
    }
}
