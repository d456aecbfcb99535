import SluiceCore
import SluiceState
import SluiceExpr
import SluicePlan

/// ORDER BY: gathers the input and sorts it by the keys (stable).
enum Sorter {
    static func sort(_ chunks: [Chunk], types: [DataType], keys: [SortKey]) -> [Chunk] {
        let all = Chunk.concatenate(chunks, types: types)
        if all.count <= 1 || keys.isEmpty { return all.isEmpty ? [] : [all] }
        let order = permutation(of: all, keys: keys)
        let sorted = all.gather(order)
        return stride(from: 0, to: sorted.count, by: Chunk.preferredSize).map {
            sorted.slice($0 ..< min(sorted.count, $0 + Chunk.preferredSize))
        }
    }

    /// Row indexes of `chunk` in sorted order.
    static func permutation(of chunk: Chunk, keys: [SortKey]) -> [Int] {
        // Fast path: one non-null bigint key.
        if keys.count == 1, case .int64(let values) = chunk.columns[keys[0].column].storage,
            !chunk.columns[keys[0].column].hasNulls
        {
            let descending = keys[0].descending
            return Array(0 ..< chunk.count).sorted { a, b in
                let (x, y) = (values[a], values[b])
                if x != y { return descending ? x > y : x < y }
                return a < b
            }
        }
        return Array(0 ..< chunk.count).sorted { a, b in
            for key in keys {
                let column = chunk.columns[key.column]
                let (aNull, bNull) = (column.isNull(a), column.isNull(b))
                if aNull || bNull {
                    if aNull == bNull { continue }
                    return aNull == key.nullsFirst
                }
                let order = ValueOrdering.compare(column, a, column, b)
                if order != 0 { return key.descending ? order > 0 : order < 0 }
            }
            return a < b
        }
    }
}

/// DISTINCT, UNION, INTERSECT and EXCEPT over whole rows.
enum SetOperations {
    static func distinct(_ chunks: [Chunk], types: [DataType]) -> [Chunk] {
        var seen = Set<KeyBytes>()
        var output: [Chunk] = []
        let allColumns = Array(types.indices)
        for chunk in chunks {
            var keep: [Int] = []
            for rowIndex in 0 ..< chunk.count where seen.insert(KeyBytes(chunk, row: rowIndex, columns: allColumns)).inserted {
                keep.append(rowIndex)
            }
            if !keep.isEmpty { output.append(chunk.gather(keep)) }
        }
        return output
    }

    static func apply(_ kind: SetOperationKind, all: Bool, left: [Chunk], right: [Chunk], types: [DataType]) -> [Chunk] {
        let allColumns = Array(types.indices)
        var counts: [KeyBytes: Int] = [:]
        for chunk in right {
            for rowIndex in 0 ..< chunk.count { counts[KeyBytes(chunk, row: rowIndex, columns: allColumns), default: 0] += 1 }
        }
        var emitted = Set<KeyBytes>()
        var output: [Chunk] = []
        for chunk in left {
            var keep: [Int] = []
            for rowIndex in 0 ..< chunk.count {
                let key = KeyBytes(chunk, row: rowIndex, columns: allColumns)
                let available = counts[key] ?? 0
                switch (kind, all) {
                case (.intersect, true):
                    if available > 0 {
                        counts[key] = available - 1
                        keep.append(rowIndex)
                    }
                case (.intersect, false):
                    if available > 0 && emitted.insert(key).inserted { keep.append(rowIndex) }
                case (.except, true):
                    if available > 0 { counts[key] = available - 1 } else { keep.append(rowIndex) }
                case (.except, false):
                    if available == 0 && emitted.insert(key).inserted { keep.append(rowIndex) }
                }
            }
            if !keep.isEmpty { output.append(chunk.gather(keep)) }
        }
        return output
    }
}
