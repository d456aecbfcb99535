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
