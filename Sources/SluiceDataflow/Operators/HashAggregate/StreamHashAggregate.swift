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
/// State: a typed paged state table (``PagedTable``) with a row per group — the group's key
/// values, its row count, then each aggregate's counters (``AggregateLayout``) — keyed by a
/// vnode and the memcomparable encoding of the key values, with id `stateTableID`; and one
/// table per ``OrderedAggregateState`` (``OrderedEntries``), with ids `stateTableID + 1`,
/// `stateTableID + 2`, … in the order of the aggregates that first need them
/// (``stateTableIDs`` lists them all). All are checkpointed page by page, restored lazily and
/// evicted under `--memory-limit`; the groups an epoch touches are held as rows until its
/// barrier.
/// - Complexity: per input row, one group-key encoding and one dictionary probe, plus per
///   ordered state one entry-key encoding and a dictionary probe (a page lookup the first time
///   an entry changes in the epoch); per epoch, per changed group, one page lookup, a page read
///   per min or max, and a read of the group's entries per string_agg or array_agg (twice: the
///   row before and after).
package struct StreamHashAggregate: StreamOperator {
    package let groupCount: Int
    package let aggregates: [AggregateCall]
    package let inputTypes: [DataType]
    let stateTableID: Int
    /// The column types of a group's state row.
    let stateTypes: [DataType]
    private var groups: PagedTable
    let layouts: [AggregateLayout]
    let orderedStates: [OrderedAggregateState]
    /// Groups changed this epoch, by state key: where their entry is in `dirtyEntries`.
    private var dirty: [[UInt8]: Int] = [:]
    /// The dirty groups' state rows now, the output rows they had before the epoch (nil for a
    /// group new to it), changed in place, row after row.
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
        (layouts, orderedStates, stateTypes) = try Self.layOut(
            aggregates, inputTypes: inputTypes, groupCount: groupCount, stateTableID: stateTableID, appendOnly: appendOnlyInput)
        self.inputTypes = inputTypes
        self.groupCount = groupCount
        self.aggregates = aggregates
        self.stateTableID = stateTableID
        self.groups = PagedTable(types: stateTypes)
    }

    /// The types of the output rows: the group keys, then one column per aggregate.
    package var outputTypes: [DataType] { Array(inputTypes.prefix(groupCount)) + aggregates.map(\.resultType) }

    /// The ids of the state tables this operator owns: `stateTableID` and the ordered states'.
    package var stateTableIDs: [Int] { [stateTableID] + orderedStates.map(\.entries.id) }

    /// The global aggregate's state key: the vnode of no key values.
    private static let globalKey: [UInt8] = {
        var key: [UInt8] = []
        appendVnode(to: &key, from: 0)
        return key
    }()

    /// Writes the vnode of `key[start + 2...]` into `key[start]` and `key[start + 1]` (appended
    /// as zeros first when `key` ends at `start`).
    private static func appendVnode(to key: inout [UInt8], from start: Int) {
        if key.count < start + 2 { key += [0, 0] }
        let vnode = key.withUnsafeBufferPointer { VirtualNode.of(UnsafeBufferPointer(rebasing: $0[(start + 2)...])) }
        key[start] = UInt8(vnode >> 8)
        key[start + 1] = UInt8(vnode & 0xFF)
    }

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
            key += [0, 0]
            for column in keyColumns { MemcomparableEncoding.append(column, row: rowIndex, to: &key) }
            Self.appendVnode(to: &key, from: 0)
            let index: Int
            if let found = dirty[key] {
                index = found
            } else {
                index = dirtyEntries.count
                if let stored = groups.lookup(key) {
                    // Read before this row touches the group's ordered state: the row as emitted.
                    let row = stored.row.row(0)
                    dirtyEntries.append((row, try outputRow(row, groupKey: key)))
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
        if groupCount == 0 && !emittedGlobalRow && dirty.isEmpty && groups.lookup(Self.globalKey) == nil {
            // The global row exists before any input, as in a batch aggregate over no rows.
            dirty[Self.globalKey] = dirtyEntries.count
            dirtyEntries.append((initialState([]), nil))
        }
        // The ordered states first: the groups' output rows read their committed entries.
        for ordered in orderedStates { ordered.entries.commit() }
        var builders = stateTypes.map { ColumnBuilder(type: $0, capacity: dirty.count) }
        var keys: [[UInt8]] = []
        var counts: [Int32] = []
        for key in dirty.keys.sorted(by: { ByteOrder.compare($0, $1) < 0 }) {
            let (groupState, before) = dirtyEntries[dirty[key]!]
            let existed = before != nil
            let rowCount = groupState[groupCount].int64 ?? 0
            if rowCount < 0 { throw SluiceError.internalError("group row count went negative: a delete without its insert") }
            if rowCount == 0 && groupCount > 0 {
                for ordered in orderedStates where ordered.entries.hasEntries(withPrefix: key) {
                    throw SluiceError.internalError("ordered aggregate state outlived its group: a delete that does not match its insert")
                }
                if existed {
                    keys.append(key)
                    counts.append(-1)
                    for column in builders.indices { builders[column].append(groupState[column]) }
                }
                changes.record(before: before, after: nil)
                continue
            }
            // A group new to the table comes in (+1); one it holds is replaced in place (0).
            keys.append(key)
            counts.append(existed ? 0 : 1)
            for column in builders.indices { builders[column].append(groupState[column]) }
            changes.record(before: before, after: try outputRow(groupState, groupKey: key), isSame: Self.isIdentical)
        }
        if !keys.isEmpty {
            let rows = Chunk(columns: builders.map { $0.finish() }, count: keys.count)
            groups.stage(rows, counts: counts) { bytes, row in bytes += keys[row] }
        }
        dirty.removeAll(keepingCapacity: true)
        dirtyEntries.removeAll(keepingCapacity: true)
        if groupCount == 0 { emittedGlobalRow = true }
        groups.commitEpoch()
        if state.mode != .none {
            let everything = state.mode == .everything
            state.add(groups.checkpoint(table: stateTableID, everything: everything))
            for ordered in orderedStates { state.add(ordered.entries.checkpoint(everything: everything)) }
        }
        changes.emit(types: outputTypes, into: &output)
    }

    package mutating func enableCheckpoints() {
        groups.tracksChanges = true
        for ordered in orderedStates { ordered.entries.tracksChanges = true }
    }

    package mutating func useMemory(_ memory: StateMemory) {
        groups.useMemory(memory)
        for ordered in orderedStates { ordered.entries.useMemory(memory) }
    }

    package mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try groups.restore(from: tables, table: stateTableID)
        for ordered in orderedStates { try ordered.entries.restore(tables) }
        // A global aggregate's row was emitted once its state row exists.
        if groupCount == 0 && groups.lookup(Self.globalKey) != nil { emittedGlobalRow = true }
    }

    package var stateBytes: Int { orderedStates.reduce(groups.byteCount) { $0 + $1.entries.table.byteCount } }

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

extension HashAggregateNode: StreamOperatorNode {
    /// The integer aggregate where it applies (integer keys and counters), else the general one.
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        let types = input.outputTypes
        if IntegerHashAggregate.supports(inputTypes: types, groupCount: groupCount, aggregates: aggregates) {
            return try IntegerHashAggregate(
                inputTypes: types, groupCount: groupCount, aggregates: aggregates, stateTableID: site.stateTableID,
                appendOnlyInput: input.isAppendOnly)
        }
        return try StreamHashAggregate(
            inputTypes: types, groupCount: groupCount, aggregates: aggregates, stateTableID: site.stateTableID,
            appendOnlyInput: input.isAppendOnly)
    }
}
