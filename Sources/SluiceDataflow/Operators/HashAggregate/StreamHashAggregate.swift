import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// GROUP BY over a change stream, with retractable aggregates: inserts add to a group, deletes
/// take away, and at each barrier every group the epoch touched emits its change — an insert for
/// a new group, an update pair for a changed one, a delete for a group whose row count reached
/// zero. A global aggregate (no group keys) always has its one row, from the first barrier on.
///
/// Every aggregate is exact under any mix of inserts and deletes: count(*), count, sum, avg,
/// bool_and and bool_or keep counters; min and max, the DISTINCT forms of count, sum and avg, and
/// string_agg and array_agg (with or without ORDER BY) keep a multiset per group in ordered
/// state, so deleting the current minimum finds the next one with one ordered lookup. FILTER
/// applies to all of them. Results and NULLs are those of the batch executor's aggregates.
///
/// State: one table with a row per group — the group's key values, its row count, then each
/// aggregate's counters (``AggregateLayout``) — keyed by the memcomparable encoding of the key
/// values, with id `stateTableID`; and one table per ``OrderedAggregateState``, with ids
/// `stateTableID + 1`, `stateTableID + 2`, … in the order of the aggregates that first need
/// them (``stateTableIDs`` lists them all).
/// - Complexity: per input row, one group-key encoding and one dictionary probe, plus per
///   ordered state one entry-key encoding and O(log n) state-table work; per epoch, per changed
///   group, one state lookup, an O(log n) lookup per min or max, and a scan of the group's
///   entries per string_agg or array_agg (twice: the row before and after).
package struct StreamHashAggregate: StreamOperator {
    package let groupCount: Int
    package let aggregates: [AggregateCall]
    package let inputTypes: [DataType]
    private let table: StateTable
    let layouts: [AggregateLayout]
    let orderedStates: [OrderedAggregateState]
    /// Groups changed this epoch: their state row now and the output row they had before it.
    private var dirty: [[UInt8]: Int] = [:]
    /// The dirty groups' entries, where `dirty` points: changed in place, row after row.
    private var dirtyEntries: [(state: [Value], before: [Value]?)] = []
    private var emittedGlobalRow = false

    /// Refuses only string_agg and array_agg with DISTINCT and an ORDER BY over other columns
    /// than their arguments (which Postgres rejects too).
    ///
    /// With `appendOnlyInput` (the input never deletes: a source), min and max keep their
    /// current value in the group's row instead of an ordered multiset of every value.
    package init(
        inputTypes: [DataType], groupCount: Int, aggregates: [AggregateCall], stateTableID: Int, appendOnlyInput: Bool = false
    ) throws(SluiceError) {
        (layouts, orderedStates) = try Self.layOut(
            aggregates, inputTypes: inputTypes, groupCount: groupCount, stateTableID: stateTableID, appendOnly: appendOnlyInput)
        self.inputTypes = inputTypes
        self.groupCount = groupCount
        self.aggregates = aggregates
        self.table = StateTable(id: stateTableID)
    }

    /// The types of the output rows: the group keys, then one column per aggregate.
    package var outputTypes: [DataType] { Array(inputTypes.prefix(groupCount)) + aggregates.map(\.resultType) }

    /// The ids of the state tables this operator owns: `stateTableID` and the ordered states'.
    package var stateTableIDs: [Int] { [table.id] + orderedStates.map(\.table.id) }

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        let data = chunk.data
        let keyColumns = Array(data.columns.prefix(groupCount))
        // One key buffer for the chunk: looking a group up allocates nothing; only a group new
        // to the epoch stores a copy.
        var key: [UInt8] = []
        key.reserveCapacity(64)
        for rowIndex in 0 ..< data.count {
            let sign: Int64 = chunk.ops[rowIndex].isInsertion ? 1 : -1
            key.removeAll(keepingCapacity: true)
            for column in keyColumns { MemcomparableEncoding.append(column, row: rowIndex, to: &key) }
            let index: Int
            if let found = dirty[key] {
                index = found
            } else {
                index = dirtyEntries.count
                if let stored = table.get(key) {
                    // Read before this row touches the group's ordered state: the row as emitted.
                    dirtyEntries.append((stored, try outputRow(stored, groupKey: key)))
                } else {
                    dirtyEntries.append((initialState(keyColumns.map { $0.value(at: rowIndex) }), nil))
                }
                dirty[key] = index
            }
            // The group's state is moved out, changed and moved back: never copied. (Handing
            // `&dirtyEntries[index].state` to a method of `self` would make Swift copy `self`,
            // and with it this array, for every row.)
            var state: [Value] = []
            swap(&state, &dirtyEntries[index].state)
            try accumulate(&state, groupKey: key, data, rowIndex, sign: sign)
            swap(&state, &dirtyEntries[index].state)
        }
    }

    package mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        var changes = GroupChanges()
        if groupCount == 0 && !emittedGlobalRow && dirty.isEmpty && table.get([]) == nil {
            // The global row exists before any input, as in a batch aggregate over no rows.
            dirty[[]] = dirtyEntries.count
            dirtyEntries.append((initialState([]), nil))
        }
        for key in dirty.keys.sorted(by: { ByteOrder.compare($0, $1) < 0 }) {
            let (groupState, before) = dirtyEntries[dirty[key]!]
            let rowCount = groupState[groupCount].int64 ?? 0
            if rowCount < 0 { throw SluiceError.internalError("group row count went negative: a delete without its insert") }
            if rowCount == 0 && groupCount > 0 {
                for ordered in orderedStates where ordered.table.first(withPrefix: key) != nil {
                    throw SluiceError.internalError("ordered aggregate state outlived its group: a delete that does not match its insert")
                }
                table.delete(key)
                changes.record(before: before, after: nil)
                continue
            }
            table.put(key, groupState)
            changes.record(before: before, after: try outputRow(groupState, groupKey: key), isSame: Self.isIdentical)
        }
        dirty.removeAll(keepingCapacity: true)
        dirtyEntries.removeAll(keepingCapacity: true)
        if groupCount == 0 { emittedGlobalRow = true }
        table.commitEpoch(barrier.epoch)
        for ordered in orderedStates { ordered.table.commitEpoch(barrier.epoch) }
        if state.mode != .none {
            state.add(table.checkpoint(everything: state.mode == .everything))
            for ordered in orderedStates { state.add(ordered.table.checkpoint(everything: state.mode == .everything)) }
        }
        changes.emit(types: outputTypes, into: &output)
    }

    package mutating func enableCheckpoints() {
        table.tracksChanges = true
        for ordered in orderedStates { ordered.table.tracksChanges = true }
    }

    package mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        if let groups = try tables.section(table.id) { try table.restore(groups) }
        for ordered in orderedStates {
            if let entries = try tables.section(ordered.table.id) { try ordered.table.restore(entries) }
        }
        // A global aggregate's row was emitted once its state row exists.
        if groupCount == 0 && table.get([]) != nil { emittedGlobalRow = true }
    }

    /// Whether two output rows are the same down to how they display: `1.5` and `1.50` are equal
    /// values but not identical, and a change between them is emitted.
    static func isIdentical(_ lhs: [Value], _ rhs: [Value]) -> Bool {
        guard lhs == rhs else { return false }
        var (left, right): ([UInt8], [UInt8]) = ([], [])
        for (a, b) in zip(lhs, rhs) {
            MemcomparableEncoding.appendExactForm(a, to: &left)
            MemcomparableEncoding.appendExactForm(b, to: &right)
        }
        return left == right
    }

    /// A new group's state: its key values, a row count of zero, then each aggregate's counters
    /// at their start (counts 0, sums NULL).
    private func initialState(_ keys: [Value]) -> [Value] {
        var state = keys
        state.append(.int64(0))
        for (index, call) in aggregates.enumerated() {
            switch call.kind {
            case .count, .countStar: state.append(.int64(0))
            case .sum, .avg: state += [.null, .int64(0)]
            case .boolAnd, .boolOr: state += [.int64(0), .int64(0)]
            case .min, .max: if layouts[index].orderedState == nil { state.append(.null) }
            case .stringAgg, .arrayAgg: break
            }
        }
        return state
    }
}

extension Value {
    /// The integer of an `.int64` value.
    var int64: Int64? {
        if case .int64(let value) = self { return value }
        return nil
    }
}
