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
/// evicted under `--memory-limit`.
///
/// Within an epoch, the groups it touches get dense slots, and each aggregate's counters are
/// its function's ``AggregateAccumulator`` (the batch executor's), loaded from a group's row
/// when the epoch first touches it and updated a chunk at a time; a second set, loaded alike
/// and never updated, gives what the group showed before the epoch. At the barrier the slots'
/// counters are written back as the groups' rows.
/// - Complexity: per input row, one group-key encoding and one dictionary probe, plus per
///   ordered state one entry-key encoding and a dictionary probe (a page lookup the first time
///   an entry changes in the epoch); per chunk, one accumulator update per aggregate; per
///   epoch, per changed group, one page lookup, a page read per min or max, and a read of the
///   group's entries per string_agg or array_agg (twice: before and after).
package struct StreamHashAggregate: StreamOperator {
    package let groupCount: Int
    package let aggregates: [AggregateCall]
    package let inputTypes: [DataType]
    let stateTableID: Int
    /// The column types of a group's state row.
    let stateTypes: [DataType]
    var groups: PagedTable
    let layouts: [AggregateLayout]
    let orderedStates: [OrderedAggregateState]
    /// Per aggregate: its counters for the groups touched this epoch, by slot (nil for an
    /// aggregate that reads only ordered state), and the same holding what they were before it.
    let counters: [(any AggregateAccumulator)?]
    private let countersBefore: [(any AggregateAccumulator)?]
    /// The groups touched this epoch: each one's slot by state key, and by slot its state key,
    /// key values, row count, whether the table held it, and (when some aggregate reads ordered
    /// state) those aggregates' results before the epoch.
    private var dirty: [[UInt8]: Int32] = [:]
    private var dirtyKeys: [[UInt8]] = []
    private var keyBuilders: [ColumnBuilder]
    private var rowCounts: [Int64] = []
    private var existed: [Bool] = []
    private var orderedBefore: [ColumnBuilder] = []
    private let readsOrderedState: Bool
    private var emittedGlobalRow = false
    /// Watermarks on group columns, passed on at the barrier after the changes they follow
    /// (the groups' changes are emitted only then).
    private var heldWatermarks: [Watermark] = []
    /// State cleaning behind a watermark on a group column (nil: none); see
    /// ``removeGroups(below:)``.
    var cleaning: WatermarkCleaning?

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
        counters = zip(aggregates, layouts).map { call, layout in
            layout.hasCounters ? AggregateLayout.counters(of: call, inputTypes: inputTypes) : nil
        }
        countersBefore = zip(aggregates, layouts).map { call, layout in
            layout.hasCounters ? AggregateLayout.counters(of: call, inputTypes: inputTypes) : nil
        }
        readsOrderedState = counters.contains { $0 == nil }
        keyBuilders = inputTypes.prefix(groupCount).map { ColumnBuilder(type: $0, capacity: 0) }
        orderedBefore = orderedResultTypes.map { ColumnBuilder(type: $0, capacity: 0) }
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
        var chunk = chunk
        if let cleaning {
            // Rows of groups already cleaned away come too late to count.
            guard let kept = cleaning.dropLate(chunk) else { return }
            chunk = kept
        }
        let data = chunk.data
        let rowCount = data.count
        let keyColumns = Array(data.columns.prefix(groupCount))
        var slots = [Int32](repeating: 0, count: rowCount)
        var signs = [Int8](repeating: 1, count: rowCount)
        var deletes = false
        var distinct = orderedStates.map { ordered -> DistinctChanges in
            guard case .distinctValues(let argument, _) = ordered.shape else { return DistinctChanges(type: .int64) }
            return DistinctChanges(type: inputTypes[argument])
        }
        // One key buffer for the chunk: looking a group up allocates nothing; only a group new
        // to the epoch stores a copy.
        var key: [UInt8] = []
        key.reserveCapacity(64)
        /// Each row's group key, for the ordered states.
        var rowKeys = KeyBuffer()
        for rowIndex in 0 ..< rowCount {
            let sign: Int8 = chunk.ops[rowIndex].isInsertion ? 1 : -1
            if sign < 0 {
                signs[rowIndex] = -1
                deletes = true
            }
            key.removeAll(keepingCapacity: true)
            key += [0, 0]
            for column in keyColumns { MemcomparableEncoding.append(column, row: rowIndex, to: &key) }
            Self.appendVnode(to: &key, from: 0)
            let slot: Int32
            if let found = dirty[key] {
                slot = found
            } else {
                slot = try touch(key) { builder, column in builder.append(keyColumns[column], row: rowIndex) }
            }
            slots[rowIndex] = slot
            rowCounts[Int(slot)] += Int64(sign)
            if !orderedStates.isEmpty { rowKeys.append(key) }
        }
        if !orderedStates.isEmpty { try accumulateOrdered(groupKeys: rowKeys, slots: slots, data, signs: signs, distinct: &distinct) }
        let touched = dirtyKeys.count
        var filtered: [Int: [Int]] = [:]
        for (index, call) in aggregates.enumerated() where layouts[index].foldsEveryRow {
            guard let counters = counters[index] else { continue }
            var rows: [Int]?
            if let filter = call.filter {
                if filtered[filter] == nil {
                    filtered[filter] = (0 ..< rowCount).filter { Self.isTrue(data.columns[filter], $0) }
                }
                rows = filtered[filter]
            }
            try counters.update(
                groups: slots, rowCount: rowCount, groupCount: touched, argument: call.argument.map { data.columns[$0] }, delimiter: nil,
                signs: deletes ? signs : nil, rows: rows)
        }
        for (stateIndex, changes) in distinct.enumerated() where !changes.slots.isEmpty {
            let values = changes.values.finish()
            for consumer in orderedStates[stateIndex].distinctConsumers {
                try counters[consumer]?.update(
                    groups: changes.slots, rowCount: changes.slots.count, groupCount: touched, argument: values, delimiter: nil,
                    signs: changes.signs, rows: nil)
            }
        }
    }

    /// Gives the group under state key `key`, new to this epoch, the next slot: its counters
    /// loaded from the group's row where the table holds it, else its key values taken by
    /// `appendKey` (column by column) and its counters at their start.
    private mutating func touch(_ key: [UInt8], appendKey: (inout ColumnBuilder, Int) -> Void) throws(SluiceError) -> Int32 {
        let slot = Int32(dirtyKeys.count)
        dirtyKeys.append(key)
        dirty[key] = slot
        guard let stored = groups.find(key) else {
            for column in keyBuilders.indices { appendKey(&keyBuilders[column], column) }
            rowCounts.append(0)
            existed.append(false)
            for index in orderedBefore.indices { orderedBefore[index].appendNull() }
            return slot
        }
        // (Read in place in the page: a one-row copy per group cost more than the group.)
        let columns = stored.contents.rows.columns
        let row = stored.index
        for column in keyBuilders.indices { keyBuilders[column].append(columns[column], row: row) }
        rowCounts.append(columns[groupCount].isNull(row) ? 0 : (columns[groupCount].value(at: row).int64 ?? 0))
        existed.append(true)
        for (index, layout) in layouts.enumerated() where layout.hasCounters {
            try counters[index]?.loadState(group: Int(slot), from: columns, at: layout.slot, row: row)
            try countersBefore[index]?.loadState(group: Int(slot), from: columns, at: layout.slot, row: row)
        }
        // Read before this epoch touches the group's ordered state: the results as emitted.
        if readsOrderedState {
            // Moved out while appending: passing the stored builders inout beside a read of
            // `self` would copy their buffers at every group.
            var results = orderedBefore
            orderedBefore = []
            defer { orderedBefore = results }
            try appendOrderedResults(groupKey: key, to: &results)
        }
        return slot
    }

    /// A watermark on a group column holds for the same output column: later rows only touch
    /// groups at or past it.
    package mutating func advance(to watermark: Watermark, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        guard watermark.column < groupCount else { return }
        heldWatermarks.removeAll { $0.column == watermark.column }
        heldWatermarks.append(watermark)
        cleaning?.receive(watermark)
    }

    package mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        defer {
            for watermark in heldWatermarks { output.emit(watermark) }
            heldWatermarks = []
        }
        if groupCount == 0 && !emittedGlobalRow && dirty.isEmpty && groups.lookup(Self.globalKey) == nil {
            // The global row exists before any input, as in a batch aggregate over no rows.
            _ = try touch(Self.globalKey) { _, _ in }
        }
        // The ordered states first: the groups' output rows read their committed entries.
        for ordered in orderedStates { ordered.entries.commit() }
        if !dirtyKeys.isEmpty { try writeTouchedGroups(into: &output) }
        forgetTouchedGroups()
        if groupCount == 0 { emittedGlobalRow = true }
        groups.commitEpoch()
        if let below = cleaning?.takeTarget() { try removeGroups(below: below) }
        if state.mode != .none {
            let everything = state.mode == .everything
            state.add(groups.checkpoint(table: stateTableID, everything: everything))
            for ordered in orderedStates { state.add(ordered.entries.checkpoint(everything: everything)) }
            if var cleaning { state.add(cleaning.checkpoint(everything: everything)); self.cleaning = cleaning }
        }
    }

    /// Stages the touched groups' state rows in key order and emits their changes: an insert
    /// for a new group, an update pair for a changed one, a delete for one that is gone. Rows
    /// are gathered column by column from the epoch's typed columns (keys, counters before and
    /// after, ordered results before and after), never built a row at a time.
    private mutating func writeTouchedGroups(into output: inout OutputBuffer) throws(SluiceError) {
        let touched = dirtyKeys.count
        let keyColumns = keyBuilders.map { $0.finish() }
        let after = try counters.map { (counters) throws(SluiceError) -> Column? in try counters?.finish(groupCount: touched) }
        let before = try countersBefore.map { (counters) throws(SluiceError) -> Column? in try counters?.finish(groupCount: touched) }
        let orderedBeforeColumns = orderedBefore.map { $0.finish() }
        var orderedAfter = orderedResultTypes.map { ColumnBuilder(type: $0, capacity: touched) }
        var builders = stateTypes.map { ColumnBuilder(type: $0, capacity: touched) }
        /// The state rows to stage: each group's slot and its count change.
        var stateSlots: [Int] = []
        var counts: [Int32] = []
        /// The groups in key order: slot, and row of `orderedAfter` (-1: the group is gone).
        var groupsInOrder: [(slot: Int32, orderedRow: Int32)] = []
        var touchedKeys = KeyBuffer(reservingKeys: touched, bytes: touched * 16)
        for key in dirtyKeys { touchedKeys.append(key) }
        for slot in touchedKeys.sortedOrder().lazy.map(Int.init) {
            let key = dirtyKeys[slot]
            let rowCount = rowCounts[slot]
            if rowCount < 0 { throw SluiceError.internalError("group row count went negative: a delete without its insert") }
            if rowCount == 0 && groupCount > 0 {
                for ordered in orderedStates where ordered.entries.hasEntries(withPrefix: key) {
                    throw SluiceError.internalError("ordered aggregate state outlived its group: a delete that does not match its insert")
                }
                if existed[slot] {
                    counts.append(-1)
                    stateSlots.append(slot)
                    appendStateRow(slot, rowCount: rowCount, to: &builders)
                    groupsInOrder.append((Int32(slot), -1))
                }
                continue
            }
            // A group new to the table comes in (+1); one it holds is replaced in place (0).
            counts.append(existed[slot] ? 0 : 1)
            stateSlots.append(slot)
            appendStateRow(slot, rowCount: rowCount, to: &builders)
            groupsInOrder.append((Int32(slot), Int32(orderedAfter.first?.count ?? 0)))
            if readsOrderedState { try appendOrderedResults(groupKey: key, to: &orderedAfter) }
        }
        if !stateSlots.isEmpty {
            var columns = builders.map { $0.finish() }
            for column in 0 ..< groupCount { columns[column] = keyColumns[column].gather(stateSlots) }
            let dirtyKeys = dirtyKeys
            groups.stage(Chunk(columns: columns, count: stateSlots.count), counts: counts) { bytes, row in
                bytes += dirtyKeys[stateSlots[row]]
            }
        }
        let orderedAfterColumns = orderedAfter.map { $0.finish() }
        // Per output column, its sources: 0 the value before the epoch, 1 after (keys: one).
        var sources: [[Column]] = keyColumns.map { [$0] }
        var isOrdered: [Bool] = Array(repeating: false, count: groupCount)
        var nextOrdered = 0
        for index in aggregates.indices {
            if let after = after[index], let before = before[index] {
                sources.append([before, after])
                isOrdered.append(false)
            } else {
                sources.append([orderedBeforeColumns[nextOrdered], orderedAfterColumns[nextOrdered]])
                isOrdered.append(true)
                nextOrdered += 1
            }
        }
        // The changes, in key order as the state rows: each pick is (0 before | 1 after, slot,
        // row of the ordered results after).
        var ops: [ChangeOp] = []
        var picks: [(side: Int32, slot: Int32, orderedRow: Int32)] = []
        for group in groupsInOrder {
            let slot = Int(group.slot)
            if group.orderedRow < 0 {
                ops.append(.delete)
                picks.append((0, group.slot, group.slot))
                continue
            }
            guard existed[slot] else {
                ops.append(.insert)
                picks.append((1, group.slot, group.orderedRow))
                continue
            }
            var same = true
            for column in groupCount ..< sources.count where same {
                let afterRow = isOrdered[column] ? Int(group.orderedRow) : slot
                same = sources[column][0].isIdentical(slot, to: sources[column][1], afterRow)
            }
            if same { continue }
            ops += [.updateDelete, .updateInsert]
            picks += [(0, group.slot, group.slot), (1, group.slot, group.orderedRow)]
        }
        let types = outputTypes
        var start = 0
        while start < ops.count {
            var end = min(ops.count, start + Chunk.preferredSize)
            // An update's two halves stay in one chunk.
            if end < ops.count && ops[end - 1] == .updateDelete { end -= 1 }
            let range = start ..< end
            let keyPicks = picks[range].map { (source: Int32(0), row: $0.slot) }
            let counterPicks = picks[range].map { (source: $0.side, row: $0.slot) }
            let orderedPicks = picks[range].map { (source: $0.side, row: $0.side == 0 ? $0.slot : $0.orderedRow) }
            let columns = sources.indices.map { column in
                Column.gather(
                    from: sources[column], picks: column < groupCount ? keyPicks : isOrdered[column] ? orderedPicks : counterPicks,
                    type: types[column])
            }
            output.append(StreamChunk(ops: Array(ops[range]), data: Chunk(columns: columns, count: range.count)))
            start = end
        }
    }

    /// Appends slot `slot`'s state row but its key columns (gathered apart): its row count and
    /// counters.
    private func appendStateRow(_ slot: Int, rowCount: Int64, to builders: inout [ColumnBuilder]) {
        builders[groupCount].append(int64: rowCount)
        for (index, layout) in layouts.enumerated() where layout.hasCounters {
            counters[index]?.saveState(group: slot, into: &builders, at: layout.slot)
        }
    }

    /// Ends the epoch's slots: no group is touched any more.
    private mutating func forgetTouchedGroups() {
        dirty.removeAll(keepingCapacity: true)
        dirtyKeys.removeAll(keepingCapacity: true)
        keyBuilders = inputTypes.prefix(groupCount).map { ColumnBuilder(type: $0, capacity: 0) }
        rowCounts.removeAll(keepingCapacity: true)
        existed.removeAll(keepingCapacity: true)
        orderedBefore = orderedResultTypes.map { ColumnBuilder(type: $0, capacity: 0) }
        for counters in counters { counters?.removeAll() }
        for counters in countersBefore { counters?.removeAll() }
    }

    package mutating func enableCheckpoints() {
        groups.tracksChanges = true
        for ordered in orderedStates { ordered.entries.tracksChanges = true }
        cleaning?.progress.enableCheckpoints()
    }

    package mutating func useMemory(_ memory: StateMemory) {
        groups.useMemory(memory)
        for ordered in orderedStates { ordered.entries.useMemory(memory) }
        cleaning?.progress.useMemory(memory)
    }

    package mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try groups.restore(from: tables, table: stateTableID)
        for ordered in orderedStates { try ordered.entries.restore(tables) }
        try cleaning?.restore(tables)
        // A global aggregate's row was emitted once its state row exists.
        if groupCount == 0 && groups.lookup(Self.globalKey) != nil { emittedGlobalRow = true }
    }

    package var stateBytes: Int { orderedStates.reduce(groups.byteCount) { $0 + $1.entries.table.byteCount } }
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
        // A group column the watermark passes: the general aggregate, which cleans the groups
        // behind it.
        if let column = input.watermarkColumns.first(where: { $0 < groupCount }) {
            var aggregate = try StreamHashAggregate(
                inputTypes: types, groupCount: groupCount, aggregates: aggregates, stateTableID: site.stateTableID,
                appendOnlyInput: input.isAppendOnly)
            aggregate.cleaning = WatermarkCleaning(column: column, type: types[column], stateTableID: site.stateTableID + 99)
            return aggregate
        }
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

extension StreamHashAggregate {
    /// The vnode of each row's group in the state tables (the group key's memcomparable bytes
    /// hashed, as ``process(_:from:into:)`` keys a group); nil for the global aggregate.
    package func backfillVnodes(from input: InputIndex) -> BackfillVnodes? {
        guard groupCount > 0 else { return nil }
        let keys = Array(0 ..< groupCount)
        return { rows in StreamHashAggregate.vnodes(of: rows, keys: keys) }
    }

    /// The vnode of each row's memcomparable key in columns `keys` of `rows`.
    static func vnodes(of rows: Chunk, keys: [Int]) -> [UInt16] {
        var vnodes = [UInt16](repeating: 0, count: rows.count)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for row in 0 ..< rows.count {
            bytes.removeAll(keepingCapacity: true)
            for key in keys { MemcomparableEncoding.append(rows.columns[key], row: row, to: &bytes) }
            vnodes[row] = bytes.withUnsafeBufferPointer { VirtualNode.of($0) }
        }
        return vnodes
    }
}
