import SluiceCore
import SluiceExpr
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
/// ``candidates(withPrefix:from:limit:into:)`` folds them into the committed rows.
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
        table.useMemory(memory)
    }

    mutating func enableCheckpoints() {
        table.tracksChanges = true
    }

    /// Adds the rows with `prefix` to `candidates`: each distinct row once, with its
    /// multiplicity as of now (committed, then this epoch's changes in order). Rows whose
    /// multiplicity is not positive are left out.
    ///
    /// A prefix with many rows is read in slices: from `start` (nil: the first row), at most
    /// `limit` committed rows (and the staged changes between them) per call; the key where the
    /// next slice starts is returned, nil after the last.
    func candidates(withPrefix prefix: [UInt8], from start: [UInt8]? = nil, limit: Int = .max, into candidates: inout JoinCandidates) -> [UInt8]? {
        let first = candidates.count
        let (runs, resume) = table.runs(withPrefix: prefix, from: start ?? prefix, limit: limit)
        for run in runs { candidates.append(run, prefixLength: prefix.count) }
        guard !stagedByPrefix.isEmpty, var staged = stagedByPrefix[GroupKeyBytes(bytes: prefix)] else { return resume }
        if start != nil || resume != nil {
            // The slice's staged changes: those whose keys lie between its start and the next's.
            staged = staged.filter { change in
                start.map { table.compareStagedKey(Int(change), with: $0) >= 0 } ?? true
                    && resume.map { table.compareStagedKey(Int(change), with: $0) < 0 } ?? true
            }
        }
        candidates.fold(staged, of: table, from: first, prefixLength: prefix.count)
        return resume
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

    /// Takes away the rows where `expression` (over the side's columns) is below `bound`: rows
    /// no later row can match, after the epoch's commit. A page whose expression fails keeps
    /// its rows.
    mutating func removeRows(where expression: ScalarExpr, below bound: Value, context: EvaluationContext) {
        let limit = WatermarkCleaning.column(of: bound, type: expression.type)
        _ = table.removeRows { rows in
            guard let values = try? ExpressionEvaluator.evaluate(expression, on: rows, context: context) else { return [] }
            return WatermarkCleaning.positions(in: values, below: limit)
        }
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
        try table.restore(from: tables, table: id)
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

/// The other side's rows a probe batch met: each distinct row once, with its multiplicity and
/// where it is (a committed page's row or a staged change's row). A candidate's key is read from
/// there when it is needed (a left row whose degree changes), not copied for every row met.
struct JoinCandidates {
    enum Source {
        /// Row `row` of committed run `run`.
        case committed(run: Int, row: Int)
        /// The row of staged change `change`.
        case staged(Int)
        /// None: only removals of a row not stored (an upstream inconsistency; dropped).
        case missing
    }

    struct Candidate {
        var count: Int64
        var source: Source
        /// The length of the key's join-key prefix.
        var prefixLength: Int
    }

    private(set) var candidates: [Candidate] = []
    private var runs: [PagedTable.Run] = []

    var count: Int { candidates.count }

    /// Candidate `index`'s multiplicity.
    func multiplicity(_ index: Int) -> Int64 { candidates[index].count }

    /// Candidate `index`'s state key, read from its page or from `table`'s staged changes.
    func key(_ index: Int, stagedIn table: PagedTable) -> JoinStateKey {
        JoinStateKey(stored: keyBytes(candidates[index], stagedIn: table), prefixLength: candidates[index].prefixLength)
    }

    private func keyBytes(_ candidate: Candidate, stagedIn table: PagedTable) -> [UInt8] {
        switch candidate.source {
        case .committed(let run, let row): runs[run].contents.keys.key(row)
        case .staged(let change): table.stagedKey(change)
        case .missing: preconditionFailure("a join candidate without a row (the staged changes dropped them)")
        }
    }

    mutating func append(_ run: PagedTable.Run, prefixLength: Int) {
        let runIndex = runs.count
        runs.append(run)
        for row in run.range {
            candidates.append(Candidate(count: Int64(run.contents.counts?[row] ?? 1), source: .committed(run: runIndex, row: row), prefixLength: prefixLength))
        }
    }

    /// Folds this epoch's staged changes of `prefix` (`changes`, in arrival order, of `table`)
    /// into the candidates from `start` on (those the committed runs gave for the prefix): a
    /// change to a known row moves its count (and, adding, makes the staged row its row); one
    /// to a new row adds it. Drops the rows left without copies and, when rows were added,
    /// puts the prefix's rows back in key order.
    mutating func fold(_ changes: [Int32], of table: PagedTable, from start: Int, prefixLength: Int) {
        var position: [GroupKeyBytes: Int] = [:]
        for index in start ..< candidates.count { position[GroupKeyBytes(bytes: keyBytes(candidates[index], stagedIn: table))] = index }
        var appended = false
        for change in changes {
            let change = Int(change)
            let sign = Int64(table.stagedSign(change))
            let key = GroupKeyBytes(bytes: table.stagedKey(change))
            if let at = position[key] {
                candidates[at].count += sign
                if sign >= 0 { candidates[at].source = .staged(change) }
            } else {
                position[key] = candidates.count
                appended = true
                candidates.append(Candidate(count: sign, source: sign >= 0 ? .staged(change) : .missing, prefixLength: prefixLength))
            }
        }
        var folded = candidates[start...].filter { candidate in
            if case .missing = candidate.source { return false }
            return candidate.count > 0
        }
        if appended {
            let keys = folded.map { keyBytes($0, stagedIn: table) }
            folded = folded.indices.sorted { ByteOrder.compare(keys[$0], keys[$1]) < 0 }.map { folded[$0] }
        }
        candidates.replaceSubrange(start..., with: folded)
    }

    /// The candidates' rows, in candidate order, as one chunk of `table`'s types: one gather
    /// across the pages they were met on and the staged rows.
    func rows(stagedIn table: PagedTable) -> Chunk {
        guard !candidates.isEmpty else { return Chunk(emptyOf: table.types) }
        var chunks = runs.map(\.contents.rows)
        var staged: [Int] = []
        var picks: [(source: Int32, row: Int32)] = []
        picks.reserveCapacity(candidates.count)
        for candidate in candidates {
            switch candidate.source {
            case .committed(let run, let row):
                picks.append((Int32(run), Int32(row)))
            case .staged(let change):
                picks.append((Int32(runs.count), Int32(staged.count)))
                staged.append(change)
            case .missing:
                preconditionFailure("a join candidate without a row (the staged changes dropped them)")
            }
        }
        if !staged.isEmpty { chunks.append(table.stagedRows(staged)) }
        return Chunk.gather(from: chunks, picks: picks, types: table.types)
    }
}
