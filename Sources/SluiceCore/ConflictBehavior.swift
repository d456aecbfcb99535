/// What a table with a primary key does with a row whose key it already holds (RisingWave's
/// `ON CONFLICT` clause of CREATE TABLE).
package enum ConflictBehavior: String, Sendable, Codable, Equatable {
    /// The new row replaces the old one (`ON CONFLICT DO UPDATE FULL`, `OVERWRITE`; the default).
    case overwrite
    /// The old row stays and the new one is dropped (`ON CONFLICT DO NOTHING`, `IGNORE`).
    case ignore
    /// The new row's non-null columns replace the old row's; its nulls keep the old values
    /// (`ON CONFLICT DO UPDATE IF NOT NULL`).
    case updateIfNotNull

    /// `rows` (one table's columns) with each key's rows folded into one, in order, as writing
    /// them one after the other would leave it: the first row for `ignore`, the non-null
    /// values last written for `updateIfNotNull`, the last row for `overwrite`. `key` gives
    /// each row's key; rows come out in the order their keys first appear.
    /// - Complexity: O(rows × columns), one gather per column and fold round.
    package func folding<Key: Hashable>(_ rows: Chunk, key: (Int) -> Key) -> Chunk {
        var position: [Key: Int] = [:]
        var firsts: [Int] = []
        // Round r holds each key's (r+1)th row: (its row, the position of its key's first row).
        var rounds: [[(row: Int, target: Int)]] = []
        var seen: [Int] = []
        for row in 0 ..< rows.count {
            let rowKey = key(row)
            if let target = position[rowKey] {
                seen[target] += 1
                if rounds.count < seen[target] { rounds.append([]) }
                rounds[seen[target] - 1].append((row, target))
            } else {
                position[rowKey] = firsts.count
                firsts.append(row)
                seen.append(0)
            }
        }
        if rounds.isEmpty { return rows }
        var folded = rows.gather(firsts)
        if self == .ignore { return folded }
        for round in rounds {
            folded = merging(round.map { (source: $0.row, into: $0.target) }, of: rows, into: folded)
        }
        return folded
    }

    /// `base` with row `into` of each pair replaced by row `source` of `newer` as this behavior
    /// replaces an old row by a new one.
    package func merging(_ pairs: [(source: Int, into: Int)], of newer: Chunk, into base: Chunk) -> Chunk {
        var sourceOf = [Int](repeating: -1, count: base.count)
        for pair in pairs { sourceOf[pair.into] = pair.source }
        let columns = base.columns.indices.map { columnIndex -> Column in
            let newColumn = newer.columns[columnIndex]
            let picks = (0 ..< base.count).map { row -> (source: Int32, row: Int32) in
                let source = sourceOf[row]
                guard source >= 0, self == .overwrite || !newColumn.isNull(source) else { return (0, Int32(row)) }
                return (1, Int32(source))
            }
            return Column.gather(from: [base.columns[columnIndex], newColumn], picks: picks, type: base.columns[columnIndex].type)
        }
        return Chunk(columns: columns, count: base.count)
    }
}
