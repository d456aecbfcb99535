import SluiceCore
import SluiceState

/// The entries of one ``OrderedAggregateState``: a multiset per group in key order, kept in a
/// typed paged state table (each key's count is the entry's multiplicity; its row the payload:
/// the value, and string_agg's delimiter), so it is checkpointed page by page, restored lazily
/// and evicted under `--memory-limit`.
///
/// An epoch's changes are either staged into the table a chunk at a time (``stage(_:counts:key:)``:
/// min, max, string_agg and array_agg) or gathered per key (``adjust(_:by:payload:)``, which
/// knows the multiplicity as it is now: DISTINCT), and committed at ``commit()``, before the
/// barrier reads the groups' extremes and elements from the committed pages.
/// Owned by one operator on one thread.
final class OrderedEntries {
    let id: Int
    private(set) var table: PagedTable
    /// This epoch's changed entries: their multiplicity before the epoch and now, and their
    /// payload (the one stored, or the first that came in).
    private var changed: [[UInt8]: Change] = [:]
    /// Where this epoch's payloads are: the input chunks given to ``addPayloads(_:)`` and the
    /// pages of the stored entries it changed (rows, never copied a value at a time).
    private var payloadSources: [Chunk] = []

    /// A payload: row `row` of `payloadSources[source]`.
    typealias Payload = (source: Int32, row: Int32)

    private struct Change {
        var before: Int64
        var now: Int64
        var payload: Payload
        /// The entry left and came back with another payload this epoch.
        var replaced = false
    }

    init(id: Int, types: [DataType]) {
        self.id = id
        self.table = PagedTable(types: types)
    }

    var tracksChanges: Bool {
        get { table.tracksChanges }
        set { table.tracksChanges = newValue }
    }

    /// Counts the pages against `memory` from now on (before any row arrives).
    func useMemory(_ memory: StateMemory) {
        table.useMemory(memory)
    }

    /// Makes the rows of `payloads` (columns of the table's types) available as payloads to
    /// ``adjust(_:by:payload:)`` for the rest of the epoch, as source number the result.
    func addPayloads(_ payloads: Chunk) -> Int32 {
        payloadSources.append(payloads)
        return Int32(payloadSources.count - 1)
    }

    /// Changes the multiplicity of the entry under `key` by `sign`, creating it with `payload`.
    /// Returns the multiplicities before and after and the entry's payload (as stored: a value
    /// equal to `payload`'s that went in first).
    func adjust(_ key: [UInt8], by sign: Int64, payload: Payload) throws(SluiceError) -> (before: Int64, after: Int64, payload: Payload) {
        var change: Change
        if let known = changed[key] {
            change = known
        } else if let stored = table.find(key) {
            let count = Int64(stored.contents.counts?[stored.index] ?? 1)
            let source = addPayloads(stored.contents.rows)
            change = Change(before: count, now: count, payload: (source, Int32(stored.index)))
        } else {
            change = Change(before: 0, now: 0, payload: payload)
        }
        let before = change.now
        if before == 0 {
            change.payload = payload
            change.replaced = change.before > 0
        }
        change.now += sign
        if change.now < 0 {
            throw SluiceError.internalError("aggregate state has no entry for a deleted row: a delete without its insert")
        }
        changed[key] = change
        return (before, change.now, change.payload)
    }

    /// Appends column `column` of `payload` to `builder`.
    func append(_ payload: Payload, column: Int, to builder: inout ColumnBuilder) {
        builder.append(payloadSources[Int(payload.source)].columns[column], row: Int(payload.row))
    }

    /// Stages entries straight into the table, for what needs no multiplicity as it goes: row
    /// `i` of `rows` (the payloads) under the key `key` writes for `i`, its multiplicity changed
    /// by `counts[i]`. An entry staged again with another payload takes the newest.
    func stage(_ rows: Chunk, counts: [Int32], key: (inout [UInt8], _ row: Int) -> Void) {
        table.stage(rows, counts: counts, key: key)
    }

    /// Writes the epoch's changes to the pages.
    func commit() {
        if !changed.isEmpty {
            // (A replaced payload under an unchanged count is staged with count 0: in place.)
            let entries = changed.filter { $0.value.now != $0.value.before || ($0.value.replaced && $0.value.now > 0) }
            var keys: [[UInt8]] = []
            var counts: [Int32] = []
            var picks: [Payload] = []
            keys.reserveCapacity(entries.count)
            counts.reserveCapacity(entries.count)
            picks.reserveCapacity(entries.count)
            for (key, change) in entries {
                keys.append(key)
                counts.append(Int32(truncatingIfNeeded: change.now - change.before))
                picks.append(change.payload)
            }
            if !keys.isEmpty {
                let rows = Chunk.gather(from: payloadSources, picks: picks, types: table.types)
                table.stage(rows, counts: counts) { bytes, row in bytes += keys[row] }
            }
            changed.removeAll(keepingCapacity: true)
        }
        payloadSources.removeAll(keepingCapacity: true)
        table.commitEpoch()
    }

    /// The group's entries in key order, each with its multiplicity, as of the last commit.
    func entries(withPrefix prefix: [UInt8]) -> [(count: Int64, payload: [Value])] {
        var result: [(count: Int64, payload: [Value])] = []
        for run in table.runs(withPrefix: prefix) {
            for index in run.range { result.append((Int64(run.contents.counts?[index] ?? 1), run.contents.rows.row(index))) }
        }
        return result
    }

    /// Whether the group has an entry, as of the last commit.
    func hasEntries(withPrefix prefix: [UInt8]) -> Bool {
        table.first(withPrefix: prefix) != nil
    }

    /// The state for a checkpoint: the changes since the last one, or every page.
    func checkpoint(everything: Bool) -> FragmentCheckpoint.PagedImage {
        table.checkpoint(table: id, everything: everything)
    }

    /// Takes the entries a checkpoint holds: pages left in the run file until touched.
    func restore(_ tables: RestoredTables) throws(SluiceError) {
        try table.restore(from: tables, table: id)
        changed = [:]
        payloadSources = []
    }
}
