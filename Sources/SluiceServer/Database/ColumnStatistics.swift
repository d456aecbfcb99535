import Foundation
import Synchronization
import SluiceBatch
import SluiceCore
import SluiceState

/// Estimates of how many distinct values stored columns hold, for the optimizer's join
/// estimates: from a sample of about 8,192 rows spread over the table, by the GEE estimator
/// (Charikar et al., "Towards estimation error guarantees for distinct values") — the values seen
/// once, scaled by the square root of the sampling fraction, plus those seen more than once — or,
/// when almost every sampled value is different, the sampled fraction of distinct values scaled
/// to the table. An estimate is kept until the table's row count moves by a tenth.
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
        if distinct >= 0.9 * Double(sampled) { return Double(total) * distinct / Double(sampled) }
        return min(Double(total), (Double(total) / Double(sampled)).squareRoot() * once + (distinct - once))
    }
}
