import SluiceCore

/// An ordered map from byte-string keys to rows: a list of sorted blocks of at most
/// ``blockCapacity`` entries, with the largest key of each block kept apart for binary search.
///
/// A lookup binary-searches the block maxima, then the block; an insert shifts at most one
/// block's entries and splits a block that overflows; a removal merges a block that falls
/// under a quarter full into its neighbour. Keys compare bytewise, shorter first on a common
/// prefix (the order of ``MemcomparableEncoding``). The same shape as a B+tree of height two,
/// which is all in-memory operator state needs: with blocks of 512 entries, ten million rows
/// make twenty thousand blocks, and shifting an array of twenty thousand pointers is cheap.
///
/// Not `Sendable`; a value type, but meant to live inside one ``StateTable``.
/// - Complexity: point lookups and bounds O(log n); inserts and removals O(log n) plus a shift
///   within one block (and of the block list on a split or merge); a range walk O(log n + rows).
struct SortedBlockMap {
    /// Entries per block before it splits in two.
    static let blockCapacity = 512
    /// A block with fewer entries is merged into a neighbour.
    static let minimumFill = blockCapacity / 4

    struct Block {
        var keys: [[UInt8]]
        var rows: [[Value]]
    }

    /// A place between entries: `entry` indexes into `blocks[block]`. The end position is
    /// `(blocks.count, 0)`.
    struct Position: Equatable {
        var block: Int
        var entry: Int
    }

    /// Non-empty blocks in key order; every key of a block precedes every key of the next.
    private(set) var blocks: [Block] = []
    /// `blockMaxima[b]` is the last key of `blocks[b]`.
    private var blockMaxima: [[UInt8]] = []
    private(set) var count = 0

    var endPosition: Position { Position(block: blocks.count, entry: 0) }

    // MARK: Reads

    func get(_ key: [UInt8]) -> [Value]? {
        let blockIndex = firstBlock(notBefore: key)
        guard blockIndex < blocks.count else { return nil }
        let block = blocks[blockIndex]
        let entry = Self.lowerBound(of: key, in: block.keys)
        guard entry < block.keys.count, ByteOrder.compare(block.keys[entry], key) == 0 else { return nil }
        return block.rows[entry]
    }

    /// The position of the first entry whose key is not before `key`.
    func lowerBound(_ key: [UInt8]) -> Position {
        let blockIndex = firstBlock(notBefore: key)
        guard blockIndex < blocks.count else { return endPosition }
        // The block's maximum is not before `key`, so the entry exists inside this block.
        return Position(block: blockIndex, entry: Self.lowerBound(of: key, in: blocks[blockIndex].keys))
    }

    func entry(at position: Position) -> (key: [UInt8], row: [Value]) {
        let block = blocks[position.block]
        return (block.keys[position.entry], block.rows[position.entry])
    }

    func position(after position: Position) -> Position {
        if position.entry + 1 < blocks[position.block].keys.count {
            return Position(block: position.block, entry: position.entry + 1)
        }
        return Position(block: position.block + 1, entry: 0)
    }

    /// The position just before `position`, or nil at the start.
    func position(before position: Position) -> Position? {
        if position.entry > 0 { return Position(block: position.block, entry: position.entry - 1) }
        if position.block == 0 { return nil }
        return Position(block: position.block - 1, entry: blocks[position.block - 1].keys.count - 1)
    }

    // MARK: Writes

    /// Stores `row` under `key`; returns the row it replaced, if any.
    @discardableResult
    mutating func put(_ key: [UInt8], _ row: [Value]) -> [Value]? {
        if blocks.isEmpty {
            blocks.append(Block(keys: [key], rows: [row]))
            blockMaxima.append(key)
            count = 1
            return nil
        }
        // A key past every block's maximum goes at the end of the last block.
        let blockIndex = min(firstBlock(notBefore: key), blocks.count - 1)
        let entry = Self.lowerBound(of: key, in: blocks[blockIndex].keys)
        if entry < blocks[blockIndex].keys.count, ByteOrder.compare(blocks[blockIndex].keys[entry], key) == 0 {
            let old = blocks[blockIndex].rows[entry]
            blocks[blockIndex].rows[entry] = row
            return old
        }
        blocks[blockIndex].keys.insert(key, at: entry)
        blocks[blockIndex].rows.insert(row, at: entry)
        count += 1
        if entry == blocks[blockIndex].keys.count - 1 { blockMaxima[blockIndex] = key }
        if blocks[blockIndex].keys.count > Self.blockCapacity { split(blockIndex) }
        return nil
    }

    /// Removes the entry under `key`; returns its row, if there was one.
    @discardableResult
    mutating func remove(_ key: [UInt8]) -> [Value]? {
        let blockIndex = firstBlock(notBefore: key)
        guard blockIndex < blocks.count else { return nil }
        let entry = Self.lowerBound(of: key, in: blocks[blockIndex].keys)
        guard entry < blocks[blockIndex].keys.count, ByteOrder.compare(blocks[blockIndex].keys[entry], key) == 0 else { return nil }
        blocks[blockIndex].keys.remove(at: entry)
        let old = blocks[blockIndex].rows.remove(at: entry)
        count -= 1
        let remaining = blocks[blockIndex].keys.count
        if remaining == 0 {
            blocks.remove(at: blockIndex)
            blockMaxima.remove(at: blockIndex)
            return old
        }
        if entry == remaining { blockMaxima[blockIndex] = blocks[blockIndex].keys[remaining - 1] }
        if remaining < Self.minimumFill && blocks.count > 1 { mergeWithNeighbour(blockIndex) }
        return old
    }

    /// Whether every block is non-empty, within capacity and sorted, and its recorded
    /// maximum is its last key (for tests).
    var isWellFormed: Bool {
        guard blocks.count == blockMaxima.count, blocks.reduce(0, { $0 + $1.keys.count }) == count else { return false }
        var previous: [UInt8]? = nil
        for (block, maximum) in zip(blocks, blockMaxima) {
            guard !block.keys.isEmpty, block.keys.count <= Self.blockCapacity, block.keys.count == block.rows.count,
                block.keys.last == maximum
            else { return false }
            for key in block.keys {
                if let previous, ByteOrder.compare(previous, key) >= 0 { return false }
                previous = key
            }
        }
        return true
    }

    // MARK: Blocks

    /// The index of the first block whose maximum is not before `key` (`blocks.count` if none).
    private func firstBlock(notBefore key: [UInt8]) -> Int {
        Self.lowerBound(of: key, in: blockMaxima)
    }

    /// The first index in sorted `keys` whose key is not before `key`.
    private static func lowerBound(of key: [UInt8], in keys: [[UInt8]]) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if ByteOrder.compare(keys[middle], key) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func split(_ blockIndex: Int) {
        let half = blocks[blockIndex].keys.count / 2
        let upper = Block(keys: Array(blocks[blockIndex].keys[half...]), rows: Array(blocks[blockIndex].rows[half...]))
        blocks[blockIndex].keys.removeSubrange(half...)
        blocks[blockIndex].rows.removeSubrange(half...)
        blockMaxima[blockIndex] = blocks[blockIndex].keys[half - 1]
        blocks.insert(upper, at: blockIndex + 1)
        blockMaxima.insert(upper.keys[upper.keys.count - 1], at: blockIndex + 1)
    }

    /// Folds an underfull block into the following block (the preceding one for the last
    /// block), splitting the result again if it overflows.
    private mutating func mergeWithNeighbour(_ blockIndex: Int) {
        let lower = blockIndex + 1 < blocks.count ? blockIndex : blockIndex - 1
        let upper = blocks.remove(at: lower + 1)
        blockMaxima.remove(at: lower + 1)
        blocks[lower].keys += upper.keys
        blocks[lower].rows += upper.rows
        blockMaxima[lower] = upper.keys[upper.keys.count - 1]
        if blocks[lower].keys.count > Self.blockCapacity { split(lower) }
    }
}

/// The order of memcomparable keys: bytewise, a proper prefix first.
package enum ByteOrder {
    /// -1, 0 or 1 as `lhs` sorts before, equal to or after `rhs`.
    @inlinable
    package static func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBufferPointer { left in
            rhs.withUnsafeBufferPointer { right in
                let common = Swift.min(left.count, right.count)
                var index = 0
                while index < common {
                    let (a, b) = (left[index], right[index])
                    if a != b { return a < b ? -1 : 1 }
                    index += 1
                }
                return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
            }
        }
    }
}
