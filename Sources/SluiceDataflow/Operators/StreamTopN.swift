import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Top-N per group over a change stream (``TopNNode``): every row is kept in ordered state,
/// and at each barrier every group the epoch touched compares the ranked rows it showed before
/// the epoch with those it shows now, and emits the difference: deletes of rows that left the
/// range or changed rank, inserts of rows that entered it or took a new rank.
///
/// State: the input rows in an ``OrderedPartitionState`` (id `stateTableID`) partitioned by
/// the group columns: a group's ranked rows are a range read from its prefix. Over an
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
    private var state: OrderedPartitionState
    /// State cleaning behind a watermark on a group column; nil when none has one.
    var cleaning: WatermarkCleaning?
    /// Watermarks on group columns, passed on at the barrier after the rows they follow.
    private var heldWatermarks: [Watermark] = []

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
        state = OrderedPartitionState(partitionColumns: groupColumns, order: order, types: types, stateTableID: stateTableID)
    }

    mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        var chunk = chunk
        if let cleaning {
            // Rows of groups already cleaned away come too late to rank.
            guard let kept = cleaning.dropLate(chunk) else { return }
            chunk = kept
        }
        state.stage(chunk)
    }

    /// A watermark on a group column holds for the same output column: the groups behind it
    /// change no more.
    mutating func advance(to watermark: Watermark, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        guard groupColumns.contains(watermark.column) else { return }
        heldWatermarks.removeAll { $0.column == watermark.column }
        heldWatermarks.append(watermark)
        cleaning?.receive(watermark)
    }

    /// One copy of a stored row in a group's ranking.
    private struct Ranked {
        var rows: Chunk
        var index: Int
        var key: [UInt8]
        var copy: Int32
        var rank: Int64

        /// What tells ranked rows apart when two rankings are compared.
        var identity: Identity { Identity(key: key, copy: copy, rank: rank) }
    }

    private struct Identity: Hashable {
        var key: [UInt8]
        var copy: Int32
        var rank: Int64
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
            let (runs, resume) = state.table.runs(withPrefix: prefix, from: start, limit: 1024)
            for run in runs {
                let rows = run.contents.rows
                for index in run.range {
                    let count = run.contents.counts?[index] ?? 1
                    let tied = rank != .rowNumber && previous.map { state.tie($0.rows, $0.index, rows, index) } == true
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

    mutating func finishEpoch(_ barrier: Barrier, state writer: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        let touched = state.touched
        if !touched.isEmpty {
            var none: [(key: [UInt8], rows: Chunk, index: Int, count: Int32)]?
            let before = touched.map { ranking($0, past: &none) }
            state.commit()
            var deleted: [Ranked] = []
            var inserted: [Ranked] = []
            var removals: [(key: [UInt8], rows: Chunk, index: Int, count: Int32)] = []
            for (position, prefix) in touched.enumerated() {
                var past: [(key: [UInt8], rows: Chunk, index: Int, count: Int32)]? = appendOnly && upper != nil ? [] : nil
                let after = ranking(prefix, past: &past)
                let old = Set(before[position].map(\.identity))
                let new = Set(after.map(\.identity))
                deleted += before[position].filter { !new.contains($0.identity) }
                inserted += after.filter { !old.contains($0.identity) }
                removals += past ?? []
            }
            emit(deleted, op: .delete, into: &output)
            emit(inserted, op: .insert, into: &output)
            if !removals.isEmpty {
                // Rows past the bound of an append-only input never come back: they go.
                let rows = Chunk.gather(
                    from: removals.map(\.rows), picks: removals.indices.map { (Int32($0), Int32(removals[$0].index)) }, types: types)
                state.remove(rows, keys: removals.map(\.key), counts: removals.map(\.count))
            }
        }
        if let below = cleaning?.takeTarget() { state.removeRows(whereColumn: cleaning!.column, below: below) }
        for watermark in heldWatermarks { output.emit(watermark) }
        heldWatermarks = []
        state.checkpoint(into: &writer)
        if writer.mode != .none, var cleaning {
            writer.add(cleaning.checkpoint(everything: writer.mode == .everything))
            self.cleaning = cleaning
        }
    }

    private func emit(_ ranked: [Ranked], op: ChangeOp, into output: inout OutputBuffer) {
        guard !ranked.isEmpty else { return }
        var data = Chunk.gather(from: ranked.map(\.rows), picks: ranked.indices.map { (Int32($0), Int32(ranked[$0].index)) }, types: types)
        if emitsRank {
            data = Chunk(columns: data.columns + [Column(type: .int64, storage: .int64(ranked.map(\.rank)))], count: data.count)
        }
        output.append(StreamChunk(ops: [ChangeOp](repeating: op, count: ranked.count), data: data))
    }

    mutating func enableCheckpoints() {
        state.enableCheckpoints()
        cleaning?.progress.enableCheckpoints()
    }

    mutating func useMemory(_ memory: StateMemory) {
        state.useMemory(memory)
        cleaning?.progress.useMemory(memory)
    }

    mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try state.restore(tables)
        try cleaning?.restore(tables)
    }

    var stateBytes: Int { state.stateBytes }
}

extension TopNNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        var topN = StreamTopN(
            types: input.outputTypes, groupColumns: groupColumns, order: order, rank: rank, lower: lower, upper: upper, emitsRank: emitsRank,
            appendOnly: input.isAppendOnly, stateTableID: site.stateTableID)
        if let column = input.watermarkColumns.first(where: groupColumns.contains) {
            topN.cleaning = WatermarkCleaning(column: column, type: input.outputTypes[column], stateTableID: site.stateTableID + 99)
        }
        return topN
    }
}
