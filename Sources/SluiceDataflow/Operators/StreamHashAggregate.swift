import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// GROUP BY over a change stream, with retractable aggregates: inserts add to a group, deletes
/// take away, and at each barrier every group the epoch touched emits its change — an insert for
/// a new group, an update pair for a changed one, a delete for a group whose row count reached
/// zero. A global aggregate (no group keys) always has its one row, from the first barrier on.
///
/// State: one ``StateTable`` row per group — the group's key values, its row count, then each
/// aggregate's accumulator — keyed by the memcomparable encoding of the key values.
/// Supports count(*), count, sum and avg; min, max and the rest need ordered per-group state and
/// are refused at construction.
/// - Complexity: O(rows) per chunk plus one state lookup per group per epoch.
package struct StreamHashAggregate: StreamOperator {
    package let groupCount: Int
    package let aggregates: [AggregateCall]
    package let inputTypes: [DataType]
    private let table: StateTable
    /// Groups changed this epoch: their accumulator now and the output row they had before it.
    private var dirty: [[UInt8]: (state: [Value], before: [Value]?)] = [:]
    private var emittedGlobalRow = false

    package init(inputTypes: [DataType], groupCount: Int, aggregates: [AggregateCall], stateTableID: Int) throws(SluiceError) {
        for call in aggregates {
            switch call.kind {
            case .count, .countStar, .sum, .avg:
                if call.distinct || !call.orderBy.isEmpty {
                    throw SluiceError(.featureNotSupported, "\(call.kind.rawValue) with DISTINCT or ORDER BY is not supported in materialized views yet")
                }
            default:
                throw SluiceError(.featureNotSupported, "\(call.kind.rawValue) is not supported in materialized views yet")
            }
        }
        self.inputTypes = inputTypes
        self.groupCount = groupCount
        self.aggregates = aggregates
        self.table = StateTable(id: stateTableID)
    }

    /// The types of the output rows: the group keys, then one column per aggregate.
    package var outputTypes: [DataType] { Array(inputTypes.prefix(groupCount)) + aggregates.map(\.resultType) }

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        let data = chunk.data
        let keyColumns = Array(data.columns.prefix(groupCount))
        for rowIndex in 0 ..< data.count {
            let sign: Int64 = chunk.ops[rowIndex].isInsertion ? 1 : -1
            let key = MemcomparableEncoding.encode(keyColumns, row: rowIndex)
            var entry: (state: [Value], before: [Value]?)
            if let current = dirty[key] {
                entry = current
            } else if let stored = table.get(key) {
                entry = (stored, try outputRow(stored))
            } else {
                entry = (initialState(keyColumns.map { $0.value(at: rowIndex) }), nil)
            }
            try accumulate(&entry.state, data, rowIndex, sign: sign)
            dirty[key] = entry
        }
    }

    package mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        var ops: [ChangeOp] = []
        var rows: [[Value]] = []
        if groupCount == 0 && !emittedGlobalRow && dirty.isEmpty && table.get([]) == nil {
            // The global row exists before any input, as in a batch aggregate over no rows.
            dirty[[]] = (initialState([]), nil)
        }
        for key in dirty.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let (groupState, before) = dirty[key]!
            let rowCount = groupState[groupCount].int64 ?? 0
            if rowCount < 0 { throw SluiceError.internalError("group row count went negative: a delete without its insert") }
            if rowCount == 0 && groupCount > 0 {
                table.delete(key)
                if let before {
                    ops.append(.delete)
                    rows.append(before)
                }
                continue
            }
            table.put(key, groupState)
            let after = try outputRow(groupState)
            if let before {
                if before != after {
                    ops += [.updateDelete, .updateInsert]
                    rows += [before, after]
                }
            } else {
                ops.append(.insert)
                rows.append(after)
            }
        }
        dirty.removeAll(keepingCapacity: true)
        if groupCount == 0 { emittedGlobalRow = true }
        state.record(table.commitEpoch(barrier.epoch))
        if rows.isEmpty { return }
        let types = outputTypes
        var builders = types.map { ColumnBuilder(type: $0, capacity: rows.count) }
        for row in rows {
            for (index, value) in row.enumerated() { builders[index].append(value) }
        }
        output.append(StreamChunk(ops: ops, data: Chunk(columns: builders.map { $0.finish() })))
    }

    // MARK: Accumulators

    /// A group's state: its key values, its row count, then per aggregate
    /// count → [non-null count]; sum → [sum, non-null count]; avg → [sum, non-null count].
    private func initialState(_ keys: [Value]) -> [Value] {
        var state = keys
        state.append(.int64(0))
        for call in aggregates {
            switch call.kind {
            case .count, .countStar: state.append(.int64(0))
            default:
                state.append(.null)
                state.append(.int64(0))
            }
        }
        return state
    }

    private func accumulate(_ state: inout [Value], _ data: Chunk, _ rowIndex: Int, sign: Int64) throws(SluiceError) {
        state[groupCount] = .int64((state[groupCount].int64 ?? 0) + sign)
        var slot = groupCount + 1
        for call in aggregates {
            if let filter = call.filter, data.columns[filter].value(at: rowIndex) != .bool(true) {
                slot += call.kind == .count || call.kind == .countStar ? 1 : 2
                continue
            }
            switch call.kind {
            case .countStar:
                state[slot] = .int64((state[slot].int64 ?? 0) + sign)
                slot += 1
            case .count:
                if !data.columns[call.argument!].isNull(rowIndex) { state[slot] = .int64((state[slot].int64 ?? 0) + sign) }
                slot += 1
            default:
                let value = data.columns[call.argument!].value(at: rowIndex)
                if !value.isNull {
                    state[slot] = try AggregateArithmetic.add(state[slot], value, sign: sign)
                    state[slot + 1] = .int64((state[slot + 1].int64 ?? 0) + sign)
                }
                slot += 2
            }
        }
    }

    /// The output row for a group state: keys, then each aggregate's value.
    private func outputRow(_ state: [Value]) throws(SluiceError) -> [Value] {
        var row = Array(state.prefix(groupCount))
        var slot = groupCount + 1
        for call in aggregates {
            switch call.kind {
            case .count, .countStar:
                row.append(state[slot])
                slot += 1
            case .sum:
                let nonNull = state[slot + 1].int64 ?? 0
                row.append(nonNull == 0 ? .null : try AggregateArithmetic.finish(state[slot], as: call.resultType))
                slot += 2
            default:
                let nonNull = state[slot + 1].int64 ?? 0
                row.append(nonNull == 0 ? .null : try AggregateArithmetic.average(state[slot], count: nonNull))
                slot += 2
            }
        }
        return row
    }
}

extension Value {
    /// The integer of an `.int64` value.
    fileprivate var int64: Int64? {
        if case .int64(let value) = self { return value }
        return nil
    }
}
