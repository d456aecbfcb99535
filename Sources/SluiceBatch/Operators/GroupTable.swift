import Glibc
import SluiceCore
import SluiceState

/// Maps group keys to dense group numbers (0, 1, 2, …) in order of first appearance: the batch
/// GROUP BY's table, and an upsert sink's index of the keys an epoch touched.
///
/// A single non-null-able `bigint` key uses an open-addressing table over the raw values; other
/// keys are encoded as bytes and hashed.
package struct GroupTable {
    private enum Mode {
        case global
        case int64
        case bytes
    }

    private let mode: Mode
    private let keyColumns: [Int]
    package private(set) var groupCount = 0
    /// Set when the aggregate has no memory for more groups: rows of keys not seen yet get
    /// group -1 (they are spilled) instead of starting a group.
    var acceptsNewGroups = true

    // Open addressing for one bigint key: slot → group + 1 (0 empty), with the slot's key beside
    // it so a probe touches one cache line; keys by group for the output. The null group is
    // kept apart and never enters the table.
    private var slots: [Int32] = []
    private var slotKeys: [Int64] = []
    private var slotMask = 0
    private(set) var int64Keys: [Int64] = []
    private var nullGroup: Int32 = -1
    private(set) var int64KeyNulls: [Bool] = []

    // General keys: open addressing on the keys' hash (slot → group + 1), each group's hash
    // beside its slot, and each group's key kept as a row of one of `keyChunks` (the rows that
    // started groups, gathered per input chunk, in group order).
    private var hashSlots: [Int32] = []
    private var slotHashes: [UInt64] = []
    private var keyChunks: [Chunk] = []
    /// The bytes of the groups' keys held once (as `keyChunks` holds them, with its objects).
    private var keyBytes = 0
    /// Whether the keys are kept for ``keyColumnsOutput(types:)`` as well as for comparing.
    private let keepsKeysForOutput: Bool
    private var keyStore: GroupKeyStore
    private let keyTypes: [DataType]

    /// `keepsKeysForOutput`: false for a table asked only for group numbers (DISTINCT pairs).
    package init(keyTypes: [DataType], keepsKeysForOutput: Bool = true) {
        self.keyTypes = keyTypes
        self.keepsKeysForOutput = keepsKeysForOutput
        keyStore = GroupKeyStore(types: keyTypes)
        keyColumns = Array(keyTypes.indices)
        if keyTypes.isEmpty {
            mode = .global
            groupCount = 1
        } else if keyTypes == [.int64] {
            mode = .int64
            slots = [Int32](repeating: 0, count: 1024)
            slotKeys = [Int64](repeating: 0, count: 1024)
            slotMask = 1023
        } else {
            mode = .bytes
            hashSlots = [Int32](repeating: 0, count: 1024)
            slotHashes = [UInt64](repeating: 0, count: 1024)
            slotMask = 1023
        }
    }

    /// The group number of each row of `chunk` (whose first columns are the keys); -1 for a row
    /// of a new key when the table accepts no new groups.
    package mutating func groupIDs(for chunk: Chunk) -> [Int32] {
        switch mode {
        case .global:
            // Every row is in group 0: accumulators take an empty array to mean that.
            return []
        case .int64:
            return int64GroupIDs(chunk.columns[0])
        case .bytes:
            return hashedGroupIDs(chunk)
        }
    }

    /// The memory it holds, about: its slots, and each group's key twice (as the rows that
    /// started groups and in the store that compares keys).
    package var byteCount: Int {
        let slotBytes = (slots.count + hashSlots.count) * 4 + slotKeys.count * 8 + slotHashes.count * 8
        return slotBytes + int64Keys.capacity * 8 + int64KeyNulls.capacity + (keepsKeysForOutput ? 2 : 1) * keyBytes
    }

    /// The bytes the slots grow by before ``groupIDs(for:)`` looks up `rows` rows (each of
    /// which may start a group): 0 when the table has room, or takes no new groups.
    package func slotGrowth(forRows rows: Int) -> Int {
        guard mode != .global, acceptsNewGroups else { return 0 }
        var capacity = slotMask + 1
        while (groupCount + rows) * 2 > capacity { capacity *= 2 }
        // A slot's entry (4 bytes) and its key or hash (8).
        return (capacity - (slotMask + 1)) * 12
    }

    private mutating func hashedGroupIDs(_ chunk: Chunk) -> [Int32] {
        while acceptsNewGroups && (groupCount + chunk.count) * 2 > slotMask + 1 { growHashed() }
        let hashes = KeyHash.hashes(chunk, keys: keyColumns)
        var ids = [Int32](repeating: 0, count: chunk.count)
        var startRows: [Int] = []
        // First each row takes the group whose hash equals its own (or starts one); then the
        // keys of those matches are compared a column at a time; a row whose key differs (a
        // hash collision) probes on, comparing as it goes.
        var candidateRows: [Int] = []
        var candidateGroups: [Int] = []
        var candidateSlots: [Int] = []
        let mask = UInt64(slotMask)
        for row in 0 ..< chunk.count {
            let found = findGroup(hash: hashes[row], from: Int(hashes[row] & mask), chunk: chunk, row: row, comparingKeys: false)
            ids[row] = found.group
            if found.group < 0 { continue }
            if found.started {
                startRows.append(row)
            } else {
                candidateRows.append(row)
                candidateGroups.append(Int(found.group))
                candidateSlots.append(found.slot)
            }
        }
        // The keys of the groups started above, in the order they were started, a column at a
        // time (before any key is compared).
        keyStore.append(chunk, rows: startRows, keys: keyColumns)
        let equal = keyStore.equal(chunk, keyColumns, rows: candidateRows, groups: candidateGroups)
        for index in equal.indices where !equal[index] {
            let row = candidateRows[index]
            let found = findGroup(hash: hashes[row], from: (candidateSlots[index] + 1) & slotMask, chunk: chunk, row: row, comparingKeys: true)
            ids[row] = found.group
            if found.started { startRows.append(row) }
        }
        if !startRows.isEmpty {
            let keys = Chunk(columns: keyColumns.map { chunk.columns[$0].gather(startRows) }, count: startRows.count)
            keyBytes += keys.byteCount + 64 * (keyColumns.count + 1)
            if keepsKeysForOutput { keyChunks.append(keys) }
        }
        return ids
    }

    /// Walks the slots from `slot`: the first holding `hash` (and, `comparingKeys`, the row's
    /// key) gives its group; the first empty one starts a group for the row.
    private mutating func findGroup(
        hash: UInt64, from slot: Int, chunk: Chunk, row: Int, comparingKeys: Bool
    ) -> (group: Int32, slot: Int, started: Bool) {
        var slot = slot
        while true {
            let entry = hashSlots[slot]
            if entry == 0 {
                guard acceptsNewGroups else { return (-1, slot, false) }
                // (Without comparing keys, the caller stores the new groups' keys together.)
                return (startGroup(in: slot, hash: hash, chunk: chunk, row: row, storingKey: comparingKeys), slot, true)
            }
            if slotHashes[slot] == hash && (!comparingKeys || keyStore.equal(chunk, keyColumns, rows: [row], groups: [Int(entry - 1)])[0]) {
                return (entry - 1, slot, false)
            }
            slot = (slot + 1) & slotMask
        }
    }

    private mutating func startGroup(in slot: Int, hash: UInt64, chunk: Chunk, row: Int, storingKey: Bool) -> Int32 {
        let group = Int32(groupCount)
        hashSlots[slot] = group + 1
        slotHashes[slot] = hash
        if storingKey { keyStore.append(chunk, rows: [row], keys: keyColumns) }
        groupCount += 1
        return group
    }

    private mutating func growHashed() {
        let capacity = (slotMask + 1) * 2
        var slots = [Int32](repeating: 0, count: capacity)
        var hashes = [UInt64](repeating: 0, count: capacity)
        let mask = UInt64(capacity - 1)
        for (slot, entry) in hashSlots.enumerated() where entry != 0 {
            var target = Int(slotHashes[slot] & mask)
            while slots[target] != 0 { target = (target + 1) & (capacity - 1) }
            slots[target] = entry
            hashes[target] = slotHashes[slot]
        }
        hashSlots = slots
        slotHashes = hashes
        slotMask = capacity - 1
    }

    private mutating func int64GroupIDs(_ column: Column) -> [Int32] {
        guard case .int64(let keys) = column.storage else { preconditionFailure("group key is not bigint") }
        // Grow first, so the table keeps at most half its slots full through this chunk and the
        // probe loop can run over raw buffers.
        while acceptsNewGroups && (groupCount + keys.count) * 2 > slotMask + 1 { grow() }
        let validity = column.validity
        var newKeys: [Int64] = []
        var ids = [Int32](repeating: 0, count: keys.count)
        var nextGroup = Int32(groupCount)
        var nullGroup = self.nullGroup
        let mask = slotMask
        let acceptsNew = acceptsNewGroups
        slots.withUnsafeMutableBufferPointer { slots in
            slotKeys.withUnsafeMutableBufferPointer { slotKeys in
                ids.withUnsafeMutableBufferPointer { ids in
                    keys.withUnsafeBufferPointer { keys in
                        for rowIndex in 0 ..< keys.count {
                            if let validity, !validity[rowIndex] {
                                if nullGroup < 0 && !acceptsNew {
                                    ids[rowIndex] = -1
                                    continue
                                }
                                if nullGroup < 0 {
                                    nullGroup = nextGroup
                                    nextGroup += 1
                                    newKeys.append(.min)  // marks the null group's position
                                }
                                ids[rowIndex] = nullGroup
                                continue
                            }
                            let key = keys[rowIndex]
                            var slot = Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
                            while true {
                                let entry = slots[slot]
                                if entry == 0 {
                                    if !acceptsNew {
                                        ids[rowIndex] = -1
                                        break
                                    }
                                    slots[slot] = nextGroup + 1
                                    slotKeys[slot] = key
                                    ids[rowIndex] = nextGroup
                                    nextGroup += 1
                                    newKeys.append(key)
                                    break
                                }
                                if slotKeys[slot] == key {
                                    ids[rowIndex] = entry - 1
                                    break
                                }
                                slot = (slot + 1) & mask
                            }
                        }
                    }
                }
            }
        }
        // Record the new groups in order; the null group (if it appeared in this chunk) is the
        // one whose id is nullGroup.
        for (offset, key) in newKeys.enumerated() {
            let group = groupCount + offset
            let isNull = group == Int(nullGroup) && self.nullGroup < 0
            int64Keys.append(isNull ? 0 : key)
            int64KeyNulls.append(isNull)
        }
        groupCount = Int(nextGroup)
        self.nullGroup = nullGroup
        return ids
    }

    private mutating func grow() {
        let capacity = (slotMask + 1) * 2
        slots = [Int32](repeating: 0, count: capacity)
        slotKeys = [Int64](repeating: 0, count: capacity)
        slotMask = capacity - 1
        for (group, key) in int64Keys.enumerated() where !int64KeyNulls[group] {
            var slot = Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> 32) & slotMask
            while slots[slot] != 0 { slot = (slot + 1) & slotMask }
            slots[slot] = Int32(group + 1)
            slotKeys[slot] = key
        }
    }

    /// The key columns, one row per group in group-number order.
    func keyColumnsOutput(types: [DataType]) -> [Column] {
        switch mode {
        case .global: return []
        case .int64:
            let validity = nullGroup >= 0 ? Bitmap(bits: int64KeyNulls.map { !$0 }) : nil
            return [Column(type: types[0], storage: .int64(int64Keys), validity: validity)]
        case .bytes:
            return Chunk.concatenate(keyChunks, types: keyTypes).columns
        }
    }
}

/// The groups' keys, one growing typed array per key column, for comparing input rows with them
/// a column at a time (values of other types as their equality-preserving byte encoding).
struct GroupKeyStore {
    private enum Kind { case int16, int32, int64, bool, bytes, encoded }
    private let kinds: [Kind]
    private var int16s: [[Int16]]
    private var int32s: [[Int32]]
    private var int64s: [[Int64]]
    private var bools: [[Bool]]
    private var bytes: [VarBytes]
    private var nulls: [[Bool]]
    private var hasNull: [Bool]

    init(types: [DataType]) {
        kinds = types.map { type in
            switch type {
            case .int16: .int16
            case .int32, .date: .int32
            case .int64, .time, .timestamp, .timestamptz: .int64
            case .boolean: .bool
            case .varchar, .jsonb, .bytea: .bytes
            default: .encoded
            }
        }
        int16s = types.map { _ in [] }
        int32s = types.map { _ in [] }
        int64s = types.map { _ in [] }
        bools = types.map { _ in [] }
        bytes = types.map { _ in VarBytes() }
        nulls = types.map { _ in [] }
        hasNull = types.map { _ in false }
    }

    /// Stores the keys of `rows` of `chunk`, in that order, as the next groups' keys.
    mutating func append(_ chunk: Chunk, rows: [Int], keys: [Int]) {
        if rows.isEmpty { return }
        for (index, key) in keys.enumerated() {
            let column = chunk.columns[key]
            if column.hasNulls {
                for row in rows {
                    let isNull = column.isNull(row)
                    nulls[index].append(isNull)
                    if isNull { hasNull[index] = true }
                }
            } else {
                nulls[index].append(contentsOf: repeatElement(false, count: rows.count))
            }
            switch (kinds[index], column.storage) {
            case (.int16, .int16(let values)): int16s[index].append(contentsOf: rows.lazy.map { values[$0] })
            case (.int32, .int32(let values)): int32s[index].append(contentsOf: rows.lazy.map { values[$0] })
            case (.int64, .int64(let values)): int64s[index].append(contentsOf: rows.lazy.map { values[$0] })
            case (.bool, .bool(let values)): bools[index].append(contentsOf: rows.lazy.map { values[$0] })
            case (.bytes, .bytes(let values)):
                var stored = bytes[index]
                bytes[index] = VarBytes()
                values.data.withUnsafeBytes { data in
                    for row in rows { stored.append(bytes: UnsafeRawBufferPointer(rebasing: data[values.byteRange(at: row)])) }
                }
                bytes[index] = stored
            default:
                var encoded: [UInt8] = []
                for row in rows {
                    encoded.removeAll(keepingCapacity: true)
                    KeyEncoding.append(column, row: row, to: &encoded)
                    bytes[index].append(encoded)
                }
            }
        }
    }

    /// For each `(rows[i], groups[i])`, whether the row's key equals the group's (nulls equal).
    func equal(_ chunk: Chunk, _ keys: [Int], rows: [Int], groups: [Int]) -> [Bool] {
        var equal = [Bool](repeating: true, count: rows.count)
        for (index, key) in keys.enumerated() {
            let column = chunk.columns[key]
            let groupNulls = nulls[index]
            func compare<T: Equatable>(_ values: [T], _ stored: [T]) {
                for pair in rows.indices where equal[pair] && values[rows[pair]] != stored[groups[pair]] { equal[pair] = false }
            }
            switch (kinds[index], column.storage) {
            case (.int16, .int16(let values)): compare(values, int16s[index])
            case (.int32, .int32(let values)): compare(values, int32s[index])
            case (.int64, .int64(let values)): compare(values, int64s[index])
            case (.bool, .bool(let values)): compare(values, bools[index])
            case (.bytes, .bytes(let values)):
                let stored = bytes[index]
                values.data.withUnsafeBufferPointer { data in
                    stored.data.withUnsafeBufferPointer { storedData in
                        for pair in rows.indices where equal[pair] {
                            let range = values.byteRange(at: rows[pair])
                            let storedRange = stored.byteRange(at: groups[pair])
                            if range.count != storedRange.count
                                || (!range.isEmpty && memcmp(data.baseAddress! + range.lowerBound, storedData.baseAddress! + storedRange.lowerBound, range.count) != 0)
                            {
                                equal[pair] = false
                            }
                        }
                    }
                }
            default:
                let stored = bytes[index]
                var encoded: [UInt8] = []
                stored.data.withUnsafeBufferPointer { storedData in
                    for pair in rows.indices where equal[pair] {
                        encoded.removeAll(keepingCapacity: true)
                        KeyEncoding.append(column, row: rows[pair], to: &encoded)
                        if !storedData[stored.byteRange(at: groups[pair])].elementsEqual(encoded) { equal[pair] = false }
                    }
                }
            }
            // A null equals only a null; the slots under nulls hold zero values, compared above.
            if column.hasNulls || hasNull[index] {
                for pair in rows.indices where column.isNull(rows[pair]) != groupNulls[groups[pair]] { equal[pair] = false }
            }
        }
        return equal
    }
}
