/// The integer values of one group, kept for an exact min or max under inserts and deletes.
///
/// A log-structured ordered multiset: `base` holds distinct values in ascending order with their
/// counts; values inserted since the last merge sit unsorted in `inserted`, deletes that did not
/// find their value in `base` in `deleted`. The current extreme and its
/// count are kept exactly, so inserts cost an append and a comparison, and a delete of anything
/// but the last copy of the extreme costs a binary search or an append. When the last copy of the
/// extreme goes, the tail is sorted and merged into `base`, and the next extreme is read from the
/// end of `base`: an ordered lookup, never a pass over the group's input. The tail is also merged
/// when more than half of what it holds cancels out, which bounds memory by the live values.
/// - Complexity: O(1) amortized per insert; O(log n) per delete, plus a merge O(n + t log t)
///   when the extreme's last copy is deleted while t changes are pending.
struct ExtremeMultiset {
    private var base: [Int64] = []
    private var baseCounts: [Int64] = []
    private var inserted: [Int64] = []
    private var deleted: [Int64] = []
    /// Base entries whose count fell to zero (removed at the next merge).
    private var zeros = 0
    /// Live values (with multiplicity).
    private(set) var total: Int64 = 0
    private(set) var extreme: Int64 = 0
    private var extremeCount: Int64 = 0

    /// Whether this keeps a maximum (else a minimum).
    let isMax: Bool

    init(isMax: Bool) {
        self.isMax = isMax
    }

    /// The current minimum or maximum, or nil when the multiset is empty.
    var value: Int64? { total > 0 ? extreme : nil }

    /// Approximate heap bytes held.
    var bytes: Int { (base.capacity + baseCounts.capacity + inserted.capacity + deleted.capacity) * 8 }

    private func isBetter(_ candidate: Int64, than current: Int64) -> Bool {
        isMax ? candidate > current : candidate < current
    }

    mutating func insert(_ value: Int64) {
        // Room for a few values at first: a group's tail then grows by doubling from 4, not 1.
        if inserted.capacity == 0 { inserted.reserveCapacity(4) }
        inserted.append(value)
        insertKeepingOnlyTheExtreme(value)
    }

    /// Counts `value` toward the total and the extreme without keeping it. Called alone, for an
    /// input that never deletes (a source), where only the extreme so far matters: a multiset
    /// fed this way must never see ``delete(_:)``.
    mutating func insertKeepingOnlyTheExtreme(_ value: Int64) {
        total += 1
        if total == 1 || isBetter(value, than: extreme) {
            extreme = value
            extremeCount = 1
        } else if value == extreme {
            extremeCount += 1
        }
    }

    /// ``insertKeepingOnlyTheExtreme(_:)`` of `count` values whose extreme is `extreme`, found
    /// `extremeCount` times among them (a chunk folded at once).
    mutating func insertKeepingOnlyTheExtreme(count: Int64, extreme candidate: Int64, extremeCount candidateCount: Int64) {
        guard count > 0 else { return }
        if total == 0 || isBetter(candidate, than: extreme) {
            extreme = candidate
            extremeCount = candidateCount
        } else if candidate == extreme {
            extremeCount += candidateCount
        }
        total += count
    }

    mutating func delete(_ value: Int64) {
        total -= 1
        if total <= 0 {
            self = ExtremeMultiset(isMax: isMax)
            return
        }
        if let index = baseIndex(of: value), baseCounts[index] > 0 {
            baseCounts[index] -= 1
            if baseCounts[index] == 0 { zeros += 1 }
        } else {
            deleted.append(value)
        }
        if value == extreme {
            extremeCount -= 1
            if extremeCount == 0 { findExtreme() }
        }
        let pending = inserted.count + deleted.count
        if pending > 1024 && (pending > 2 * Int(total) || zeros > base.count / 2) { merge() }
    }

    /// Sorts the tail into `base`, drops zero counts, and reads the extreme off the end.
    private mutating func findExtreme() {
        merge()
        guard let index = isMax ? baseCounts.lastIndex(where: { $0 > 0 }) : baseCounts.firstIndex(where: { $0 > 0 }) else {
            extremeCount = 0
            return
        }
        extreme = base[index]
        extremeCount = baseCounts[index]
    }

    private mutating func merge() {
        if inserted.isEmpty && deleted.isEmpty && zeros == 0 { return }
        // Net the pending changes per value: sorted inserts and deletes, walked together.
        inserted.sort()
        deleted.sort()
        var values: [Int64] = []
        var deltas: [Int64] = []
        values.reserveCapacity(inserted.count + deleted.count)
        deltas.reserveCapacity(inserted.count + deleted.count)
        var insertIndex = 0
        var deleteIndex = 0
        while insertIndex < inserted.count || deleteIndex < deleted.count {
            let takeInsert = deleteIndex == deleted.count || (insertIndex < inserted.count && inserted[insertIndex] <= deleted[deleteIndex])
            let value = takeInsert ? inserted[insertIndex] : deleted[deleteIndex]
            let delta: Int64 = takeInsert ? 1 : -1
            if takeInsert { insertIndex += 1 } else { deleteIndex += 1 }
            if let last = values.last, last == value {
                deltas[deltas.count - 1] += delta
            } else {
                values.append(value)
                deltas.append(delta)
            }
        }
        var mergedValues: [Int64] = []
        var mergedCounts: [Int64] = []
        mergedValues.reserveCapacity(base.count + values.count)
        mergedCounts.reserveCapacity(base.count + values.count)
        var left = 0
        var right = 0
        while left < base.count || right < values.count {
            let value: Int64
            var count: Int64 = 0
            if right == values.count || (left < base.count && base[left] < values[right]) {
                value = base[left]
                count = baseCounts[left]
                left += 1
            } else if left == base.count || values[right] < base[left] {
                value = values[right]
                count = deltas[right]
                right += 1
            } else {
                value = base[left]
                count = baseCounts[left] + deltas[right]
                left += 1
                right += 1
            }
            if count > 0 {
                mergedValues.append(value)
                mergedCounts.append(count)
            }
        }
        base = mergedValues
        baseCounts = mergedCounts
        inserted = []
        deleted = []
        zeros = 0
    }

    // MARK: Checkpoints

    /// What a multiset fed by ``insertKeepingOnlyTheExtreme(_:)`` holds.
    var extremeOnlyState: (total: Int64, extreme: Int64, extremeCount: Int64) { (total, extreme, extremeCount) }

    /// A multiset fed by ``insertKeepingOnlyTheExtreme(_:)`` as ``extremeOnlyState`` was; nil
    /// when that cannot be one.
    init?(isMax: Bool, total: Int64, extreme: Int64, extremeCount: Int64) {
        guard total >= 0, extremeCount >= 0, extremeCount <= total, (total == 0) == (extremeCount == 0) else { return nil }
        self.isMax = isMax
        (self.total, self.extreme, self.extremeCount) = (total, extreme, extremeCount)
    }

    /// How many copies of `value` the multiset holds.
    mutating func count(of value: Int64) -> Int64 {
        merge()
        return baseIndex(of: value).map { baseCounts[$0] } ?? 0
    }

    /// Every value with its count, ascending.
    mutating func entries() -> (values: [Int64], counts: [Int64]) {
        merge()
        return (base, baseCounts)
    }

    /// A multiset of `values` (ascending, distinct) with `counts` (each at least 1); nil when
    /// they are not that.
    init?(isMax: Bool, values: [Int64], counts: [Int64]) {
        guard values.count == counts.count, counts.allSatisfy({ $0 > 0 }), zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }) else {
            return nil
        }
        self.isMax = isMax
        base = values
        baseCounts = counts
        total = counts.reduce(0, +)
        findExtreme()
    }

    private func baseIndex(of value: Int64) -> Int? {
        var low = 0
        var high = base.count
        while low < high {
            let middle = (low + high) / 2
            if base[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < base.count && base[low] == value ? low : nil
    }
}
