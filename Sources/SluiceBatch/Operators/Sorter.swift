import SluiceCore
import SluiceState
import SluiceExpr
import SluicePlan

/// ORDER BY (stable), in memory.
///
/// The rows stay in their chunks: only the key columns are gathered into one chunk to find the
/// order, and the sorted rows are gathered from the input a chunk at a time as they are read,
/// so a sort holds its input once, plus its keys and 16 bytes a row.
enum Sorter {
    static func sort(_ chunks: [Chunk], types: [DataType], keys: [SortKey]) -> [Chunk] {
        try! sorted(chunks, types: types, keys: keys).drain()
    }

    /// The bytes sorting `chunk` holds: its own, its keys' copy, and the order's words and row numbers.
    static func cost(of chunk: Chunk, keys: [SortKey]) -> Int {
        chunk.approximateBytes + keys.reduce(0) { $0 + chunk.columns[$1.column].approximateBytes } + 32 * chunk.count
    }

    /// The rows of `chunks` in order, gathered a chunk at a time as the stream is read.
    static func sorted(_ chunks: [Chunk], types: [DataType], keys: [SortKey]) -> ChunkStream {
        let chunks = chunks.filter { $0.count > 0 }
        if keys.isEmpty || chunks.isEmpty || (chunks.count == 1 && chunks[0].count <= 1) { return ChunkStream.of(chunks) }
        var starts: [Int] = []
        var total = 0
        for chunk in chunks {
            starts.append(total)
            total += chunk.count
        }
        let keyChunk = Chunk.concatenate(
            chunks.map { chunk in Chunk(columns: keys.map { chunk.columns[$0.column] }, count: chunk.count) },
            types: keys.map { types[$0.column] })
        let order = permutation(of: keyChunk, keys: keys.enumerated().map { SortKey(column: $0.offset, descending: $0.element.descending, nullsFirst: $0.element.nullsFirst) })
        let text = TextWidth(types: types)
        var position = 0
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            guard position < order.count else { return nil }
            var picks: [(source: Int32, row: Int32)] = []
            picks.reserveCapacity(min(Chunk.preferredSize, order.count - position))
            // The chunks this output chunk takes rows from (not all of them: a gather walks its
            // sources), and each one's place among them.
            var sources: [Chunk] = []
            var sourceOf: [Int: Int32] = [:]
            var bytes = 0
            while position < order.count && picks.count < Chunk.preferredSize && bytes < TextWidth.chunkBytes {
                let index = order[position]
                position += 1
                // The chunk holding global row `index`: the last whose start is at most it.
                var low = 0
                var high = starts.count - 1
                while low < high {
                    let middle = (low + high + 1) / 2
                    if starts[middle] <= index { low = middle } else { high = middle - 1 }
                }
                let source: Int32
                if let known = sourceOf[low] {
                    source = known
                } else {
                    source = Int32(sources.count)
                    sourceOf[low] = source
                    sources.append(chunks[low])
                }
                picks.append((source, Int32(index - starts[low])))
                if text.hasText { bytes += text.bytes(chunks[low], index - starts[low]) }
            }
            return Chunk.gather(from: sources, picks: picks, types: types)
        }
    }

    /// Row indexes of `chunk` in sorted order (stable).
    static func permutation(of chunk: Chunk, keys: [SortKey]) -> [Int] {
        if let words = NormalizedKeys(chunk, keys: keys) { return words.permutation() }
        return Array(0 ..< chunk.count).sorted { a, b in
            let order = compare(chunk, a, chunk, b, keys: keys)
            return order != 0 ? order < 0 : a < b
        }
    }

    /// How row `a` of `x` sorts against row `b` of `y` by `keys`: negative before, positive after.
    static func compare(_ x: Chunk, _ a: Int, _ y: Chunk, _ b: Int, keys: [SortKey]) -> Int {
        for key in keys {
            let (left, right) = (x.columns[key.column], y.columns[key.column])
            let (aNull, bNull) = (left.isNull(a), right.isNull(b))
            if aNull || bNull {
                if aNull == bNull { continue }
                return aNull == key.nullsFirst ? -1 : 1
            }
            let order = ValueOrdering.compare(left, a, right, b)
            if order != 0 { return key.descending ? -order : order }
        }
        return 0
    }
}

/// Sort keys of integer and boolean columns (dates, times and timestamps among them) as
/// unsigned words, a row's words comparing as its keys do with each key's direction and null
/// placement folded in: a sort then compares machine words, not values of any type (DuckDB
/// sorts on normalized keys too). A key takes one word, or two (null rank, value) for a bigint
/// column with nulls (or any bigint column, with `fixedLayout`).
struct NormalizedKeys {
    let width: Int
    let count: Int
    private(set) var words: [UInt64]

    /// `fixedLayout`: bigint keys take two words whether or not the chunk has nulls, so that
    /// chunks of one type compare with each other (a merge's runs).
    init?(_ chunk: Chunk, keys: [SortKey], fixedLayout: Bool = false) {
        var columns: [(words: Int, fill: (inout [UInt64], Int, Int) -> Void)] = []
        for key in keys {
            let column = chunk.columns[key.column]
            let validity = column.hasNulls ? column.validity : nil
            let descending = key.descending
            // Nulls as the least or the greatest word.
            let nullWord: UInt64 = key.nullsFirst ? 0 : .max
            func narrow<T: FixedWidthInteger & SignedInteger>(_ values: [T]) -> (inout [UInt64], Int, Int) -> Void {
                { words, width, offset in
                    for row in values.indices {
                        let slot = row * width + offset
                        if let validity, !validity[row] {
                            words[slot] = nullWord
                            continue
                        }
                        // 1 … 2^32 for 32-bit values: 0 and .max stay free for nulls.
                        let shifted = UInt64(Int64(values[row]) - Int64(Int32.min)) + 1
                        words[slot] = descending ? (UInt64(1) << 33) - shifted : shifted
                    }
                }
            }
            switch column.storage {
            case .int16(let values): columns.append((1, narrow(values)))
            case .int32(let values): columns.append((1, narrow(values)))
            case .bool(let values):
                columns.append((1, { words, width, offset in
                    for row in values.indices {
                        let slot = row * width + offset
                        if let validity, !validity[row] {
                            words[slot] = nullWord
                        } else {
                            words[slot] = (values[row] != descending) ? 2 : 1
                        }
                    }
                }))
            case .int64(let values):
                let flip: UInt64 = descending ? .max : 0
                if validity != nil || fixedLayout {
                    let nullRank: UInt64 = key.nullsFirst ? 0 : 2
                    columns.append((2, { words, width, offset in
                        for row in values.indices {
                            let slot = row * width + offset
                            if let validity, !validity[row] {
                                words[slot] = nullRank
                                words[slot + 1] = 0
                            } else {
                                words[slot] = 1
                                words[slot + 1] = (UInt64(bitPattern: values[row]) ^ (1 << 63)) ^ flip
                            }
                        }
                    }))
                } else {
                    columns.append((1, { words, width, offset in
                        for row in values.indices { words[row * width + offset] = (UInt64(bitPattern: values[row]) ^ (1 << 63)) ^ flip }
                    }))
                }
            default:
                return nil
            }
        }
        width = columns.reduce(0) { $0 + $1.words }
        count = chunk.count
        var words = [UInt64](repeating: 0, count: width * count)
        var offset = 0
        for column in columns {
            column.fill(&words, width, offset)
            offset += column.words
        }
        self.words = words
    }

    /// How row `a` of `x` sorts against row `b` of `y` (keys of one layout).
    @inline(__always)
    static func compare(_ x: NormalizedKeys, _ a: Int, _ y: NormalizedKeys, _ b: Int) -> Int {
        let width = x.width
        for offset in 0 ..< width {
            let (left, right) = (x.words[a * width + offset], y.words[b * width + offset])
            if left != right { return left < right ? -1 : 1 }
        }
        return 0
    }

    /// Row indexes in the words' order, ties in row order.
    func permutation() -> [Int] {
        if width == 1 {
            // Word and row in one pair: the sort moves 16 bytes and reads nothing else.
            var pairs = [(word: UInt64, row: Int)]()
            pairs.reserveCapacity(count)
            for row in 0 ..< count { pairs.append((words[row], row)) }
            pairs.sort { $0.word != $1.word ? $0.word < $1.word : $0.row < $1.row }
            return pairs.map(\.row)
        }
        let width = self.width
        return words.withUnsafeBufferPointer { words in
            Array(0 ..< count).sorted { a, b in
                for offset in 0 ..< width {
                    let (x, y) = (words[a * width + offset], words[b * width + offset])
                    if x != y { return x < y }
                }
                return a < b
            }
        }
    }
}

/// The text bytes of rows, to end a sorted output chunk before its text grows past
/// ``chunkBytes`` (a thousand long strings would make one chunk of gigabytes).
struct TextWidth {
    static let chunkBytes = 16 << 20
    let columns: [Int]
    var hasText: Bool { !columns.isEmpty }

    init(types: [DataType]) {
        columns = types.indices.filter { if case .bytes = ColumnStorage.empty(for: types[$0]) { true } else { false } }
    }

    func bytes(_ chunk: Chunk, _ row: Int) -> Int {
        var total = 0
        for column in columns {
            if case .bytes(let values) = chunk.columns[column].storage { total += values.byteRange(at: row).count }
        }
        return total
    }
}
