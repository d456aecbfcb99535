import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Window functions over partitions in a view (``OverWindowNode``): every input row is kept in
/// ordered state, and at each barrier every partition the epoch touched is evaluated as it was
/// before the epoch and as it is now (``OverWindowEvaluation``, what a query runs), and the
/// difference is emitted: deletes of the rows whose values changed or that left, inserts of
/// their new versions and of new rows.
///
/// State: the input rows in an ``OrderedPartitionState`` (id `stateTableID`): a partition is
/// a range read.
/// - Complexity: per input row, one key encoding; per epoch, per touched partition, two reads
///   and evaluations of the whole partition (a partition that only grows, as a rolling window
///   over a source's history, costs more each time it is touched).
struct StreamOverWindow: StreamOperator {
    let types: [DataType]
    let partitionColumns: [Int]
    let order: [SortKey]
    let calls: [WindowCall]
    let context: EvaluationContext
    private var state: OrderedPartitionState

    init(types: [DataType], partitionColumns: [Int], order: [SortKey], calls: [WindowCall], context: EvaluationContext, stateTableID: Int) {
        self.types = types
        self.partitionColumns = partitionColumns
        self.order = order
        self.calls = calls
        self.context = context
        state = OrderedPartitionState(partitionColumns: partitionColumns, order: order, types: types, stateTableID: stateTableID)
    }

    mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        state.stage(chunk)
    }

    /// A partition's rows (each copy of a counted row), with their values, and what tells each
    /// output row apart: its key, its copy, and its values' encoding.
    private func evaluate(_ prefix: [UInt8]) throws(SluiceError) -> (rows: Chunk, identities: [[UInt8]]) {
        var sources: [Chunk] = []
        var picks: [(source: Int32, row: Int32)] = []
        var keys: [[UInt8]] = []
        var copies: [Int32] = []
        for run in state.table.runs(withPrefix: prefix) {
            sources.append(run.contents.rows)
            for index in run.range {
                let key = run.contents.keys.key(index)
                for copy in 0 ..< (run.contents.counts?[index] ?? 1) {
                    picks.append((Int32(sources.count - 1), Int32(index)))
                    keys.append(key)
                    copies.append(copy)
                }
            }
        }
        guard !picks.isEmpty else { return (Chunk(columns: types.map { Column(type: $0, values: []) }, count: 0), []) }
        let rows = Chunk.gather(from: sources, picks: picks, types: types)
        let values = try OverWindowEvaluation.evaluate(calls, over: rows, order: order, context: context)
        var identities: [[UInt8]] = []
        identities.reserveCapacity(rows.count)
        for row in 0 ..< rows.count {
            var identity = keys[row]
            MemcomparableEncoding.appendBigEndianCopy(copies[row], to: &identity)
            for column in values {
                MemcomparableEncoding.append(column, row: row, to: &identity)
                MemcomparableEncoding.appendExactForm(column, row: row, to: &identity)
            }
            identities.append(identity)
        }
        return (Chunk(columns: rows.columns + values, count: rows.count), identities)
    }

    mutating func finishEpoch(_ barrier: Barrier, state writer: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        let touched = state.touched
        if !touched.isEmpty {
            var before: [(rows: Chunk, identities: [[UInt8]])] = []
            for prefix in touched { before.append(try evaluate(prefix)) }
            state.commit()
            for (position, prefix) in touched.enumerated() {
                let after = try evaluate(prefix)
                let old = Set(before[position].identities)
                let new = Set(after.identities)
                let gone = before[position].identities.indices.filter { !new.contains(before[position].identities[$0]) }
                let came = after.identities.indices.filter { !old.contains(after.identities[$0]) }
                if !gone.isEmpty {
                    output.append(StreamChunk(ops: [ChangeOp](repeating: .delete, count: gone.count), data: before[position].rows.gather(gone)))
                }
                if !came.isEmpty {
                    output.append(StreamChunk(ops: [ChangeOp](repeating: .insert, count: came.count), data: after.rows.gather(came)))
                }
            }
        }
        state.checkpoint(into: &writer)
    }

    mutating func enableCheckpoints() { state.enableCheckpoints() }

    mutating func useMemory(_ memory: StateMemory) { state.useMemory(memory) }

    mutating func restore(_ tables: RestoredTables) throws(SluiceError) { try state.restore(tables) }

    var stateBytes: Int { state.stateBytes }
}

extension MemcomparableEncoding {
    /// Appends a copy number, big-endian.
    static func appendBigEndianCopy(_ copy: Int32, to out: inout [UInt8]) {
        let value = UInt32(bitPattern: copy)
        out += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

extension OverWindowNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        StreamOverWindow(
            types: input.outputTypes, partitionColumns: partitionColumns, order: order, calls: calls, context: site.context,
            stateTableID: site.stateTableID)
    }
}
