/// Groups a chunk's rows by partition tuple: an open-addressing table of group numbers keyed
/// by each row's 64-bit tuple hash, a hash match confirmed by comparing the row's keys with
/// the group's first row.
struct IcebergPartitionGrouping {
    let keys: [IcebergPartitionKeys]
    let rowCount: Int
    /// Per group, its first row.
    private(set) var representatives: [Int] = []
    /// Per group, its rows in chunk order.
    private(set) var groupRows: [[Int]] = []
    private var groupHashes: [UInt64] = []
    /// Group number + 1 per slot; 0 is empty. The capacity is a power of two, at least twice
    /// the number of groups.
    private var slots: [Int32] = Array(repeating: 0, count: 16)

    init(keys: [IcebergPartitionKeys], rowCount: Int) {
        self.keys = keys
        self.rowCount = rowCount
    }

    /// Assigns every row to its group.
    mutating func run() {
        var hashes = [UInt64](repeating: 0x9E37_79B9_7F4A_7C15, count: rowCount)
        for fieldKeys in keys { fieldKeys.combineHashes(into: &hashes) }
        var previousGroup = -1
        for rowIndex in 0 ..< rowCount {
            let hash = hashes[rowIndex]
            // Sinks often see runs of one partition (rows in time order): try the last group first.
            if previousGroup >= 0, groupHashes[previousGroup] == hash, hasSameTuple(rowIndex, representatives[previousGroup]) {
                groupRows[previousGroup].append(rowIndex)
                continue
            }
            previousGroup = group(of: rowIndex, hash: hash)
        }
    }

    /// Finds or creates the group of `rowIndex` and appends the row to it.
    private mutating func group(of rowIndex: Int, hash: UInt64) -> Int {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { break }
            let group = entry - 1
            if groupHashes[group] == hash, hasSameTuple(rowIndex, representatives[group]) {
                groupRows[group].append(rowIndex)
                return group
            }
            slot = (slot + 1) & mask
        }
        let group = representatives.count
        representatives.append(rowIndex)
        groupRows.append([rowIndex])
        groupHashes.append(hash)
        slots[slot] = Int32(group + 1)
        if representatives.count * 2 > slots.count { grow() }
        return group
    }

    private mutating func grow() {
        var newSlots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = newSlots.count - 1
        for (group, hash) in groupHashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while newSlots[slot] != 0 { slot = (slot + 1) & mask }
            newSlots[slot] = Int32(group + 1)
        }
        slots = newSlots
    }

    private func hasSameTuple(_ lhs: Int, _ rhs: Int) -> Bool {
        for fieldKeys in keys where !fieldKeys.hasSameKey(lhs, rhs) { return false }
        return true
    }
}
