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
/// Groups get dense slots; every accumulator is a typed array indexed by slot (counts `Int64`,
/// sums `Int128`, min and max an ``ExtremeMultiset`` each), so a row costs a hash probe on the
/// key and a few array updates, with no per-row allocation. One integer-layout key is looked up
/// as an integer; other keys by the bytes of their memcomparable encoding, hashed a word at a
/// time. Over an append-only input (a source) min and max keep only the extreme so far. At a
/// barrier the groups the epoch touched emit their changes, and their rows (keyed by the
/// memcomparable group key) are recorded as the epoch's ``StateDelta`` of state table
/// `stateTableID`; the per-group value multisets of min and max are held in the operator.
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
    private var slotOfKey: [Int64: Int32] = [:]
    private var nullKeySlot: Int32 = -1
    private var keys: [Int64] = []
    private var keyIsNull: [Bool] = []
    /// Byte-keyed groups: the slot of each memcomparable group key, and per slot its key bytes
    /// and values.
    private var slotOfBytes: [GroupKeyBytes: Int32] = [:]
    private var keyBytes: [[UInt8]] = []
    private var keyValues: [[Value]] = []
    private var rowCounts: [Int64] = []
    /// Per aggregate: non-null input count per slot (count(*) counts rows).
    private var counts: [[Int64]]
    /// Per aggregate: the sum per slot (sum aggregates only).
    private var sums: [[Int128]]
    /// Per aggregate: the values per slot (min and max only).
    private var extremes: [[ExtremeMultiset]]
    private var freeSlots: [Int32] = []
    /// Slots touched this epoch, with the output row each had before it (nil: new group).
    private var dirty: [Int32] = []
    private var dirtyBefore: [[Value]?] = []
    private var isDirty: [Bool] = []
    private var emittedGlobalRow = false

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
        counts = aggregates.map { _ in [] }
        sums = aggregates.map { _ in [] }
        extremes = aggregates.map { _ in [] }
    }

    package var outputTypes: [DataType] { Array(inputTypes.prefix(groupCount)) + aggregates.map(\.resultType) }

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        let data = chunk.data
        let rowCount = data.count
        // Slot per row.
        var slots = [Int32](repeating: 0, count: rowCount)
        if integerKey {
            let column = data.columns[0]
            let values = Self.integers(column)
            for row in 0 ..< rowCount {
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
                } else {
                    let slot = allocate(key: 0, isNull: false)
                    keyBytes[Int(slot)] = key.bytes
                    keyValues[Int(slot)] = keyColumns.map { $0.value(at: row) }
                    slotOfBytes[GroupKeyBytes(bytes: key.bytes)] = slot
                    slots[row] = slot
                }
            }
        } else {
            let slot = globalSlot()
            for row in 0 ..< rowCount { slots[row] = slot }
        }
        var signs = [Int64](repeating: 1, count: rowCount)
        var hasDeletes = false
        for row in 0 ..< rowCount where !chunk.ops[row].isInsertion {
            signs[row] = -1
            hasDeletes = true
        }
        for row in 0 ..< rowCount {
            let slot = Int(slots[row])
            if !isDirty[slot] { touch(Int32(slot)) }
            rowCounts[slot] += signs[row]
        }
        for (index, call) in aggregates.enumerated() {
            guard let argument = call.argument else {
                counts[index].withUnsafeMutableBufferPointer { counts in
                    for row in 0 ..< rowCount { counts[Int(slots[row])] += signs[row] }
                }
                continue
            }
            let column = data.columns[argument]
            let values = Self.integers(column)
            let valid = column.hasNulls ? (0 ..< rowCount).map { !column.isNull($0) } : [Bool](repeating: true, count: rowCount)
            counts[index].withUnsafeMutableBufferPointer { counts in
                for row in 0 ..< rowCount where valid[row] { counts[Int(slots[row])] += signs[row] }
            }
            switch call.kind {
            case .count:
                break
            case .sum:
                sums[index].withUnsafeMutableBufferPointer { sums in
                    for row in 0 ..< rowCount where valid[row] { sums[Int(slots[row])] += Int128(values[row]) * Int128(signs[row]) }
                }
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
            }
        }
    }

    package mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {
        if groupCount == 0 && !emittedGlobalRow && dirty.isEmpty { touch(globalSlot()) }
        var changes = GroupChanges()
        var delta = StateDelta(tableID: stateTableID, epoch: barrier.epoch)
        // In key order (NULL first, as the memcomparable encoding sorts), so the delta is sorted.
        let order = dirty.indices.sorted { left, right in
            let a = Int(dirty[left])
            let b = Int(dirty[right])
            if !integerKey { return ByteOrder.compare(keyBytes[a], keyBytes[b]) < 0 }
            if keyIsNull[a] != keyIsNull[b] { return keyIsNull[a] }
            return keys[a] < keys[b]
        }
        for position in order {
            let slot = dirty[position]
            let index = Int(slot)
            isDirty[index] = false
            let previous = dirtyBefore[position]
            if rowCounts[index] < 0 { throw SluiceError.internalError("group row count went negative: a delete without its insert") }
            if rowCounts[index] == 0 && groupCount > 0 {
                if previous != nil { delta.deletes.append(stateKey(index)) }
                changes.record(before: previous, after: nil)
                release(slot)
                continue
            }
            let after = try outputRow(index)
            delta.puts.append((stateKey(index), after))
            changes.record(before: previous, after: after)
        }
        dirty.removeAll(keepingCapacity: true)
        dirtyBefore.removeAll(keepingCapacity: true)
        if groupCount == 0 { emittedGlobalRow = true }
        state.record(delta)
        changes.emit(types: outputTypes, into: &output)
    }

    /// The typed per-slot arrays, the key directory (about 16 bytes an entry at Swift's load
    /// factor, counted as 24) and the min/max multisets.
    package var stateBytes: Int {
        var bytes = keys.capacity * 8 + keyIsNull.capacity + rowCounts.capacity * 8 + isDirty.capacity + slotOfKey.capacity * 24
        // Byte keys: each key's bytes twice (the slot's copy and the directory's) and its values.
        for key in keyBytes { bytes += key.capacity * 2 + 48 }
        bytes += keyValues.count * groupCount * MemoryLayout<Value>.stride
        for index in aggregates.indices {
            bytes += counts[index].capacity * 8 + sums[index].capacity * 16 + extremes[index].capacity * MemoryLayout<ExtremeMultiset>.stride
            for multiset in extremes[index] { bytes += multiset.bytes }
        }
        return bytes
    }

    // MARK: Slots

    private mutating func slot(for key: Int64) -> Int32 {
        if let slot = slotOfKey[key] { return slot }
        let slot = allocate(key: key, isNull: false)
        slotOfKey[key] = slot
        return slot
    }

    private mutating func nullSlot() -> Int32 {
        if nullKeySlot < 0 { nullKeySlot = allocate(key: 0, isNull: true) }
        return nullKeySlot
    }

    private mutating func globalSlot() -> Int32 {
        if keys.isEmpty { _ = allocate(key: 0, isNull: false) }
        return 0
    }

    private mutating func allocate(key: Int64, isNull: Bool) -> Int32 {
        if let slot = freeSlots.popLast() {
            let index = Int(slot)
            keys[index] = key
            keyIsNull[index] = isNull
            return slot
        }
        keys.append(key)
        keyIsNull.append(isNull)
        if !integerKey && groupCount > 0 {
            keyBytes.append([])
            keyValues.append([])
        }
        rowCounts.append(0)
        isDirty.append(false)
        for (index, call) in aggregates.enumerated() {
            counts[index].append(0)
            if call.kind == .sum { sums[index].append(0) }
            if call.kind == .min || call.kind == .max { extremes[index].append(ExtremeMultiset(isMax: call.kind == .max)) }
        }
        return Int32(keys.count - 1)
    }

    /// Returns an emptied group's slot for reuse.
    private mutating func release(_ slot: Int32) {
        let index = Int(slot)
        if !integerKey {
            slotOfBytes.removeValue(forKey: GroupKeyBytes(bytes: keyBytes[index]))
            keyBytes[index] = []
            keyValues[index] = []
        } else if keyIsNull[index] {
            nullKeySlot = -1
        } else {
            slotOfKey.removeValue(forKey: keys[index])
        }
        for (aggregate, call) in aggregates.enumerated() {
            counts[aggregate][index] = 0
            if call.kind == .sum { sums[aggregate][index] = 0 }
            if call.kind == .min || call.kind == .max { extremes[aggregate][index] = ExtremeMultiset(isMax: call.kind == .max) }
        }
        freeSlots.append(slot)
    }

    /// Marks a slot changed this epoch, remembering the row it showed before.
    private mutating func touch(_ slot: Int32) {
        let index = Int(slot)
        isDirty[index] = true
        dirty.append(slot)
        dirtyBefore.append(rowCounts[index] > 0 || (groupCount == 0 && emittedGlobalRow) ? try? outputRow(index) : nil)
    }

    // MARK: Rows

    private func outputRow(_ index: Int) throws(SluiceError) -> [Value] {
        var row: [Value] = []
        row.reserveCapacity(groupCount + aggregates.count)
        if integerKey {
            row.append(keyIsNull[index] ? .null : Self.value(keys[index], as: inputTypes[0]))
        } else if groupCount > 0 {
            row += keyValues[index]
        }
        for (aggregate, call) in aggregates.enumerated() {
            let count = counts[aggregate][index]
            switch call.kind {
            case .countStar, .count:
                row.append(.int64(count))
            case .sum:
                let sum = sums[aggregate][index]
                if count == 0 {
                    row.append(.null)
                } else if call.resultType == .int64 {
                    guard let narrow = Int64(exactly: sum) else { throw SluiceError(.numericValueOutOfRange, "bigint out of range") }
                    row.append(.int64(narrow))
                } else {
                    row.append(.decimal(Decimal(mantissa: sum, scale: 0)))
                }
            default:
                if let value = extremes[aggregate][index].value {
                    row.append(Self.value(value, as: call.resultType))
                } else {
                    row.append(.null)
                }
            }
        }
        return row
    }

    /// The group's key in the state table: the memcomparable encoding of its key value.
    private func stateKey(_ index: Int) -> [UInt8] {
        if groupCount == 0 { return [] }
        if !integerKey { return keyBytes[index] }
        var bytes: [UInt8] = []
        MemcomparableEncoding.append(keyIsNull[index] ? .null : Self.value(keys[index], as: inputTypes[0]), as: inputTypes[0], to: &bytes)
        return bytes
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

    private static func value(_ integer: Int64, as type: DataType) -> Value {
        switch type {
        case .int16: .int16(Int16(truncatingIfNeeded: integer))
        case .int32: .int32(Int32(truncatingIfNeeded: integer))
        case .date: .date(Int32(truncatingIfNeeded: integer))
        case .time: .time(integer)
        case .timestamp: .timestamp(integer)
        case .timestamptz: .timestamptz(integer)
        default: .int64(integer)
        }
    }
}

/// A group key's encoded bytes as a dictionary key, hashed in one pass over the bytes (the
/// standard `[UInt8]` hash feeds the hasher a byte at a time).
struct GroupKeyBytes: Hashable {
    var bytes: [UInt8] = []

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    static func == (lhs: GroupKeyBytes, rhs: GroupKeyBytes) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        if lhs.bytes.isEmpty { return true }
        return lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
        }
    }
}
