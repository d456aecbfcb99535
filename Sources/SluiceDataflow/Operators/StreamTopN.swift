import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Top-N per group over a change stream (``TopNNode``): every row is kept in ordered state,
/// and at each barrier every group the epoch touched compares the ranked rows it showed before
/// the epoch with those it shows now, and emits the difference: deletes of rows that left the
/// range or changed rank, inserts of rows that entered it or took a new rank.
///
/// State: a paged state table (id `stateTableID`) with the input rows, under
/// ``OrderedPartitionKeys`` of the group columns: a group's ranked rows are a range read from
/// its prefix. Over an
/// append-only input a row ranked past the upper bound can never rise again, so it is removed
/// at the barrier and state stays within the bound per group.
/// - Complexity: per input row, one key encoding; per epoch, per touched group, two reads of
///   its rows up to the bound (three over an append-only input, which also reads the rows past
///   it to remove them).
struct StreamTopN: StreamOperator {
    let types: [DataType]
    let groupColumns: [Int]
    let order: [SortKey]
    let rank: WindowFunctionKind
    let lower: Int
    let upper: Int?
    let emitsRank: Bool
    let appendOnly: Bool
    let stateTableID: Int
    private var table: PagedTable
    /// The key prefixes of the groups the epoch touched, each once, in first-touched order.
    private var touched: [[UInt8]] = []
    private var touchedSet: Set<[UInt8]> = []

    init(
        types: [DataType], groupColumns: [Int], order: [SortKey], rank: WindowFunctionKind, lower: Int, upper: Int?, emitsRank: Bool,
        appendOnly: Bool, stateTableID: Int
    ) {
        self.types = types
        self.groupColumns = groupColumns
        self.order = order
        self.rank = rank
        self.lower = lower
        self.upper = upper
        self.emitsRank = emitsRank
        self.appendOnly = appendOnly
        self.stateTableID = stateTableID
        table = PagedTable(types: types)
    }

    mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        OrderedPartitionKeys(partitionColumns: groupColumns, order: order, types: types)
            .stage(chunk, in: &table, touched: &touched, touchedSet: &touchedSet)
    }

    /// One copy of a stored row in a group's ranking.
    private struct Ranked {
        var rows: Chunk
        var index: Int
        var key: [UInt8]
        var copy: Int32
        var rank: Int64
    }

    /// Identifies a ranked row for the comparison of two rankings.
    private struct Identity: Hashable {
        var key: [UInt8]
        var copy: Int32
        var rank: Int64
    }

    /// Whether the stored rows `a` and `b` tie on the order columns.
    private func tie(_ a: (rows: Chunk, index: Int), _ b: (rows: Chunk, index: Int)) -> Bool {
        for sortKey in order {
            let left = a.rows.columns[sortKey.column]
            let right = b.rows.columns[sortKey.column]
            switch (left.isNull(a.index), right.isNull(b.index)) {
            case (true, true): continue
            case (false, false): if ValueOrdering.compare(left, a.index, right, b.index) != 0 { return false }
            default: return false
            }
        }
        return true
    }

    /// The committed rows of the group under `prefix` ranked within the bounds, in order; with
    /// `past`, also the stored rows ranked past the upper bound (their keys, rows and counts).
    private func ranking(_ prefix: [UInt8], past: inout [(key: [UInt8], rows: Chunk, index: Int, count: Int32)]?) -> [Ranked] {
        var result: [Ranked] = []
        var start = prefix
        var position: Int64 = 0
        var currentRank: Int64 = 0
        var previous: (rows: Chunk, index: Int)?
        while true {
            let (runs, resume) = table.runs(withPrefix: prefix, from: start, limit: 1024)
            for run in runs {
                let rows = run.contents.rows
                for index in run.range {
                    let count = run.contents.counts?[index] ?? 1
                    let tied = rank != .rowNumber && previous.map { tie($0, (rows, index)) } == true
                    previous = (rows, index)
                    if !tied {
                        currentRank = rank == .denseRank ? currentRank + 1 : position + 1
                    }
                    // (Copies of one row tie with each other.)
                    let firstRank = rank == .rowNumber ? position + 1 : currentRank
                    if let upper, firstRank > upper {
                        guard past != nil else { return result }
                        past!.append((run.contents.keys.key(index), rows, index, count))
                        position += Int64(count)
                        continue
                    }
                    let key = run.contents.keys.key(index)
                    for copy in 0 ..< count {
                        position += 1
                        let value = rank == .rowNumber ? position : currentRank
                        if let upper, value > upper { break }
                        if value > Int64(lower) { result.append(Ranked(rows: rows, index: index, key: key, copy: copy, rank: value)) }
                    }
                }
            }
            guard let resume else { return result }
            start = resume
        }
    }

    mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        if !touched.isEmpty {
            var none: [(key: [UInt8], rows: Chunk, index: Int, count: Int32)]?
            let before = touched.map { ranking($0, past: &none) }
            table.commitEpoch()
            var deleted: [Ranked] = []
            var inserted: [Ranked] = []
            var removals: [(key: [UInt8], rows: Chunk, index: Int, count: Int32)] = []
            for (position, prefix) in touched.enumerated() {
                var past: [(key: [UInt8], rows: Chunk, index: Int, count: Int32)]? = appendOnly && upper != nil ? [] : nil
                let after = ranking(prefix, past: &past)
                let old = Set(before[position].map { Identity(key: $0.key, copy: $0.copy, rank: $0.rank) })
                let new = Set(after.map { Identity(key: $0.key, copy: $0.copy, rank: $0.rank) })
                deleted += before[position].filter { !new.contains(Identity(key: $0.key, copy: $0.copy, rank: $0.rank)) }
                inserted += after.filter { !old.contains(Identity(key: $0.key, copy: $0.copy, rank: $0.rank)) }
                removals += past ?? []
            }
            emit(deleted, op: .delete, into: &output)
            emit(inserted, op: .insert, into: &output)
            if !removals.isEmpty {
                // Rows past the bound of an append-only input never come back: they go.
                let rows = Chunk.gather(
                    from: removals.map(\.rows), picks: removals.indices.map { (Int32($0), Int32(removals[$0].index)) }, types: types)
                let keys = removals.map(\.key)
                table.stage(rows, counts: removals.map { -$0.count }) { bytes, row in bytes += keys[row] }
                table.commitEpoch()
            }
            touched = []
            touchedSet = []
        }
        if state.mode != .none { state.add(table.checkpoint(table: stateTableID, everything: state.mode == .everything)) }
    }

    private func emit(_ ranked: [Ranked], op: ChangeOp, into output: inout OutputBuffer) {
        guard !ranked.isEmpty else { return }
        var data = Chunk.gather(from: ranked.map(\.rows), picks: ranked.indices.map { (Int32($0), Int32(ranked[$0].index)) }, types: types)
        if emitsRank {
            data = Chunk(columns: data.columns + [Column(type: .int64, storage: .int64(ranked.map(\.rank)))], count: data.count)
        }
        output.append(StreamChunk(ops: [ChangeOp](repeating: op, count: ranked.count), data: data))
    }

    mutating func enableCheckpoints() { table.tracksChanges = true }

    mutating func useMemory(_ memory: StateMemory) { table.useMemory(memory) }

    mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try table.restore(from: tables, table: stateTableID)
    }

    var stateBytes: Int { table.byteCount }
}

extension TopNNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        StreamTopN(
            types: input.outputTypes, groupColumns: groupColumns, order: order, rank: rank, lower: lower, upper: upper, emitsRank: emitsRank,
            appendOnly: input.isAppendOnly, stateTableID: site.stateTableID)
    }
}
