import Synchronization
import SluiceCore

/// Delete files decoded once per scan and shared by its tasks: one position delete file or
/// one equality delete file usually applies to many data files, and each task would otherwise
/// read and decode it again.
///
/// Thread-safe; tasks read on any threads. Entries live as long as the cache (one scan, so one
/// query); memory grows with the delete rows the scan applies. Two threads that miss the same
/// entry at once both decode it and one result is kept.
package final class IcebergDeleteFileCache: Sendable {
    private struct EqualityKey: Hashable {
        var fieldIDs: [Int]
        var paths: [String]
    }

    private struct State {
        var positionDeletes: [String: IcebergPositionDeleteRows] = [:]
        var equalitySets: [EqualityKey: IcebergEqualityDeleteSet] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    func positionDeletes(_ path: String) -> IcebergPositionDeleteRows? {
        state.withLock { $0.positionDeletes[path] }
    }

    func storePositionDeletes(_ rows: IcebergPositionDeleteRows, for path: String) {
        state.withLock { $0.positionDeletes[path] = rows }
    }

    func equalitySet(fieldIDs: [Int], paths: [String]) -> IcebergEqualityDeleteSet? {
        state.withLock { $0.equalitySets[EqualityKey(fieldIDs: fieldIDs, paths: paths)] }
    }

    func storeEqualitySet(_ set: IcebergEqualityDeleteSet, paths: [String]) {
        state.withLock { $0.equalitySets[EqualityKey(fieldIDs: set.fieldIDs, paths: paths)] = set }
    }
}

/// The rows of one position delete file: data file paths and row positions, nulls dropped.
///
/// The spec requires rows sorted by path then position; when they are, finding one data
/// file's positions is a binary search, otherwise a scan.
struct IcebergPositionDeleteRows: Sendable {
    let paths: VarBytes
    let positions: [Int64]
    let isSortedByPath: Bool

    init(paths: VarBytes, positions: [Int64]) {
        self.paths = paths
        self.positions = positions
        var sorted = true
        paths.data.withUnsafeBufferPointer { data in
            var row = 1
            while sorted, row < paths.count {
                let previous = data[paths.byteRange(at: row - 1)], current = data[paths.byteRange(at: row)]
                if current.lexicographicallyPrecedes(previous) { sorted = false }
                row += 1
            }
        }
        isSortedByPath = sorted
    }

    /// Appends the positions deleted in the data file whose path's UTF-8 bytes are `target`.
    func appendPositions(of target: [UInt8], to result: inout [Int64]) {
        paths.data.withUnsafeBufferPointer { data in
            var row = 0
            if isSortedByPath {
                var high = paths.count
                while row < high {
                    let middle = (row + high) / 2
                    if data[paths.byteRange(at: middle)].lexicographicallyPrecedes(target) { row = middle + 1 } else { high = middle }
                }
            }
            while row < paths.count {
                let range = paths.byteRange(at: row)
                if range.count == target.count, data[range].elementsEqual(target) {
                    result.append(positions[row])
                } else if isSortedByPath {
                    break
                }
                row += 1
            }
        }
    }
}
