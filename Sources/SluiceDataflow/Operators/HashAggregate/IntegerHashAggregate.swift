import Foundation
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// The fast path of GROUP BY over a change stream: count(*), count, and sum, min and max over
/// integer-layout columns (smallint, integer, bigint, date, time, timestamp), without DISTINCT,
/// FILTER or ORDER BY, under any group keys. Results are those of ``StreamHashAggregate``, which
/// handles everything else.
///
/// Groups get dense slots; every accumulator is a typed array indexed by slot (counts and sums
/// in the aggregate functions' own accumulators, ``CountAccumulator`` and
/// ``IntegerSumAccumulator``, which the batch executor and the general aggregate use too; min and
/// max an ``ExtremeMultiset`` each), so a row costs a hash probe on the
/// key and a few array updates, with no per-row allocation. One integer-layout key is looked up
/// as an integer; other keys by the bytes of their memcomparable encoding, hashed a word at a
/// time. Over an append-only input (a source) min and max keep only the extreme so far. At a
/// barrier the groups the epoch touched emit their changes, built straight into typed columns
/// from what each group showed when the epoch began (kept, typed, as the group is first touched).
/// The group state is held in the operator's arrays and written to checkpoints as state tables.
/// Under a memory limit (``useMemory(_:)``) the groups an epoch did not touch for a while move
/// to a paged state table (`spilled`, whose pages go to disk like a view's), their min and max
/// values to one per aggregate (`spilledValues`), found there again when their key comes back.
/// - Complexity: O(1) amortized per row (min and max: see ``ExtremeMultiset``); O(groups
///   touched) per epoch.
package struct IntegerHashAggregate: StreamOperator {
    package let groupCount: Int
    package let aggregates: [AggregateCall]
    package let inputTypes: [DataType]
    package let stateTableID: Int

    package let appendOnlyInput: Bool
    /// Whether the group key is one integer-layout column, looked up as an integer; otherwise
    /// groups are looked up by their encoded key bytes.
    private let integerKey: Bool
    /// The aggregates' kinds, read per group (an `AggregateCall` is copied, and retained, whole).
    private let kinds: [AggregateKind]
    private var slotOfKey = IntegerSlotMap()
    private var nullKeySlot: Int32 = -1
    private var keys: [Int64] = []
    private var keyIsNull: [Bool] = []
    /// Byte-keyed groups: the slot of each memcomparable group key, and per slot its key bytes
    /// and where its key values are.
    private var slotOfBytes: [GroupKeyBytes: Int32] = [:]
    private var keyBytes: [[UInt8]] = []
    /// The bytes of all of `keyBytes` (kept as they change: counting them is per epoch).
    private var keyByteCount = 0
    private var keyRows: GroupKeyRows
    private var keyRowOfSlot: [GroupKeyRows.Reference] = []
    private var rowCounts: [Int64] = []
    /// Per aggregate: its counters by slot: the non-null input count (count(*) counts rows), and
    /// for sum the sum.
    private let counters: [IntegerCounters]
    /// Per aggregate: the values per slot (min and max only).
    private var extremes: [[ExtremeMultiset]]
    private var freeSlots: [Int32] = []
    /// Slots touched this epoch, in the order first touched, and what each showed before it:
    /// whether it had a row, and per aggregate its count, sum and extreme then.
    private var dirty: [Int32] = []
    private var before = EpochStart()
    private var isDirty: [Bool] = []
    private var emittedGlobalRow = false
    /// Checkpoints (``enableCheckpoints()``): which slots hold a group, and the slots and the
    /// removed groups' keys changed since the last checkpoint.
    private var tracksChanges = false
    private var live: [Bool] = []
    private var isSaved: [Bool] = []
    private var savedSlots: [Int32] = []
    private var removedKeys = KeyBuffer()
    /// Per min or max over a retractable input: the values each slot gained or lost since the
    /// last checkpoint (their multiset entries are what it writes).
    private var changedValues: [[(slot: Int32, value: Int64)]] = []
    /// Slots emptied since the last checkpoint: they keep their keys until it has named their
    /// changed values, and are reused only after it.
    private var releasedSlots: [Int32] = []
    /// More changes were seen since the last checkpoint than the state holds: tracking stopped,
    /// and the next checkpoint writes everything.
    private var trackingOverflowed = false
    /// Under a memory limit: the groups' bytes counted against it, and the groups moved out of
    /// the arrays (state key → state row, the checkpoint's layout).
    private var charge: MemoryCharge?
    private var spilled: PagedTable?
    /// Per min or max over a retractable input: the values of the groups moved out (the value
    /// table's layout: group state key and value → the value's count).
    private var spilledValues: [PagedTable?] = []
    /// Groups read back from `spilled` this epoch (removed from it at the barrier), and per
    /// aggregate the values read back with them.
    private var reloadedKeys = KeyBuffer()
    private var reloadedRows: [ColumnBuilder] = []
    private var reloadedValues: [(keys: KeyBuffer, counts: [Int64])] = []
    /// Under a memory limit, the bytes the min/max multisets hold, but for those of the groups
    /// touched this epoch (counted again at its barrier).
    private var multisetBytes = 0
    private var countsMultisetBytes = false
    /// Eviction by the CLOCK rule: a slot touched since the hand last passed is spared once.
    private var referenced: [Bool] = []
    private var clockHand = 0
    private var liveGroupCount = 0

    /// Whether this operator handles the aggregate.
    package static func supports(inputTypes: [DataType], groupCount: Int, aggregates: [AggregateCall]) -> Bool {
        guard !aggregates.isEmpty else { return false }
        for call in aggregates {
            if call.distinct || call.filter != nil || !call.orderBy.isEmpty { return false }
            switch call.kind {
            case .countStar: continue
            case .count: continue
            case .sum, .min, .max:
                guard let argument = call.argument, isIntegerLayout(inputTypes[argument]) else { return false }
                if call.kind == .sum && ![DataType.int16, .int32, .int64].contains(inputTypes[argument]) { return false }
            default:
                return false
            }
        }
        return true
    }

    private static func isIntegerLayout(_ type: DataType) -> Bool {
        switch type {
        case .int16, .int32, .int64, .date, .time, .timestamp, .timestamptz: true
        default: false
        }
    }

    /// With `appendOnlyInput` (the input never deletes: a source), min and max keep only the
    /// extreme so far instead of every value.
    package init(
        inputTypes: [DataType], groupCount: Int, aggregates: [AggregateCall], stateTableID: Int, appendOnlyInput: Bool = false
    ) throws(SluiceError) {
        guard Self.supports(inputTypes: inputTypes, groupCount: groupCount, aggregates: aggregates) else {
            throw SluiceError.internalError("IntegerHashAggregate does not handle this aggregate")
        }
        self.inputTypes = inputTypes
        self.groupCount = groupCount
        self.aggregates = aggregates
        self.stateTableID = stateTableID
        self.appendOnlyInput = appendOnlyInput
        self.integerKey = groupCount == 1 && Self.isIntegerLayout(inputTypes[0])
        self.kinds = aggregates.map(\.kind)
        self.keyRows = GroupKeyRows(types: integerKey ? [] : Array(inputTypes.prefix(groupCount)))
        counters = aggregates.map { call in
            call.kind == .sum
                ? .sum(IntegerSumAccumulator(average: false, resultType: call.resultType))
                : .count(CountAccumulator(countsRows: call.kind == .countStar))
        }
        extremes = aggregates.map { _ in [] }
        changedValues = aggregates.map { _ in [] }
        before = EpochStart(aggregates: aggregates.count)
    }

    package var outputTypes: [DataType] { Array(inputTypes.prefix(groupCount)) + aggregates.map(\.resultType) }

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        if groupCount == 0 { return try processGlobal(chunk) }
        let data = chunk.data
        let rowCount = data.count
        // Slot per row.
        var slots = [Int32](repeating: 0, count: rowCount)
        if integerKey {
            let column = data.columns[0]
            let values = Self.integers(column)
            // Found a batch at a time; then each row not found (a new group, or one moved out)
            // looked up again alone, after the rows before it made their groups.
            values.withUnsafeBufferPointer { values in
                slots.withUnsafeMutableBufferPointer { slots in slotOfKey.slots(for: values, into: slots) }
            }
            for row in 0 ..< rowCount where slots[row] < 0 || column.hasNulls {
                slots[row] = column.isNull(row) ? nullSlot() : slot(for: values[row])
            }
        } else if groupCount > 0 {
            let keyColumns = data.columns.prefix(groupCount)
            var key = GroupKeyBytes()
            for row in 0 ..< rowCount {
                key.bytes.removeAll(keepingCapacity: true)
                for column in keyColumns { MemcomparableEncoding.append(column, row: row, to: &key.bytes) }
                if let slot = slotOfBytes[key] {
                    slots[row] = slot
                } else if let spilled, spilled.keyCount > 0, let slot = reload(Self.stateKey(bytes: key.bytes)) {
                    slots[row] = slot
                } else {
                    let slot = allocate(key: 0, isNull: false)
                    keyBytes[Int(slot)] = key.bytes
                    keyByteCount += key.bytes.count
                    keyRowOfSlot[Int(slot)] = keyRows.append(keyColumns, row: row)
                    slotOfBytes[GroupKeyBytes(bytes: key.bytes)] = slot
                    slots[row] = slot
                }
            }
        } else {
            let slot = globalSlot()
            for row in 0 ..< rowCount { slots[row] = slot }
        }
        var signs = [Int8](repeating: 1, count: rowCount)
        var hasDeletes = false
        for row in 0 ..< rowCount where !chunk.ops[row].isInsertion {
            signs[row] = -1
            hasDeletes = true
        }
        var fresh: [Int32] = []
        fresh.reserveCapacity(rowCount)
        isDirty.withUnsafeMutableBufferPointer { isDirty in
            for slot in slots where !isDirty[Int(slot)] {
                isDirty[Int(slot)] = true
                fresh.append(slot)
            }
        }
        if !fresh.isEmpty { touch(fresh) }
        rowCounts.withUnsafeMutableBufferPointer { rowCounts in
            for row in 0 ..< rowCount { rowCounts[Int(slots[row])] += Int64(signs[row]) }
        }
        for (index, call) in aggregates.enumerated() {
            let argument = call.argument.map { data.columns[$0] }
            try counters[index].accumulator.update(
                groups: slots, rowCount: rowCount, groupCount: keys.count, argument: argument, delimiter: nil,
                signs: hasDeletes ? signs : nil, rows: nil)
            guard let column = argument, call.kind == .min || call.kind == .max else { continue }
            let values = Self.integers(column)
            let valid = column.hasNulls ? (0 ..< rowCount).map { !column.isNull($0) } : [Bool](repeating: true, count: rowCount)
            switch call.kind {
            case .min where appendOnlyInput, .max where appendOnlyInput:
                guard !hasDeletes else {
                    throw SluiceError.internalError("a delete reached min or max over an append-only input")
                }
                extremes[index].withUnsafeMutableBufferPointer { extremes in
                    for row in 0 ..< rowCount where valid[row] { extremes[Int(slots[row])].insertKeepingOnlyTheExtreme(values[row]) }
                }
            default:
                extremes[index].withUnsafeMutableBufferPointer { extremes in
                    for row in 0 ..< rowCount where valid[row] {
                        if signs[row] > 0 { extremes[Int(slots[row])].insert(values[row]) } else { extremes[Int(slots[row])].delete(values[row]) }
                    }
                }
                if tracksChanges && !trackingOverflowed {
                    for row in 0 ..< rowCount where valid[row] { changedValues[index].append((slots[row], values[row])) }
                }
            }
        }
    }

    /// ``process(_:from:into:)`` without GROUP BY: every row is the one group's, so no slot is
    /// looked up per row; without deletes the accumulators fold whole columns, and over an
    /// append-only input min and max fold a chunk's extreme.
    private mutating func processGlobal(_ chunk: StreamChunk) throws(SluiceError) {
        let data = chunk.data
        let rowCount = data.count
        guard rowCount > 0 else { return }
        let slot = globalSlot()
        let index = Int(slot)
        if !isDirty[index] {
            isDirty[index] = true
            touch([slot])
        }
        let insertions = ChangeOp.insertions(in: chunk.ops)
        let hasDeletes = insertions < rowCount
        let signs: [Int8]? = hasDeletes ? chunk.ops.map { $0.isInsertion ? 1 : -1 } : nil
        rowCounts[index] += Int64(insertions) - Int64(rowCount - insertions)
        for (aggregate, call) in aggregates.enumerated() {
            let argument = call.argument.map { data.columns[$0] }
            // (No groups: every row is group 0, the global slot.)
            try counters[aggregate].accumulator.update(
                groups: [], rowCount: rowCount, groupCount: keys.count, argument: argument, delimiter: nil, signs: signs, rows: nil)
            guard let column = argument, call.kind == .min || call.kind == .max else { continue }
            if appendOnlyInput {
                guard !hasDeletes else { throw SluiceError.internalError("a delete reached min or max over an append-only input") }
                if let (extreme, count, valid) = Self.extreme(of: column, max: call.kind == .max) {
                    extremes[aggregate][index].insertKeepingOnlyTheExtreme(count: valid, extreme: extreme, extremeCount: count)
                }
                continue
            }
            let values = Self.integers(column)
            for row in 0 ..< rowCount where !column.isNull(row) {
                if signs?[row] ?? 1 > 0 { extremes[aggregate][index].insert(values[row]) } else { extremes[aggregate][index].delete(values[row]) }
            }
            if tracksChanges && !trackingOverflowed {
                for row in 0 ..< rowCount where !column.isNull(row) { changedValues[aggregate].append((slot, values[row])) }
            }
        }
    }

    /// The largest (`max`) or smallest value of an integer-layout column that is not NULL, how
    /// many times it occurs, and how many values are not NULL; nil when all are NULL.
    private static func extreme(of column: Column, max: Bool) -> (extreme: Int64, count: Int64, valid: Int64)? {
        switch column.storage {
        case .int64(let values): extreme(of: values, column.validity, max: max)
        case .int32(let values): extreme(of: values, column.validity, max: max)
        case .int16(let values): extreme(of: values, column.validity, max: max)
        default: nil
        }
    }

    private static func extreme<T: FixedWidthInteger>(of values: [T], _ validity: Bitmap?, max: Bool) -> (extreme: Int64, count: Int64, valid: Int64)? {
        values.withUnsafeBufferPointer { values in
            var best = max ? T.min : T.max
            var valid: Int64 = 0
            var count: Int64 = 0
            if let validity {
                for (row, value) in values.enumerated() where validity[row] {
                    valid += 1
                    best = max ? Swift.max(best, value) : Swift.min(best, value)
                }
                guard valid > 0 else { return nil }
                for (row, value) in values.enumerated() where validity[row] && value == best { count += 1 }
                return (Int64(best), count, valid)
            }
            // Without NULLs: one pass, the extreme and its count together, in four lanes whose
            // compares and selects do not wait on each other (x86-64's baseline has no vector
            // compare of 64-bit integers; this runs near a value a cycle).
            guard !values.isEmpty else { return nil }
            return max ? lanes(values, \.self) : lanes(values) { ~$0 }
        }
    }

    /// The largest of `values` under `order` (an order-preserving map, or `~` for the smallest)
    /// and how often it occurs, taken four values at a time.
    @inline(__always)
    private static func lanes<T: FixedWidthInteger>(_ values: UnsafeBufferPointer<T>, _ order: (T) -> T) -> (extreme: Int64, count: Int64, valid: Int64) {
        var best = (T.min, T.min, T.min, T.min)
        var count: (Int64, Int64, Int64, Int64) = (0, 0, 0, 0)
        @inline(__always) func step(_ best: inout T, _ count: inout Int64, _ value: T) {
            let key = order(value)
            count = key > best ? 1 : count &+ (key == best ? 1 : 0)
            best = Swift.max(best, key)
        }
        var index = 0
        let whole = values.count & ~3
        while index < whole {
            step(&best.0, &count.0, values[index])
            step(&best.1, &count.1, values[index + 1])
            step(&best.2, &count.2, values[index + 2])
            step(&best.3, &count.3, values[index + 3])
            index += 4
        }
        while index < values.count {
            step(&best.0, &count.0, values[index])
            index += 1
        }
        let top = Swift.max(Swift.max(best.0, best.1), Swift.max(best.2, best.3))
        let total = (best.0 == top ? count.0 : 0) + (best.1 == top ? count.1 : 0) + (best.2 == top ? count.2 : 0) + (best.3 == top ? count.3 : 0)
        return (Int64(order(top)), total, Int64(values.count))
    }

    package mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        if groupCount == 0 && !emittedGlobalRow && dirty.isEmpty {
            let slot = globalSlot()
            isDirty[Int(slot)] = true
            touch([slot])
        }
        keyRows.seal()
        // Which rows the epoch emits: per row its op, its slot, and the position in `before`
        // whose values it shows (-1: the group as it is now). Emptied groups are released once
        // the rows are built (a delete shows the group's key).
        var emitted = GroupChangeRows()
        var emptied: [Int32] = []
        for (position, slot) in dirty.enumerated() {
            let index = Int(slot)
            isDirty[index] = false
            if tracksChanges && !isSaved[index] {
                isSaved[index] = true
                savedSlots.append(slot)
            }
            if rowCounts[index] < 0 { throw SluiceError.internalError("group row count went negative: a delete without its insert") }
            let hadRow = before.hadRow[position]
            if rowCounts[index] == 0 && groupCount > 0 {
                if hadRow { emitted.append(.delete, slot: slot, before: Int32(position)) }
                emptied.append(slot)
                continue
            }
            if hadRow {
                guard !isUnchanged(slot: index, since: position) else { continue }
                emitted.append(.updateDelete, slot: slot, before: Int32(position))
                emitted.append(.updateInsert, slot: slot, before: -1)
            } else {
                emitted.append(.insert, slot: slot, before: -1)
            }
        }
        try emitChanges(emitted, into: &output)
        for slot in emptied { release(slot) }
        if countsMultisetBytes { for slot in dirty { multisetBytes += multisetBytes(slot: Int(slot)) } }
        dirty.removeAll(keepingCapacity: true)
        before.removeAll()
        if groupCount == 0 { emittedGlobalRow = true }
        // Groups read back are in the arrays now: out of the spilled table before a checkpoint
        // names both.
        if !reloadedKeys.isEmpty {
            changeSpilled(keys: reloadedKeys, rows: Chunk(columns: reloadedRows.map { $0.finish() }, count: reloadedKeys.count), sign: -1)
            reloadedKeys = KeyBuffer()
            reloadedRows = []
            for aggregate in reloadedValues.indices {
                changeSpilledValues(aggregate, keys: reloadedValues[aggregate].keys, counts: reloadedValues[aggregate].counts, sign: -1)
                reloadedValues[aggregate] = (KeyBuffer(), [])
            }
        }
        if state.mode != .none { checkpoint(everything: state.mode == .everything, into: &state) } else { boundTracking() }
        if let charge {
            charge.set(groupBytes)
            if charge.memory.isOverLimit { evictColdGroups(charge.memory) }
        }
        if !integerKey && groupCount > 0 { keyRows.compactIfWasteful(&keyRowOfSlot) }
    }

    // MARK: Memory

    package mutating func useMemory(_ memory: StateMemory) {
        guard groupCount > 0 else { return }
        charge = MemoryCharge(memory)
        spilled = PagedTable(types: stateTypes, memory: memory)
        spilledValues = aggregates.indices.map { hasValueTable($0) ? PagedTable(types: [.int64], memory: memory) : nil }
        reloadedValues = aggregates.map { _ in (KeyBuffer(), []) }
        countsMultisetBytes = hasValueTables
        multisetBytes = live.indices.reduce(0) { live[$1] ? $0 + multisetBytes(slot: $1) : $0 }
    }

    /// The bytes of what the groups hold in memory.
    private var groupBytes: Int { liveGroupCount * bytesPerGroup + multisetBytes }

    /// The bytes of slot `index`'s min/max multisets.
    private func multisetBytes(slot index: Int) -> Int {
        var bytes = 0
        for aggregate in extremes.indices where !extremes[aggregate].isEmpty { bytes += extremes[aggregate][index].bytes }
        return bytes
    }

    /// About what a group takes in the arrays and the key directory.
    private var bytesPerGroup: Int {
        var bytes = 8 + 1 + 8 + 1 + 1 + 1 + 24
        if !integerKey { bytes += 48 + 2 * (keyBytes.first?.count ?? 8) + 8 + groupCount * 12 }
        for call in aggregates {
            bytes += 8
            if call.kind == .sum { bytes += 16 }
            if call.kind == .min || call.kind == .max { bytes += MemoryLayout<ExtremeMultiset>.stride }
        }
        return bytes
    }

    /// Moves groups out of the arrays into `spilled` until `memory` is back under its eviction
    /// target: groups not touched since the clock hand last passed, not changed since the last
    /// checkpoint, not emptied and waiting for it. Their slots are free again.
    private mutating func evictColdGroups(_ memory: StateMemory) {
        guard spilled != nil, liveGroupCount > 0 else { return }
        let averageBytes = max(1, groupBytes / liveGroupCount)
        let wanted = min(liveGroupCount, (memory.residentBytes - memory.evictionTarget + averageBytes - 1) / averageBytes)
        var victims: [Int] = []
        // (The hand may pass a slot twice: a slot chosen on the first pass is not chosen again.)
        var chosen = Set<Int>()
        var steps = 0
        while victims.count < wanted && steps < 2 * keys.count {
            let index = clockHand
            clockHand = (clockHand + 1) % keys.count
            steps += 1
            guard live[index], !isDirty[index], !isSaved[index], !chosen.contains(index) else { continue }
            if referenced[index] {
                referenced[index] = false
                continue
            }
            victims.append(index)
            chosen.insert(index)
        }
        guard !victims.isEmpty else { return }
        keyRows.seal()
        let (stateKeys, orderedVictims) = sortedStateKeys(victims)
        changeSpilled(keys: stateKeys, rows: groupRows(orderedVictims), sign: 1)
        for aggregate in spilledValues.indices where spilledValues[aggregate] != nil {
            spillValues(of: orderedVictims, groupKeys: stateKeys, aggregate: aggregate)
        }
        for index in victims {
            multisetBytes -= multisetBytes(slot: index)
            vacate(index)
            forget(Int32(index))
        }
        charge?.set(groupBytes)
    }

    /// Moves the min or max values of `slots` (their state keys `groupKeys`) of aggregate
    /// `aggregate` to its spilled value table.
    private mutating func spillValues(of slots: [Int], groupKeys: KeyBuffer, aggregate: Int) {
        var keys = KeyBuffer()
        var valueCounts: [Int64] = []
        for (position, slot) in slots.enumerated() {
            let groupKey = groupKeys.key(position)
            let (values, counts) = extremes[aggregate][slot].entries()
            for (value, count) in zip(values, counts) {
                keys.appendKey { bytes in
                    bytes += groupKey
                    Self.appendOrdered(value, to: &bytes)
                }
                valueCounts.append(count)
            }
        }
        changeSpilledValues(aggregate, keys: keys, counts: valueCounts, sign: 1)
    }

    /// Adds the values `keys` with their `counts` to aggregate `aggregate`'s spilled value table
    /// (sign 1) or takes them out (-1), and commits.
    private mutating func changeSpilledValues(_ aggregate: Int, keys: KeyBuffer, counts: [Int64], sign: Int8) {
        guard !keys.isEmpty else { return }
        let rows = Chunk(columns: [Column(type: .int64, storage: .int64(counts))], count: counts.count)
        spilledValues[aggregate]?.stage(rows, signs: [Int8](repeating: sign, count: counts.count)) { bytes, row in bytes += keys.key(row) }
        spilledValues[aggregate]?.commitEpoch()
    }

    /// Adds the groups `rows` (under `keys`) to `spilled` (sign 1) or takes them out (-1), and
    /// commits.
    private mutating func changeSpilled(keys: KeyBuffer, rows: Chunk, sign: Int8) {
        spilled?.stage(rows, signs: [Int8](repeating: sign, count: rows.count)) { bytes, row in bytes += keys.key(row) }
        spilled?.commitEpoch()
    }

    /// The group stored under `stateKey` in `spilled`, moved back into a slot; nil when absent.
    private mutating func reload(_ stateKey: [UInt8]) -> Int32? {
        guard let found = spilled?.find(stateKey) else { return nil }
        let columns = found.contents.rows.columns
        guard let slot = try? loadGroup(row: found.index, columns: columns, integerColumns: integerColumns(of: columns), stateKey: stateKey)
        else { return nil }
        // (Appended to typed columns: a chunk per group read back took more than the group.)
        if reloadedRows.isEmpty { reloadedRows = stateTypes.map { ColumnBuilder(type: $0, capacity: 0) } }
        reloadedKeys.append(stateKey)
        for column in columns.indices { reloadedRows[column].append(columns[column], row: found.index) }
        for aggregate in spilledValues.indices {
            guard let table = spilledValues[aggregate] else { continue }
            var values: [Int64] = []
            var counts: [Int64] = []
            for run in table.runs(withPrefix: stateKey) {
                guard case .int64(let stored) = run.contents.rows.columns[0].storage else { continue }
                for index in run.range {
                    let key = run.contents.keys.key(index)
                    guard key.count == stateKey.count + 8 else { continue }
                    values.append(Self.ordered(key.suffix(8)))
                    counts.append(stored[index])
                    reloadedValues[aggregate].keys.append(key)
                    reloadedValues[aggregate].counts.append(stored[index])
                }
            }
            if let multiset = ExtremeMultiset(isMax: aggregates[aggregate].kind == .max, values: values, counts: counts) {
                extremes[aggregate][Int(slot)] = multiset
                multisetBytes += multiset.bytes
            }
        }
        if reloadedKeys.count % 256 == 0, charge?.memory.isOverLimit == true { spilled?.shedCachedPages() }
        return slot
    }

    /// The state key of an integer group key (nil: the null key), as ``appendStateKey(slot:to:)`` writes it.
    private static func stateKey(integer key: Int64?) -> [UInt8] {
        var bytes: [UInt8] = []
        appendStateKey(to: &bytes) { appendIntegerKey(key, to: &$0) }
        return bytes
    }

    /// The state key of a group key's memcomparable bytes.
    private static func stateKey(bytes key: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        appendStateKey(to: &bytes) { $0 += key }
        return bytes
    }

    /// Appends a state key: two vnode bytes, then what `key` appends, which the vnode hashes.
    private static func appendStateKey(to bytes: inout [UInt8], _ key: (inout [UInt8]) -> Void) {
        let start = bytes.count
        bytes += [0, 0]
        key(&bytes)
        let vnode = bytes.withUnsafeBufferPointer { VirtualNode.of(UnsafeBufferPointer(rebasing: $0[(start + 2)...])) }
        bytes[start] = UInt8(vnode >> 8)
        bytes[start + 1] = UInt8(vnode & 0xFF)
    }

    /// A null flag, then the integer in an order-keeping form.
    private static func appendIntegerKey(_ key: Int64?, to bytes: inout [UInt8]) {
        guard let key else {
            bytes.append(0)
            return
        }
        bytes.append(1)
        appendOrdered(key, to: &bytes)
    }

    /// The typed per-slot arrays, the key directory (about 16 bytes an entry at Swift's load
    /// factor, counted as 24) and the min/max multisets.
    package var stateBytes: Int {
        var bytes = keys.capacity * 8 + keyIsNull.capacity + rowCounts.capacity * 8 + isDirty.capacity + slotOfKey.bytes
        // Byte keys: each key's bytes twice (the slot's copy and the directory's) and its values.
        bytes += keyByteCount * 2 + keyBytes.count * 48
        bytes += keyRowOfSlot.capacity * 8 + keyRows.bytes
        for index in aggregates.indices {
            bytes += counters[index].bytes + extremes[index].capacity * MemoryLayout<ExtremeMultiset>.stride
            // (Over an append-only input a multiset keeps only its extreme and holds no buffers.)
            if !appendOnlyInput { for multiset in extremes[index] { bytes += multiset.bytes } }
        }
        return bytes + (spilled?.byteCount ?? 0)
    }

    // MARK: Slots

    private mutating func slot(for key: Int64) -> Int32 {
        if let slot = slotOfKey.slot(for: key) { return slot }
        if let spilled, spilled.keyCount > 0, let slot = reload(Self.stateKey(integer: key)) { return slot }
        let slot = allocate(key: key, isNull: false)
        slotOfKey.insert(key, slot: slot)
        return slot
    }

    private mutating func nullSlot() -> Int32 {
        if nullKeySlot < 0, let spilled, spilled.keyCount > 0, let slot = reload(Self.stateKey(integer: nil)) { return slot }
        if nullKeySlot < 0 { nullKeySlot = allocate(key: 0, isNull: true) }
        return nullKeySlot
    }

    private mutating func globalSlot() -> Int32 {
        if keys.isEmpty { _ = allocate(key: 0, isNull: false) }
        return 0
    }

    private mutating func allocate(key: Int64, isNull: Bool) -> Int32 {
        liveGroupCount += 1
        if let slot = freeSlots.popLast() {
            let index = Int(slot)
            keys[index] = key
            keyIsNull[index] = isNull
            live[index] = true
            referenced[index] = true
            return slot
        }
        keys.append(key)
        keyIsNull.append(isNull)
        live.append(true)
        referenced.append(true)
        isSaved.append(false)
        if !integerKey && groupCount > 0 {
            keyBytes.append([])
            keyRowOfSlot.append(-1)
        }
        rowCounts.append(0)
        isDirty.append(false)
        for (index, kind) in kinds.enumerated() {
            counters[index].grow(to: keys.count)
            if kind == .min || kind == .max { extremes[index].append(ExtremeMultiset(isMax: kind == .max)) }
        }
        return Int32(keys.count - 1)
    }

    /// Returns an emptied group's slot for reuse (after the next checkpoint, when tracking).
    private mutating func release(_ slot: Int32) {
        let index = Int(slot)
        vacate(index)
        if tracksChanges {
            var key: [UInt8] = []
            appendStateKey(slot: index, to: &key)
            removedKeys.append(key)
            releasedSlots.append(slot)
        } else {
            forget(slot)
        }
    }

    /// Takes a slot's group out of the key directory and resets it: no group lives there now.
    private mutating func vacate(_ index: Int) {
        if !integerKey {
            slotOfBytes.removeValue(forKey: GroupKeyBytes(bytes: keyBytes[index]))
        } else if keyIsNull[index] {
            nullKeySlot = -1
        } else {
            slotOfKey.remove(keys[index])
        }
        clear(slot: index)
        live[index] = false
        liveGroupCount -= 1
    }

    /// Resets a slot's accumulators.
    private mutating func clear(slot index: Int) {
        rowCounts[index] = 0
        for (aggregate, kind) in kinds.enumerated() {
            counters[aggregate].set(count: 0, sum: 0, at: index)
            if kind == .min || kind == .max { extremes[aggregate][index] = ExtremeMultiset(isMax: kind == .max) }
        }
    }

    /// Makes a released slot free for another group.
    private mutating func forget(_ slot: Int32) {
        if !integerKey && groupCount > 0 {
            keyByteCount -= keyBytes[Int(slot)].count
            keyBytes[Int(slot)] = []
            keyRows.release(keyRowOfSlot[Int(slot)])
            keyRowOfSlot[Int(slot)] = -1
        }
        freeSlots.append(slot)
    }

    /// Adds `slots` (marked dirty by the caller, none of them touched before this epoch) to the
    /// epoch's changed groups, remembering what each showed before: a column at a time,
    /// gathered from the typed state.
    private mutating func touch(_ slots: [Int32]) {
        dirty.append(contentsOf: slots)
        let indexes = slots.map { Int($0) }
        referenced.withUnsafeMutableBufferPointer { referenced in
            for index in indexes { referenced[index] = true }
        }
        if countsMultisetBytes { for index in indexes { multisetBytes -= multisetBytes(slot: index) } }
        let globalRowShown = groupCount == 0 && emittedGlobalRow
        rowCounts.withUnsafeBufferPointer { rowCounts in
            before.hadRow.append(contentsOf: indexes.lazy.map { rowCounts[$0] > 0 || globalRowShown })
        }
        for (aggregate, kind) in kinds.enumerated() {
            before.counts[aggregate].append(contentsOf: counters[aggregate].counts(of: indexes))
            switch kind {
            case .sum: before.sums[aggregate].append(contentsOf: counters[aggregate].sums(of: indexes))
            case .min, .max:
                extremes[aggregate].withUnsafeBufferPointer { extremes in
                    before.extremes[aggregate].append(contentsOf: indexes.lazy.map { extremes[$0].value })
                }
            default: break
            }
        }
    }

    /// Whether every aggregate of `slot` shows what it showed at the epoch's start (touched at
    /// `position`): then the group needs no output.
    private func isUnchanged(slot index: Int, since position: Int) -> Bool {
        for (aggregate, kind) in kinds.enumerated() {
            let count = counters[aggregate].count(at: index)
            let old = before.counts[aggregate][position]
            switch kind {
            case .countStar, .count:
                if count != old { return false }
            case .sum:
                if (count == 0) != (old == 0) || counters[aggregate].sum(at: index) != before.sums[aggregate][position] { return false }
            default:
                if extremes[aggregate][index].value != before.extremes[aggregate][position] { return false }
            }
        }
        return true
    }

    // MARK: Rows

    /// Emits `rows` as change chunks of about ``Chunk/preferredSize`` rows (never between the
    /// two halves of an update), each column built whole from the typed state: the keys from
    /// the key directory, each aggregate from its counters or extremes now or from what the
    /// epoch's start kept.
    private func emitChanges(_ rows: GroupChangeRows, into output: inout OutputBuffer) throws(SluiceError) {
        var start = 0
        while start < rows.ops.count {
            var end = min(rows.ops.count, start + Chunk.preferredSize)
            if end < rows.ops.count && rows.ops[end - 1] == .updateDelete { end += 1 }
            var columns: [Column] = []
            columns.reserveCapacity(outputTypes.count)
            let slots = rows.slots[start ..< end]
            let positions = rows.before[start ..< end]
            if integerKey {
                let values = slots.map { keys[Int($0)] }
                let nulls = slots.map { keyIsNull[Int($0)] }
                columns.append(Self.integerColumn(values, nulls: nulls, type: inputTypes[0]))
            } else if groupCount > 0 {
                var builders = inputTypes.prefix(groupCount).map { ColumnBuilder(type: $0, capacity: end - start) }
                for slot in slots { keyRows.appendRow(keyRowOfSlot[Int(slot)], to: &builders, from: 0) }
                columns += builders.map { $0.finish() }
            }
            let indexes = slots.map { Int($0) }
            for (aggregate, kind) in kinds.enumerated() {
                let counts = Self.patched(counters[aggregate].counts(of: indexes), positions: positions, from: before.counts[aggregate])
                switch kind {
                case .countStar, .count:
                    columns.append(Column(type: .int64, storage: .int64(counts)))
                case .sum:
                    let sums = Self.patched(counters[aggregate].sums(of: indexes), positions: positions, from: before.sums[aggregate])
                    let nulls = counts.map { $0 == 0 }
                    let validity = nulls.contains(true) ? Bitmap(bits: nulls.map { !$0 }) : nil
                    if aggregates[aggregate].resultType == .int64 {
                        var narrow = [Int64](repeating: 0, count: sums.count)
                        for (row, sum) in sums.enumerated() where !nulls[row] {
                            guard let value = Int64(exactly: sum) else { throw SluiceError(.numericValueOutOfRange, "bigint out of range") }
                            narrow[row] = value
                        }
                        columns.append(Column(type: .int64, storage: .int64(narrow), validity: validity))
                    } else {
                        let decimals = sums.enumerated().map { row, sum in nulls[row] ? Decimal(mantissa: 0, scale: 0) : Decimal(mantissa: sum, scale: 0) }
                        columns.append(Column(type: aggregates[aggregate].resultType, storage: .decimal(decimals), validity: validity))
                    }
                default:
                    let now = extremes[aggregate].withUnsafeBufferPointer { extremes in indexes.map { extremes[$0].value } }
                    let values = Self.patched(now, positions: positions, from: before.extremes[aggregate])
                    columns.append(Self.integerColumn(values.map { $0 ?? 0 }, nulls: values.map { $0 == nil }, type: aggregates[aggregate].resultType))
                }
            }
            output.append(StreamChunk(ops: Array(rows.ops[start ..< end]), data: Chunk(columns: columns, count: end - start)))
            start = end
        }
    }

    /// `now` (values as the groups are now) with each row whose position is not -1 replaced by
    /// what the epoch's start kept at that position.
    private static func patched<T>(_ now: [T], positions: ArraySlice<Int32>, from kept: [T]) -> [T] {
        var values = now
        values.withUnsafeMutableBufferPointer { values in
            kept.withUnsafeBufferPointer { kept in
                for (row, position) in positions.enumerated() where position >= 0 { values[row] = kept[Int(position)] }
            }
        }
        return values
    }

    /// An integer-layout column of `type` holding `values`, null where `nulls` says.
    private static func integerColumn(_ values: [Int64], nulls: [Bool], type: DataType) -> Column {
        let validity = nulls.contains(true) ? Bitmap(bits: nulls.map { !$0 }) : nil
        switch type {
        case .int16: return Column(type: type, storage: .int16(values.map { Int16(truncatingIfNeeded: $0) }), validity: validity)
        case .int32, .date: return Column(type: type, storage: .int32(values.map { Int32(truncatingIfNeeded: $0) }), validity: validity)
        default: return Column(type: type, storage: .int64(values), validity: validity)
        }
    }

    /// Row `row` of an integer-layout column, widened to Int64.
    private static func integer(_ column: Column, at row: Int) -> Int64 {
        switch column.storage {
        case .int64(let values): values[row]
        case .int32(let values): Int64(values[row])
        case .int16(let values): Int64(values[row])
        default: 0
        }
    }

    /// A column's values widened to Int64 (nulls read as 0).
    private static func integers(_ column: Column) -> [Int64] {
        switch column.storage {
        case .int64(let values): values
        case .int32(let values): values.map(Int64.init)
        case .int16(let values): values.map(Int64.init)
        default: [Int64](repeating: 0, count: column.count)
        }
    }
}

// MARK: - Checkpoints

extension IntegerHashAggregate {
    package mutating func enableCheckpoints() {
        tracksChanges = true
    }

    /// The columns of a group's state row (table `stateTableID`): the group key, the row count,
    /// then per aggregate its count, a sum's two halves (high and low 64 bits), and over an
    /// append-only input a min or max's total, extreme and the extreme's count. Over a
    /// retractable input each min or max keeps its values in a table of its own,
    /// `stateTableID + 1 + aggregate`: one row per group and value, the value's count.
    var stateTypes: [DataType] {
        var types = integerKey ? [inputTypes[0]] : Array(inputTypes.prefix(groupCount))
        types.append(.int64)
        for call in aggregates {
            types.append(.int64)
            if call.kind == .sum { types += [.int64, .int64] }
            if (call.kind == .min || call.kind == .max) && appendOnlyInput { types += [.int64, .int64, .int64] }
        }
        return types
    }

    /// Whether aggregate `index` keeps its values in a multiset table.
    private func hasValueTable(_ index: Int) -> Bool {
        (aggregates[index].kind == .min || aggregates[index].kind == .max) && !appendOnlyInput
    }

    /// Whether any aggregate keeps its values in a multiset table.
    private var hasValueTables: Bool { !appendOnlyInput && aggregates.contains { $0.kind == .min || $0.kind == .max } }

    /// A group's key in the state tables: its vnode, then a null flag and the integer in an
    /// order-keeping form, or the group key's memcomparable bytes.
    private func appendStateKey(slot index: Int, to bytes: inout [UInt8]) {
        Self.appendStateKey(to: &bytes) { key in
            if integerKey {
                Self.appendIntegerKey(keyIsNull[index] ? nil : keys[index], to: &key)
            } else if groupCount > 0 {
                key += keyBytes[index]
            }
        }
    }

    /// An integer as eight bytes that sort as the integers do.
    @inline(__always)
    private static func appendOrdered(_ value: Int64, to bytes: inout [UInt8]) {
        let ordered = UInt64(bitPattern: value) ^ (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: ordered >> UInt64(shift))) }
    }

    private static func ordered(_ bytes: ArraySlice<UInt8>) -> Int64 {
        Int64(bitPattern: bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } ^ (1 << 63))
    }

    /// The groups (and multiset entries) changed since the last checkpoint, or all of them, as
    /// state sections; then the slots emptied since the last one are free again.
    private mutating func checkpoint(everything: Bool, into state: inout StateWriter) {
        let everything = everything || trackingOverflowed
        let slots = everything ? live.indices.filter { live[$0] } : savedSlots.map(Int.init).filter { live[$0] }
        for slot in savedSlots { isSaved[Int(slot)] = false }
        savedSlots.removeAll(keepingCapacity: true)
        let removed = everything ? KeyBuffer() : removedKeys
        removedKeys = KeyBuffer()
        keyRows.seal()
        // The rows are built in key order: no sorted copy of them.
        let (stateKeys, orderedSlots) = sortedStateKeys(slots)
        var groups = StateSection.ordered(
            table: stateTableID, types: stateTypes, keys: stateKeys, counts: [Int32](repeating: 1, count: slots.count),
            rows: groupRows(orderedSlots), removed: removed)
        groups.isWhole = everything
        state.add(groups)
        if everything, let spilled, !spilled.pages.isEmpty {
            // The groups moved out of memory, after the rest (their keys are none of theirs).
            state.add(FragmentCheckpoint.PagedImage(table: stateTableID, types: stateTypes, pages: spilled.pages, isWhole: false))
        }
        for aggregate in aggregates.indices where hasValueTable(aggregate) {
            var values = valueSection(aggregate, everything: everything, liveSlots: slots)
            values.isWhole = everything
            state.add(values)
            if everything, let table = spilledValues.isEmpty ? nil : spilledValues[aggregate], !table.pages.isEmpty {
                state.add(FragmentCheckpoint.PagedImage(table: stateTableID + 1 + aggregate, types: [.int64], pages: table.pages, isWhole: false))
            }
        }
        for slot in releasedSlots { forget(slot) }
        releasedSlots.removeAll(keepingCapacity: true)
        trackingOverflowed = false
    }

    /// The state keys of `slots`' groups in ascending order, and the slots in that order.
    private func sortedStateKeys(_ slots: [Int]) -> (keys: KeyBuffer, slots: [Int]) {
        var keys = KeyBuffer(reservingKeys: slots.count, bytes: slots.count * 12)
        for index in slots { keys.appendKey { appendStateKey(slot: index, to: &$0) } }
        let order = keys.sortedOrder()
        return (keys.gathered(order), order.map { slots[Int($0)] })
    }

    /// The state rows of `slots`' groups, in that order, built a column at a time: each column
    /// is one gather from a typed array, whose loads the processor overlaps (a row at a time,
    /// each row's reads waited on their cache misses in turn).
    private func groupRows(_ slots: [Int]) -> Chunk {
        var columns: [Column] = []
        columns.reserveCapacity(stateTypes.count)
        if integerKey {
            columns.append(Self.integerColumn(slots.map { keys[$0] }, nulls: slots.map { keyIsNull[$0] }, type: inputTypes[0]))
        } else if groupCount > 0 {
            var builders = inputTypes.prefix(groupCount).map { ColumnBuilder(type: $0, capacity: slots.count) }
            for index in slots { keyRows.appendRow(keyRowOfSlot[index], to: &builders, from: 0) }
            columns += builders.map { $0.finish() }
        }
        columns.append(Column(type: .int64, storage: .int64(slots.map { rowCounts[$0] })))
        for (aggregate, kind) in kinds.enumerated() {
            columns.append(Column(type: .int64, storage: .int64(counters[aggregate].counts(of: slots))))
            if kind == .sum {
                let sums = counters[aggregate].sums(of: slots)
                columns.append(Column(type: .int64, storage: .int64(sums.map { Int64(truncatingIfNeeded: $0 >> 64) })))
                columns.append(Column(type: .int64, storage: .int64(sums.map { Int64(truncatingIfNeeded: $0) })))
            }
            if (kind == .min || kind == .max) && appendOnlyInput {
                let kept = slots.map { extremes[aggregate][$0].extremeOnlyState }
                columns.append(Column(type: .int64, storage: .int64(kept.map(\.total))))
                columns.append(Column(type: .int64, storage: .int64(kept.map(\.extreme))))
                columns.append(Column(type: .int64, storage: .int64(kept.map(\.extremeCount))))
            }
        }
        return Chunk(columns: columns, count: slots.count)
    }

    /// Aggregate `aggregate`'s multiset entries: those whose count changed since the last
    /// checkpoint (a count of zero is a removal), or every entry of `liveSlots`' groups. Built
    /// in key order: groups by their state keys, then values ascending.
    private mutating func valueSection(_ aggregate: Int, everything: Bool, liveSlots: [Int]) -> StateSection {
        var keys = KeyBuffer()
        var removed = KeyBuffer()
        var valueCounts = ColumnBuilder(type: .int64, capacity: 0)
        /// The groups in state-key order, with their keys.
        func ordered(_ slots: [Int]) -> [(slot: Int, key: [UInt8])] {
            slots.map { slot in
                var groupKey: [UInt8] = []
                appendStateKey(slot: slot, to: &groupKey)
                return (slot, groupKey)
            }.sorted { ByteOrder.compare($0.key, $1.key) < 0 }
        }
        if everything {
            for (slot, groupKey) in ordered(liveSlots) {
                let bytesBefore = extremes[aggregate][slot].bytes
                let (values, entryCounts) = extremes[aggregate][slot].entries()
                multisetBytes += extremes[aggregate][slot].bytes - bytesBefore
                for (value, count) in zip(values, entryCounts) {
                    keys.appendKey { bytes in
                        bytes += groupKey
                        Self.appendOrdered(value, to: &bytes)
                    }
                    valueCounts.append(int64: count)
                }
            }
        } else {
            // The changed values by slot, then each slot's values sorted and told once.
            var pairs = changedValues[aggregate]
            pairs.sort { ($0.slot, $0.value) < ($1.slot, $1.value) }
            keys.reserve(additionalKeys: pairs.count)
            var ranges: [Int: Range<Int>] = [:]
            var start = 0
            while start < pairs.count {
                var end = start + 1
                while end < pairs.count && pairs[end].slot == pairs[start].slot { end += 1 }
                ranges[Int(pairs[start].slot)] = start ..< end
                start = end
            }
            // A released slot and a live one may carry the same key (a group emptied and
            // back): its removals and puts are merged below by the section's sort of that key.
            var groups = ordered(Array(ranges.keys))
            var duplicates = false
            for index in groups.indices.dropFirst() where groups[index - 1].key == groups[index].key { duplicates = true }
            if duplicates { groups.sort { ByteOrder.compare($0.key, $1.key) < 0 || ($0.key == $1.key && !live[$0.slot] && live[$1.slot]) } }
            for (slot, groupKey) in groups {
                var previous: Int64?
                for pair in pairs[ranges[slot]!] {
                    if pair.value == previous { continue }
                    previous = pair.value
                    var count: Int64 = 0
                    if live[slot] {
                        let bytesBefore = extremes[aggregate][slot].bytes
                        count = extremes[aggregate][slot].count(of: pair.value)
                        multisetBytes += extremes[aggregate][slot].bytes - bytesBefore
                    }
                    if count > 0 {
                        keys.appendKey { bytes in
                            bytes += groupKey
                            Self.appendOrdered(pair.value, to: &bytes)
                        }
                        valueCounts.append(int64: count)
                    } else {
                        removed.appendKey { bytes in
                            bytes += groupKey
                            Self.appendOrdered(pair.value, to: &bytes)
                        }
                    }
                }
            }
            if duplicates {
                changedValues[aggregate].removeAll(keepingCapacity: true)
                return StateSection.sorting(
                    table: stateTableID + 1 + aggregate, types: [.int64], keys: keys, counts: [Int32](repeating: 1, count: keys.count),
                    rows: Chunk(columns: [valueCounts.finish()], count: keys.count), removed: removed)
            }
        }
        changedValues[aggregate].removeAll(keepingCapacity: true)
        return StateSection(
            table: stateTableID + 1 + aggregate, types: [.int64], keys: keys, counts: [Int32](repeating: 1, count: keys.count),
            rows: Chunk(columns: [valueCounts.finish()], count: keys.count), removed: removed)
    }

    /// Stops tracking when more changes wait than the state holds (checkpoints rarer than
    /// changes): the next checkpoint then writes the state whole. Called at barriers that are
    /// not checkpoints.
    private mutating func boundTracking() {
        guard tracksChanges && !trackingOverflowed else { return }
        let tracked = changedValues.reduce(savedSlots.count + releasedSlots.count) { $0 + $1.count }
        guard tracked > max(4 * live.count, 1 << 16) else { return }
        // The multisets' values, counted only past the cheap bound: tracking may reach four
        // times what the state holds, values included (bounded by the groups alone, a few
        // groups with millions of values wrote every value at every checkpoint).
        let held = extremes.reduce(live.count) { total, multisets in
            multisets.indices.reduce(total) { live[$1] ? $0 + Int(multisets[$1].total) : $0 }
        }
        guard tracked > max(4 * held, 1 << 16) else { return }
        trackingOverflowed = true
        for index in changedValues.indices { changedValues[index] = [] }
        for slot in releasedSlots { forget(slot) }
        releasedSlots = []
    }

    /// A state table's columns read as integers: every column after the group key (all bigint,
    /// so taken as they are, not copied); the key columns empty (``loadGroup`` reads an integer
    /// key at its row: a page's smallint or integer key column widened whole for one group read
    /// back would cost the page).
    private func integerColumns(of columns: [Column]) -> [[Int64]] {
        columns.indices.map { $0 >= (integerKey ? 1 : groupCount) ? Self.integers(columns[$0]) : [] }
    }

    /// Puts row `row` of a state table's `columns` (`integerColumns`: those read as integers)
    /// into a new slot, under `stateKey`, and returns the slot.
    private mutating func loadGroup(row: Int, columns: [Column], integerColumns: [[Int64]], stateKey: [UInt8]) throws(SluiceError) -> Int32 {
        let slot: Int32
        if integerKey {
            if columns[0].isNull(row) {
                nullKeySlot = allocate(key: 0, isNull: true)
                slot = nullKeySlot
            } else {
                let key = Self.integer(columns[0], at: row)
                slot = allocate(key: key, isNull: false)
                slotOfKey.insert(key, slot: slot)
            }
        } else if groupCount > 0 {
            let bytes = Array(stateKey.dropFirst(2))
            slot = allocate(key: 0, isNull: false)
            keyBytes[Int(slot)] = bytes
            keyByteCount += bytes.count
            keyRowOfSlot[Int(slot)] = keyRows.append(columns.prefix(groupCount), row: row)
            slotOfBytes[GroupKeyBytes(bytes: bytes)] = slot
        } else {
            slot = globalSlot()
        }
        let index = Int(slot)
        var column = integerKey ? 1 : groupCount
        rowCounts[index] = integerColumns[column][row]
        column += 1
        for (aggregate, kind) in kinds.enumerated() {
            let count = integerColumns[column][row]
            column += 1
            var sum: Int128 = 0
            if kind == .sum {
                let high = integerColumns[column][row]
                let low = integerColumns[column + 1][row]
                sum = Int128(high) << 64 | Int128(UInt64(bitPattern: low))
                column += 2
            }
            counters[aggregate].set(count: count, sum: sum, at: index)
            if (kind == .min || kind == .max) && appendOnlyInput {
                let (total, extreme, count) = (integerColumns[column][row], integerColumns[column + 1][row], integerColumns[column + 2][row])
                guard let multiset = ExtremeMultiset(isMax: kind == .max, total: total, extreme: extreme, extremeCount: count) else {
                    throw SluiceError(.dataCorrupted, "the stored min or max state of an aggregate is malformed")
                }
                extremes[aggregate][index] = multiset
                column += 3
            }
        }
        return slot
    }

    package mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        guard let section = try tables.section(stateTableID) else { return }
        guard section.types == stateTypes else {
            throw SluiceError(.dataCorrupted, "the stored state of an aggregate has other columns than the aggregate")
        }
        let columns = section.rows.columns
        let integerColumns = integerColumns(of: columns)
        /// Slot by state key, for the multiset entries.
        var slotOfStateKey: [GroupKeyBytes: Int32] = [:]
        let hasValueTables = self.hasValueTables
        if integerKey && slotOfKey.count == 0 { slotOfKey = IntegerSlotMap(capacity: section.keys.count) }
        for row in 0 ..< section.keys.count {
            let stateKey = section.keys.key(row)
            let slot = try loadGroup(row: row, columns: columns, integerColumns: integerColumns, stateKey: stateKey)
            if hasValueTables { slotOfStateKey[GroupKeyBytes(bytes: stateKey)] = slot }
        }
        for aggregate in aggregates.indices where hasValueTable(aggregate) {
            guard let entries = try tables.section(stateTableID + 1 + aggregate) else { continue }
            guard entries.types == [.int64] else { throw SluiceError(.dataCorrupted, "the stored values of a min or max are malformed") }
            let entryCounts = Self.integers(entries.rows.columns[0])
            // Entries are in key order: a group's values together, ascending.
            var row = 0
            while row < entries.keys.count {
                let key = entries.keys.key(row)
                guard key.count >= 8, let slot = slotOfStateKey[GroupKeyBytes(bytes: Array(key.dropLast(8)))] else {
                    throw SluiceError(.dataCorrupted, "a stored min or max value belongs to no group")
                }
                var values: [Int64] = []
                var valueCounts: [Int64] = []
                while row < entries.keys.count {
                    let next = entries.keys.key(row)
                    guard next.count == key.count, next.dropLast(8).elementsEqual(key.dropLast(8)) else { break }
                    values.append(Self.ordered(next.suffix(8)))
                    valueCounts.append(entryCounts[row])
                    row += 1
                }
                guard let multiset = ExtremeMultiset(isMax: aggregates[aggregate].kind == .max, values: values, counts: valueCounts) else {
                    throw SluiceError(.dataCorrupted, "the stored values of a min or max are malformed")
                }
                extremes[aggregate][Int(slot)] = multiset
            }
        }
        if countsMultisetBytes { multisetBytes = live.indices.reduce(0) { live[$1] ? $0 + multisetBytes(slot: $1) : $0 } }
        if groupCount == 0 { emittedGlobalRow = section.keys.count > 0 }
    }
}

/// The counters of one aggregate of an ``IntegerHashAggregate``: a count per slot (count(*),
/// count, and the non-null count of min and max), or a sum and count per slot (sum).
enum IntegerCounters {
    case count(CountAccumulator)
    case sum(IntegerSumAccumulator)

    var accumulator: any AggregateAccumulator {
        switch self {
        case .count(let counts): counts
        case .sum(let sums): sums
        }
    }

    func count(at slot: Int) -> Int64 {
        switch self {
        case .count(let counts): counts.count(at: slot)
        case .sum(let sums): sums.count(at: slot)
        }
    }

    /// The counts of `slots`, in that order.
    func counts(of slots: [Int]) -> [Int64] {
        switch self {
        case .count(let counts): counts.counts(of: slots)
        case .sum(let sums): sums.counts(of: slots)
        }
    }

    /// The sums of `slots`, in that order (zeros for a count).
    func sums(of slots: [Int]) -> [Int128] {
        if case .sum(let sums) = self { return sums.sums(of: slots) }
        return [Int128](repeating: 0, count: slots.count)
    }

    /// The sum at `slot` (0 for a count).
    func sum(at slot: Int) -> Int128 {
        if case .sum(let sums) = self { return sums.sum(at: slot) }
        return 0
    }

    func set(count: Int64, sum: Int128, at slot: Int) {
        switch self {
        case .count(let counts): counts.set(count: count, at: slot)
        case .sum(let sums): sums.set(sum: sum, count: count, at: slot)
        }
    }

    func grow(to count: Int) {
        switch self {
        case .count(let counts): counts.grow(to: count)
        case .sum(let sums): sums.grow(to: count)
        }
    }

    var bytes: Int {
        switch self {
        case .count(let counts): counts.bytes
        case .sum(let sums): sums.bytes
        }
    }
}

/// What the groups an epoch touched showed when it began, one entry per touched group (in the
/// order of ``IntegerHashAggregate``'s `dirty`), as typed arrays per aggregate.
struct EpochStart {
    var hadRow: [Bool] = []
    var counts: [[Int64]] = []
    var sums: [[Int128]] = []
    var extremes: [[Int64?]] = []

    init(aggregates: Int = 0) {
        counts = Array(repeating: [], count: aggregates)
        sums = Array(repeating: [], count: aggregates)
        extremes = Array(repeating: [], count: aggregates)
    }

    mutating func removeAll() {
        hadRow.removeAll(keepingCapacity: true)
        for index in counts.indices {
            counts[index].removeAll(keepingCapacity: true)
            sums[index].removeAll(keepingCapacity: true)
            extremes[index].removeAll(keepingCapacity: true)
        }
    }
}

/// The change rows an epoch emits, before their values are read: per row its op, its group's
/// slot, and the position in ``EpochStart`` whose values it shows (-1: the group as it is now).
struct GroupChangeRows {
    var ops: [ChangeOp] = []
    var slots: [Int32] = []
    var before: [Int32] = []

    mutating func append(_ op: ChangeOp, slot: Int32, before position: Int32) {
        ops.append(op)
        slots.append(slot)
        before.append(position)
    }
}

/// A group key's encoded bytes as a dictionary key, folded a word at a time into one 64-bit
/// value that alone goes to the hasher (the standard `[UInt8]` hash feeds the hasher a byte at
/// a time, and even one `combine(bytes:)` runs SipHash over every byte).
struct GroupKeyBytes: Hashable {
    var bytes: [UInt8] = []

    func hash(into hasher: inout Hasher) {
        hasher.combine(Self.fold(bytes))
    }

    /// The bytes folded a word at a time (``KeyHashing/bytes(_:)``).
    @inline(__always)
    static func fold(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { KeyHashing.bytes($0) }
    }

    static func == (lhs: GroupKeyBytes, rhs: GroupKeyBytes) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        if lhs.bytes.isEmpty { return true }
        return lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
        }
    }
}

extension IntegerHashAggregate {
    /// The vnode of each row's group in the state table (``appendStateKey(to:_:)``'s); nil
    /// for the global aggregate, whose one group has one key.
    package func backfillVnodes(from input: InputIndex) -> BackfillVnodes? {
        guard groupCount > 0 else { return nil }
        let integerKey = integerKey
        let keys = Array(0 ..< groupCount)
        return { rows in
            if integerKey {
                var vnodes = [UInt16](repeating: 0, count: rows.count)
                var bytes: [UInt8] = []
                bytes.reserveCapacity(16)
                let column = rows.columns[0]
                let values = Self.integers(column)
                for row in 0 ..< rows.count {
                    bytes.removeAll(keepingCapacity: true)
                    Self.appendIntegerKey(column.isNull(row) ? nil : values[row], to: &bytes)
                    vnodes[row] = bytes.withUnsafeBufferPointer { VirtualNode.of($0) }
                }
                return vnodes
            }
            return StreamHashAggregate.vnodes(of: rows, keys: keys)
        }
    }
}
