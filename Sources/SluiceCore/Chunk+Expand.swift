extension Chunk {
    /// The rows of a projection with set-returning expressions: where `expands[i]`, `columns[i]`
    /// is a list column and each input row becomes one row per element of its longest list, its
    /// shorter lists padded with NULLs (a NULL list has no elements); the other columns repeat
    /// the input row's value. `types` are the output's (an element type where expanded).
    /// Returns the output and, per output row, the input row it came from; nil when no row has
    /// an element.
    /// - Complexity: O(input rows + output rows) per column, columnar (one gather each).
    package static func expandingLists(_ columns: [Column], expands: [Bool], types: [DataType], rowCount: Int) -> (chunk: Chunk, sources: [Int])? {
        var lengths = [Int](repeating: 0, count: rowCount)
        for (index, column) in columns.enumerated() where expands[index] {
            guard case .list(let offsets, _) = column.storage else { preconditionFailure("a set-returning expression is not a list") }
            for row in 0 ..< rowCount where !column.isNull(row) {
                lengths[row] = Swift.max(lengths[row], Int(offsets[row + 1] - offsets[row]))
            }
        }
        var sources: [Int] = []
        for row in 0 ..< rowCount {
            for _ in 0 ..< lengths[row] { sources.append(row) }
        }
        if sources.isEmpty { return nil }
        var output: [Column] = []
        for (index, column) in columns.enumerated() {
            guard expands[index], case .list(let offsets, let elements) = column.storage else {
                output.append(column.gather(sources))
                continue
            }
            // Each row's elements in order, then NULLs up to its longest list (source 1: one NULL).
            var picks: [(source: Int32, row: Int32)] = []
            picks.reserveCapacity(sources.count)
            for row in 0 ..< rowCount where lengths[row] > 0 {
                let count = column.isNull(row) ? 0 : Int(offsets[row + 1] - offsets[row])
                for position in 0 ..< lengths[row] {
                    picks.append(position < count ? (0, offsets[row] + Int32(position)) : (1, 0))
                }
            }
            output.append(Column.gather(from: [elements, Column.null(of: types[index])], picks: picks, type: types[index]))
        }
        return (Chunk(columns: output, count: sources.count), sources)
    }
}
