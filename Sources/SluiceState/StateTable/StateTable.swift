import SluiceCore

/// The state of one stateful operator: rows keyed by memcomparable bytes, kept in key order,
/// with the current epoch's writes buffered apart until the epoch ends.
///
/// Reads see committed rows overlaid with the epoch's writes. ``commitEpoch(_:)`` folds the
/// buffer into the committed rows in one merge and returns the epoch's changes as a
/// ``StateDelta``, the unit a checkpoint will write. Owned by one operator on one thread; not
/// `Sendable`.
/// - Complexity: point reads O(log n); writes O(1) amortized; commit O(n + m log m) for m
///   buffered writes; an ordered scan O(log n + rows returned + m log m).
package final class StateTable {
    package let id: Int
    /// Committed rows, sorted by key.
    private var keys: [[UInt8]] = []
    private var rows: [[Value]] = []
    /// The epoch's writes: a row, or nil for a delete.
    private var pending: [[UInt8]: [Value]?] = [:]

    package init(id: Int) {
        self.id = id
    }

    /// The row stored under `key`, including this epoch's writes.
    package func get(_ key: [UInt8]) -> [Value]? {
        if let change = pending[key] { return change }
        guard let index = committedIndex(of: key) else { return nil }
        return rows[index]
    }

    /// Stores `row` under `key`, replacing any row there.
    package func put(_ key: [UInt8], _ row: [Value]) {
        pending[key] = .some(row)
    }

    /// Removes the row under `key`, if any.
    package func delete(_ key: [UInt8]) {
        pending[key] = .some(nil)
    }

    /// The number of rows, including this epoch's writes.
    package var count: Int {
        var total = keys.count
        for (key, change) in pending {
            let committed = committedIndex(of: key) != nil
            if change != nil && !committed { total += 1 }
            if change == nil && committed { total -= 1 }
        }
        return total
    }

    /// Rows with `lower <= key < upper` (either bound may be nil), in key order, including this
    /// epoch's writes.
    package func scan(from lower: [UInt8]? = nil, to upper: [UInt8]? = nil) -> [(key: [UInt8], row: [Value])] {
        func inRange(_ key: [UInt8]) -> Bool {
            if let lower, key.lexicographicallyPrecedes(lower) { return false }
            if let upper, !key.lexicographicallyPrecedes(upper) { return false }
            return true
        }
        let changes = pending.filter { inRange($0.key) }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        var result: [(key: [UInt8], row: [Value])] = []
        var committed = lower.map(lowerBound) ?? 0
        var changeIndex = 0
        while true {
            let committedKey = committed < keys.count && inRange(keys[committed]) ? keys[committed] : nil
            let change = changeIndex < changes.count ? changes[changeIndex] : nil
            switch (committedKey, change) {
            case (nil, nil):
                return result
            case (let key?, nil):
                result.append((key, rows[committed]))
                committed += 1
            case (nil, let change?):
                if let row = change.value { result.append((change.key, row)) }
                changeIndex += 1
            case (let key?, let change?):
                if key == change.key {
                    if let row = change.value { result.append((key, row)) }
                    committed += 1
                    changeIndex += 1
                } else if key.lexicographicallyPrecedes(change.key) {
                    result.append((key, rows[committed]))
                    committed += 1
                } else {
                    if let row = change.value { result.append((change.key, row)) }
                    changeIndex += 1
                }
            }
        }
    }

    /// The first row in key order within the bounds (the minimum for an ordered key).
    package func first(from lower: [UInt8]? = nil, to upper: [UInt8]? = nil) -> (key: [UInt8], row: [Value])? {
        scan(from: lower, to: upper).first
    }

    /// The last row in key order within the bounds (the maximum for an ordered key).
    package func last(from lower: [UInt8]? = nil, to upper: [UInt8]? = nil) -> (key: [UInt8], row: [Value])? {
        scan(from: lower, to: upper).last
    }

    /// Ends the epoch: applies its writes and returns them.
    @discardableResult
    package func commitEpoch(_ epoch: UInt64) -> StateDelta {
        let changes = pending.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        pending.removeAll(keepingCapacity: true)
        var delta = StateDelta(tableID: id, epoch: epoch)
        var mergedKeys: [[UInt8]] = []
        var mergedRows: [[Value]] = []
        mergedKeys.reserveCapacity(keys.count + changes.count)
        mergedRows.reserveCapacity(keys.count + changes.count)
        var committed = 0
        for change in changes {
            while committed < keys.count && keys[committed].lexicographicallyPrecedes(change.key) {
                mergedKeys.append(keys[committed])
                mergedRows.append(rows[committed])
                committed += 1
            }
            let replacesCommitted = committed < keys.count && keys[committed] == change.key
            if replacesCommitted { committed += 1 }
            if let row = change.value {
                mergedKeys.append(change.key)
                mergedRows.append(row)
                delta.puts.append((change.key, row))
            } else if replacesCommitted {
                delta.deletes.append(change.key)
            }
        }
        mergedKeys += keys[committed...]
        mergedRows += rows[committed...]
        keys = mergedKeys
        rows = mergedRows
        return delta
    }

    /// Drops the epoch's writes.
    package func discardEpoch() {
        pending.removeAll()
    }

    private func lowerBound(_ key: [UInt8]) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle].lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private func committedIndex(of key: [UInt8]) -> Int? {
        let index = lowerBound(key)
        return index < keys.count && keys[index] == key ? index : nil
    }
}

/// The changes one epoch made to one state table: what a checkpoint writes.
package struct StateDelta {
    package var tableID: Int
    package var epoch: UInt64
    /// Rows written, in key order.
    package var puts: [(key: [UInt8], row: [Value])] = []
    /// Keys of committed rows removed, in key order.
    package var deletes: [[UInt8]] = []

    package init(tableID: Int, epoch: UInt64) {
        self.tableID = tableID
        self.epoch = epoch
    }
}
