import SluiceCore
import SluiceState

/// One input's state in a join: its distinct rows, each with its multiplicity (the paged table's
/// count), typed and paged (``PagedTable``), so the state is checkpointed page by page, restored
/// lazily and evicted under `--memory-limit` like a view's.
///
/// A row's key is two vnode bytes (of the join key), the join key's memcomparable encoding, then
/// that of every value of the row: the rows of one join key are the keys with that prefix. The
/// left side of a left join keeps each row's match degree as one more column.
///
/// Changes are staged for the barrier, and a probe must also see the changes earlier input of
/// the same epoch made: the staged changes are indexed by their join-key prefix, and
/// ``candidates(withPrefix:into:)`` folds them into the committed rows.
struct JoinSideState {
    let id: Int
    private(set) var table: PagedTable
    /// This epoch's staged changes by join-key prefix (vnode and join key), in arrival order.
    private var stagedByPrefix: [GroupKeyBytes: [Int32]] = [:]

    init(id: Int, types: [DataType]) {
        self.id = id
        self.table = PagedTable(types: types)
    }

    var types: [DataType] { table.types }

    /// Counts the pages against `memory` from now on (before any row arrives).
    mutating func useMemory(_ memory: StateMemory) {
        let tracks = table.tracksChanges
        table = PagedTable(types: table.types, memory: memory)
        table.tracksChanges = tracks
    }

    mutating func enableCheckpoints() {
        table.tracksChanges = true
    }

    /// Adds the rows with `prefix` to `candidates`: each distinct row once, with its
    /// multiplicity as of now (committed, then this epoch's changes in order). Rows whose
    /// multiplicity is not positive are left out.
    func candidates(withPrefix prefix: [UInt8], into candidates: inout JoinCandidates) {
        let start = candidates.count
        for run in table.runs(withPrefix: prefix) { candidates.append(run, prefixLength: prefix.count) }
        guard !stagedByPrefix.isEmpty, let staged = stagedByPrefix[GroupKeyBytes(bytes: prefix)] else { return }
        var position: [GroupKeyBytes: Int] = [:]
        for index in start ..< candidates.count { position[GroupKeyBytes(bytes: candidates.keys[index])] = index }
        var appended = false
        for change in staged {
            let change = Int(change)
            let key = table.stagedKey(change)
            let sign = table.stagedSign(change)
            if let at = position[GroupKeyBytes(bytes: key)] {
                candidates.counts[at] += Int64(sign)
                if sign >= 0 { candidates.sources[at] = .staged(change) }
            } else {
                position[GroupKeyBytes(bytes: key)] = candidates.count
                appended = true
                candidates.appendStaged(key: key, count: Int64(sign), change: sign >= 0 ? change : nil, prefixLength: prefix.count)
            }
        }
        candidates.dropNonPositive(from: start)
        // Rows new in this epoch were appended: the rows of a key in key order, as committed.
        if appended { candidates.sortByKey(from: start) }
    }

    /// Stages `rows` (rows of this side, with the degree column where it keeps one) with their
    /// signs under `keys`: +1 adds a copy, -1 takes one away, 0 replaces the row (a degree).
    mutating func stage(_ rows: Chunk, signs: [Int8], keys: [JoinStateKey]) {
        guard !keys.isEmpty else { return }
        let first = table.stagedCount
        table.stage(rows, signs: signs) { bytes, row in bytes += keys[row].bytes }
        for (offset, key) in keys.enumerated() {
            stagedByPrefix[GroupKeyBytes(bytes: Array(key.bytes[..<key.prefixLength])), default: []].append(Int32(first + offset))
        }
    }

    /// Applies the epoch's changes to the pages.
    mutating func commit() {
        table.commitEpoch()
        stagedByPrefix.removeAll(keepingCapacity: true)
    }

    /// Gives back pages read by probes since the last commit while the state is over its limit.
    mutating func shedCachedPages() {
        if table.memory?.isOverLimit == true { table.shedCachedPages() }
    }

    /// The state for a checkpoint: the changes since the last one, or every page.
    mutating func checkpoint(everything: Bool) -> FragmentCheckpoint.PagedImage {
        table.checkpoint(table: id, everything: everything)
    }

    /// Takes the rows a checkpoint holds: pages left in the run file until touched.
    mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        let tracks = table.tracksChanges
        if let restored = try PagedTable(restoring: tables, table: id, types: table.types, memory: table.memory) { table = restored }
        table.tracksChanges = tracks
    }
}

/// A row's key in a join's state, and the length of its join-key prefix.
struct JoinStateKey {
    var bytes: [UInt8]
    var prefixLength: Int

    /// The key of row `row` of `data`: the vnode and join key (columns `keys`), then every value.
    /// Nil when a join key value is NULL (the row matches nothing and is not stored).
    init?(row: Int, of data: Chunk, keys: [Int]) {
        for key in keys where data.columns[key].isNull(row) { return nil }
        var bytes: [UInt8] = [0, 0]
        for key in keys { MemcomparableEncoding.append(data.columns[key], row: row, to: &bytes) }
        let vnode = bytes.withUnsafeBufferPointer { VirtualNode.of(UnsafeBufferPointer(rebasing: $0[2...])) }
        bytes[0] = UInt8(vnode >> 8)
        bytes[1] = UInt8(vnode & 0xFF)
        prefixLength = bytes.count
        for column in data.columns { MemcomparableEncoding.append(column, row: row, to: &bytes) }
        self.bytes = bytes
    }

    /// A key as stored, whose join-key prefix is `prefixLength` bytes.
    init(stored bytes: [UInt8], prefixLength: Int) {
        self.bytes = bytes
        self.prefixLength = prefixLength
    }

    var prefix: [UInt8] { Array(bytes[..<prefixLength]) }
}

/// The other side's rows a probe batch met: each distinct row once, with its key, its
/// multiplicity, and where its values are (a committed page's row or a staged change's row).
struct JoinCandidates {
    enum Source {
        /// Row `row` of committed run `run`.
        case committed(run: Int, row: Int)
        /// The row of staged change `change`.
        case staged(Int)
        /// None: only removals of a row not stored (an upstream inconsistency; dropped).
        case missing
    }

    var keys: [[UInt8]] = []
    var counts: [Int64] = []
    var sources: [Source] = []
    /// The length of each key's join-key prefix.
    var prefixLengths: [Int] = []
    private var runs: [PagedTable.Run] = []

    var count: Int { keys.count }

    mutating func append(_ run: PagedTable.Run, prefixLength: Int) {
        let runIndex = runs.count
        runs.append(run)
        for row in run.range {
            prefixLengths.append(prefixLength)
            keys.append(run.contents.keys.key(row))
            counts.append(Int64(run.contents.counts?[row] ?? 1))
            sources.append(.committed(run: runIndex, row: row))
        }
    }

    mutating func appendStaged(key: [UInt8], count: Int64, change: Int?, prefixLength: Int) {
        prefixLengths.append(prefixLength)
        keys.append(key)
        counts.append(count)
        sources.append(change.map { .staged($0) } ?? .missing)
    }

    /// Drops the candidates from `start` on whose count is not positive or that have no row.
    mutating func dropNonPositive(from start: Int) {
        var kept = start
        for index in start ..< keys.count {
            if counts[index] <= 0 { continue }
            if case .missing = sources[index] { continue }
            if kept != index {
                keys[kept] = keys[index]
                counts[kept] = counts[index]
                sources[kept] = sources[index]
                prefixLengths[kept] = prefixLengths[index]
            }
            kept += 1
        }
        keys.removeSubrange(kept...)
        counts.removeSubrange(kept...)
        sources.removeSubrange(kept...)
        prefixLengths.removeSubrange(kept...)
    }

    /// Sorts the candidates from `start` on by key.
    mutating func sortByKey(from start: Int) {
        let order = (start ..< keys.count).sorted { ByteOrder.compare(keys[$0], keys[$1]) < 0 }
        keys.replaceSubrange(start..., with: order.map { keys[$0] })
        counts.replaceSubrange(start..., with: order.map { counts[$0] })
        sources.replaceSubrange(start..., with: order.map { sources[$0] })
        prefixLengths.replaceSubrange(start..., with: order.map { prefixLengths[$0] })
    }

    /// The candidates' rows, in candidate order, as one chunk of `table`'s types: one gather
    /// across the pages they were met on and the staged rows.
    func rows(stagedIn table: PagedTable) -> Chunk {
        guard !keys.isEmpty else { return Chunk(emptyOf: table.types) }
        var chunks = runs.map(\.contents.rows)
        var staged: [Int] = []
        var picks: [(source: Int32, row: Int32)] = []
        picks.reserveCapacity(keys.count)
        for source in sources {
            switch source {
            case .committed(let run, let row):
                picks.append((Int32(run), Int32(row)))
            case .staged(let change):
                picks.append((Int32(runs.count), Int32(staged.count)))
                staged.append(change)
            case .missing:
                preconditionFailure("a join candidate without a row (dropNonPositive removes them)")
            }
        }
        if !staged.isEmpty { chunks.append(table.stagedRows(staged)) }
        return Chunk.gather(from: chunks, picks: picks, types: table.types)
    }
}
