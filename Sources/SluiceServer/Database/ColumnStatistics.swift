import Foundation
import Synchronization
import SluiceBatch
import SluiceCore
import SluiceState

/// Estimates of how many distinct values stored columns hold, for the optimizer's join
/// estimates: from a sample of about 8,192 rows spread over the table, by Haas and Stokes's
/// first-order jackknife estimator Duj1 ("Estimating the number of classes in a finite
/// population", 1998). GEE, used before, took a uniform column of 10,000 values in 6 million
/// rows (TPC-H's `l_suppkey`) for 99,000 and so misjudged which join side was smaller; Duj1 says
/// about 10,000, and a unique column's estimate is its row count. An estimate is kept until the
/// table's row count moves by a tenth.
final class ColumnStatistics: Sendable {
    private struct Entry {
        var rows: Int
        var distinct: Double
    }

    private let entries = Mutex<[Int: [Int: Entry]]>([:])
    static let sampleSize = 8_192

    func distinctValues(table: Int, column: Int, in store: TableStore) -> Double? {
        let rows = store.rowCount
        guard rows > 0 else { return nil }
        if let entry = entries.withLock({ $0[table]?[column] }), abs(entry.rows - rows) * 10 <= entry.rows {
            return entry.distinct
        }
        guard let distinct = Self.estimate(column: column, in: store) else { return nil }
        entries.withLock { $0[table, default: [:]][column] = Entry(rows: rows, distinct: distinct) }
        return distinct
    }

    static func estimate(column: Int, in store: TableStore) -> Double? {
        let chunks = store.snapshot().chunks
        let total = chunks.reduce(0) { $0 + $1.count }
        guard total > 0, let first = chunks.first, column < first.columns.count else { return nil }
        let step = max(1, total / sampleSize)
        var seen: [UInt64: Int32] = [:]
        var sampled = 0
        var position = 0
        for chunk in chunks {
            let start = (step - position % step) % step
            if start < chunk.count {
                let rows = Array(stride(from: start, to: chunk.count, by: step))
                let sample = Chunk(columns: [chunk.columns[column].gather(rows)], count: rows.count)
                for hash in KeyHash.hashes(sample, keys: [0]) { seen[hash, default: 0] += 1 }
                sampled += rows.count
            }
            position += chunk.count
        }
        let distinct = Double(seen.count)
        if sampled >= total { return distinct }
        let once = Double(seen.values.reduce(0) { $0 + ($1 == 1 ? 1 : 0) })
        let (n, big) = (Double(sampled), Double(total))
        // d·n / (n − f1 + f1·n/N): every value seen once in a sample of a unique column gives N.
        return min(big, max(distinct, distinct * n / (n - once + once * n / big)))
    }
}
