import SluiceCore
import SluiceState

/// Maps group keys to dense group numbers (0, 1, 2, …) in order of first appearance.
///
/// A single non-null-able `bigint` key uses an open-addressing table over the raw values; other
/// keys are encoded as bytes and hashed.
struct GroupTable {
    private enum Mode {
        case global
        case int64
        case bytes
    }

    private let mode: Mode
    private let keyColumns: [Int]
    private(set) var groupCount = 0

    // Open addressing for one bigint key: slot → group + 1 (0 empty), with the slot's key beside
    // it so a probe touches one cache line; keys by group for the output. The null group is
    // kept apart and never enters the table.
    private var slots: [Int32] = []
    private var slotKeys: [Int64] = []
    private var slotMask = 0
    private(set) var int64Keys: [Int64] = []
    private var nullGroup: Int32 = -1
    private(set) var int64KeyNulls: [Bool] = []

    // General keys.
    private var byteGroups: [KeyBytes: Int32] = [:]
    private var keyBuilders: [ColumnBuilder] = []

    init(keyTypes: [DataType]) {
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
            keyBuilders = keyTypes.map { ColumnBuilder(type: $0) }
        }
    }

    /// The group number of each row of `chunk` (whose first columns are the keys).
    mutating func groupIDs(for chunk: Chunk) -> [Int32] {
        switch mode {
        case .global:
            // Every row is in group 0: accumulators take an empty array to mean that.
            return []
        case .int64:
            return int64GroupIDs(chunk.columns[0])
        case .bytes:
            var ids = [Int32](repeating: 0, count: chunk.count)
            for rowIndex in 0 ..< chunk.count {
                let key = KeyBytes(chunk, row: rowIndex, columns: keyColumns)
                if let id = byteGroups[key] {
                    ids[rowIndex] = id
                } else {
                    let id = Int32(groupCount)
                    byteGroups[key] = id
                    groupCount += 1
                    for columnIndex in keyColumns.indices {
                        keyBuilders[columnIndex].append(chunk.columns[columnIndex].value(at: rowIndex))
                    }
                    ids[rowIndex] = id
                }
            }
            return ids
        }
    }

    private mutating func int64GroupIDs(_ column: Column) -> [Int32] {
        guard case .int64(let keys) = column.storage else { preconditionFailure("group key is not bigint") }
        // Grow first, so the table keeps at most half its slots full through this chunk and the
        // probe loop can run over raw buffers.
        while (groupCount + keys.count) * 2 > slotMask + 1 { grow() }
        let validity = column.validity
        var newKeys: [Int64] = []
        var ids = [Int32](repeating: 0, count: keys.count)
        var nextGroup = Int32(groupCount)
        var nullGroup = self.nullGroup
        let mask = slotMask
        slots.withUnsafeMutableBufferPointer { slots in
            slotKeys.withUnsafeMutableBufferPointer { slotKeys in
                ids.withUnsafeMutableBufferPointer { ids in
                    keys.withUnsafeBufferPointer { keys in
                        for rowIndex in 0 ..< keys.count {
                            if let validity, !validity[rowIndex] {
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
        case .bytes: return keyBuilders.map { $0.finish() }
        }
    }
}
