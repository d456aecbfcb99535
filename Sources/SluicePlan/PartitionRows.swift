import SluiceCore

/// The rows of one window partition, in order, a chunk at a time: chunks held in memory, or
/// read back by their index from where the batch over-window spilled them. Positions count the
/// rows from the partition's first, 0.
package struct PartitionRows {
    package let types: [DataType]
    /// The position of each chunk's first row, then the row count.
    package let starts: [Int]
    private let load: (Int) throws(SluiceError) -> Chunk

    /// Rows in chunks of `sizes` rows, chunk `index` made by `load(index)` when a reader asks.
    package init(types: [DataType], chunkSizes sizes: [Int], load: @escaping (Int) throws(SluiceError) -> Chunk) {
        self.types = types
        var starts = [0]
        starts.reserveCapacity(sizes.count + 1)
        for size in sizes { starts.append(starts[starts.count - 1] + size) }
        self.starts = starts
        self.load = load
    }

    /// The rows of `chunks`, held in memory.
    package init(_ chunks: [Chunk], types: [DataType]) {
        self.init(types: types, chunkSizes: chunks.map(\.count)) { (index: Int) throws(SluiceError) -> Chunk in chunks[index] }
    }

    package var count: Int { starts[starts.count - 1] }
    package var chunkCount: Int { starts.count - 1 }

    package func chunk(_ index: Int) throws(SluiceError) -> Chunk { try load(index) }

    /// The chunk that holds row `position` (`0 ..< count`).
    func chunkIndex(of position: Int) -> Int {
        var (low, high) = (0, chunkCount - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

/// A place in a ``PartitionRows`` with the chunk it is in at hand (and the one before, for
/// frames that reach back across a chunk's start): moving to a row of either costs nothing,
/// to another chunk one load. Each reader of a partition moves on its own, mostly forward.
struct RowReader {
    let rows: PartitionRows
    /// The chunk at hand, its index and its first row's position.
    private(set) var chunk: Chunk
    private(set) var index = -1
    private(set) var base = 0
    private var other: (chunk: Chunk, index: Int)?

    init(_ rows: PartitionRows) {
        self.rows = rows
        self.chunk = Chunk(columns: [], count: 0)
    }

    /// The position past the chunk at hand's last row.
    var end: Int { base + chunk.count }

    /// Makes the chunk of row `position` the one at hand, and gives the row's index in it.
    mutating func seek(_ position: Int) throws(SluiceError) -> Int {
        if position >= base && position < end { return position - base }
        let wanted = index + 1 < rows.chunkCount && position >= end && position < rows.starts[index + 2] ? index + 1 : rows.chunkIndex(of: position)
        let previous = (chunk, index)
        if let other, other.index == wanted {
            chunk = other.chunk
        } else {
            chunk = try rows.chunk(wanted)
        }
        if previous.1 >= 0 { other = previous }
        index = wanted
        base = rows.starts[wanted]
        return position - base
    }
}
