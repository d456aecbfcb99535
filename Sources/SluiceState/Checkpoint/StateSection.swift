import SluiceCore

/// One state table's part of a checkpoint: the keys it wrote since the checkpoint before, each
/// with its row and count, and the keys it removed — or, in a base, every key it holds.
///
/// Keys are in ascending order and unique within a section, and a key is never both put and
/// removed. Rows are typed columns (``ChunkCodec``) and the section names its column types, so
/// it reads back without the catalog and is checked against what its operator expects.
///
/// A section may be whole: then it holds every key of its table and replaces all that came
/// before it (a table that stopped tracking its changes writes itself whole within a delta).
///
/// Layout: table id (u32), a whole flag byte, column count (u32) and each column's type (``TypeCodec``), key count
/// (u32), key ends (u32 each), key bytes (u32 length, then the bytes), counts (i32 each), the
/// rows (``ChunkCodec``), then the removed keys the same way as the keys.
package struct StateSection: Sendable {
    /// The state table's id within its view's fragment.
    package var table: Int
    package var types: [DataType]
    /// Keys written, ascending.
    package var keys: KeyBuffer
    /// How many times each written key's row is present (at least 1).
    package var counts: [Int32]
    /// One row per written key.
    package var rows: Chunk
    /// Keys removed, ascending.
    package var removed: KeyBuffer
    /// Every key of the table: older sections no longer count.
    package var isWhole = false

    package init(table: Int, types: [DataType], keys: KeyBuffer = KeyBuffer(), counts: [Int32] = [], rows: Chunk? = nil, removed: KeyBuffer = KeyBuffer()) {
        precondition(keys.count == counts.count && (rows?.count ?? 0) == keys.count, "section columns differ in length")
        self.table = table
        self.types = types
        self.keys = keys
        self.counts = counts
        self.rows = rows ?? Chunk(emptyOf: types)
        self.removed = removed
    }

    package var isEmpty: Bool { keys.isEmpty && removed.isEmpty }

    /// The keys at `range` with their counts and rows, without removals.
    package func slice(_ range: Range<Int>) -> StateSection {
        if range == 0 ..< keys.count && removed.isEmpty { return self }
        var sliced = KeyBuffer(reservingKeys: range.count, bytes: 0)
        for index in range { sliced.append(index, of: keys) }
        return StateSection(table: table, types: types, keys: sliced, counts: Array(counts[range]), rows: rows.slice(range))
    }

    /// Bytes of the section's buffers, about what it takes on disk.
    package var byteCount: Int {
        keys.bytes.count + keys.count * 8 + removed.bytes.count + removed.count * 4 + rows.byteCount
    }

    /// A section from puts and removals in any order: sorted, a key put more than once keeps
    /// its last put, and a key both put and removed is put (the removal was of an earlier row
    /// under it).
    package static func sorting(
        table: Int, types: [DataType], keys: KeyBuffer, counts: [Int32], rows: Chunk, removed: KeyBuffer
    ) -> StateSection {
        // Removals first, then puts; sorted by key, then by that order, so the last entry of
        // each key decides.
        let all = KeyBuffer.concatenating([removed, keys])
        let order = all.sortedIndices()
        var putIndexes: [Int] = []
        var keptKeys = KeyBuffer(reservingKeys: keys.count, bytes: keys.bytes.count)
        var keptCounts: [Int32] = []
        var keptRemoved = KeyBuffer()
        var position = 0
        while position < order.count {
            var last = position
            while last + 1 < order.count, all.compare(order[last + 1], with: order[position], of: all) == 0 { last += 1 }
            let entry = order[last]
            if entry >= removed.count {
                keptKeys.append(entry, of: all)
                keptCounts.append(counts[entry - removed.count])
                putIndexes.append(entry - removed.count)
            } else {
                keptRemoved.append(entry, of: all)
            }
            position = last + 1
        }
        return StateSection(table: table, types: types, keys: keptKeys, counts: keptCounts, rows: rows.gather(putIndexes), removed: keptRemoved)
    }

    /// A section from puts already in ascending key order, each key once (an operator that
    /// builds its rows in that order, so no sorted copy of them is made), and removals in any
    /// order: a removal of a key that is also put is dropped (the put is the newer row).
    package static func ordered(
        table: Int, types: [DataType], keys: KeyBuffer, counts: [Int32], rows: Chunk, removed: KeyBuffer
    ) -> StateSection {
        assert(keys.isStrictlyAscending, "ordered section keys are not ascending")
        guard !removed.isEmpty else { return StateSection(table: table, types: types, keys: keys, counts: counts, rows: rows) }
        // The removals sorted and told once, as any section's are; then those put again dropped.
        let sortedRemoved = sorting(table: table, types: types, keys: KeyBuffer(), counts: [], rows: Chunk(emptyOf: types), removed: removed).removed
        var keptRemoved = KeyBuffer(reservingKeys: sortedRemoved.count, bytes: sortedRemoved.bytes.count)
        for index in 0 ..< sortedRemoved.count {
            let key = sortedRemoved.key(index)
            let position = keys.count(before: key, orEqual: false)
            if position < keys.count && keys.compare(position, with: key) == 0 { continue }
            keptRemoved.append(index, of: sortedRemoved)
        }
        return StateSection(table: table, types: types, keys: keys, counts: counts, rows: rows, removed: keptRemoved)
    }

    /// The contents `sections` of one table leave, oldest first (a base, then deltas): for each
    /// key the newest put, unless a newer section removed it. With `keepingRemovals` (folding
    /// deltas into one delta) a key whose newest entry is a removal stays removed; otherwise the
    /// result has no removals.
    /// - Complexity: O(n log k) key comparisons for n entries in k sections (one k-way merge
    ///   over a heap of the sections' cursors), and one gather of the rows that win.
    package static func merged(_ sections: [StateSection], keepingRemovals: Bool = false) -> StateSection? {
        guard let lastWhole = sections.lastIndex(where: \.isWhole) ?? (sections.isEmpty ? nil : 0) else { return nil }
        let sections = Array(sections[lastWhole...])
        // Sections that only add keys after the ones before (a view that only grows): laid end
        // to end, no key compared beyond their boundaries.
        let appended = sections.indices.allSatisfy { index in
            sections[index].removed.isEmpty
                && (index == 0 || sections[index].keys.isEmpty || sections[index - 1].keys.isEmpty
                    || sections[index - 1].keys.compare(sections[index - 1].keys.count - 1, with: 0, of: sections[index].keys) < 0)
        }
        if appended && sections.count > 1 {
            // (Empty sections in between do not break the order: check across them.)
            let nonEmpty = sections.filter { !$0.keys.isEmpty }
            let ordered = zip(nonEmpty, nonEmpty.dropFirst()).allSatisfy { $0.keys.compare($0.keys.count - 1, with: 0, of: $1.keys) < 0 }
            if ordered {
                let last = sections[sections.count - 1]
                return StateSection(
                    table: last.table, types: last.types, keys: KeyBuffer.concatenating(sections.map(\.keys)),
                    counts: sections.flatMap(\.counts), rows: Chunk.concatenate(sections.map(\.rows), types: last.types))
            }
        }
        if sections.count == 1 && (keepingRemovals || sections[0].removed.isEmpty) { return sections[0] }
        return mergedAcross(sections, keepingRemovals: keepingRemovals)
    }

    /// ``merged(_:keepingRemovals:)`` of sections that may overlap: a heap holds one cursor per
    /// section's puts and one per its removals, smallest key first and, for equal keys, the
    /// newest section first; the newest entry of each key decides, and the rows that win are
    /// gathered once at the end.
    private static func mergedAcross(_ sections: [StateSection], keepingRemovals: Bool) -> StateSection {
        // Every key of every section in one buffer: cursor `2 * s` walks section s's puts,
        // `2 * s + 1` its removals, each over its range of that buffer.
        let lists = sections.flatMap { [$0.keys, $0.removed] }
        let totalBytes = lists.reduce(0) { $0 + $1.bytes.count }
        if totalBytes > 1 << 30 && sections.count > 2 {
            // Too many key bytes for one buffer's offsets: halves first.
            let middle = sections.count / 2
            let older = mergedAcross(Array(sections[..<middle]), keepingRemovals: true)
            let newer = mergedAcross(Array(sections[middle...]), keepingRemovals: true)
            return mergedAcross([older, newer], keepingRemovals: keepingRemovals)
        }
        let all = KeyBuffer.concatenating(lists)
        var start = [Int](repeating: 0, count: lists.count)
        var end = [Int](repeating: 0, count: lists.count)
        var offset = 0
        for (cursor, list) in lists.enumerated() {
            start[cursor] = offset
            offset += list.count
            end[cursor] = offset
        }
        let total = sections.reduce(0) { $0 + $1.keys.count }
        var keys = KeyBuffer(reservingKeys: total, bytes: sections.reduce(0) { $0 + $1.keys.bytes.count })
        var counts: [Int32] = []
        counts.reserveCapacity(total)
        var picks: [(source: Int32, row: Int32)] = []
        picks.reserveCapacity(total)
        var removed = KeyBuffer()
        var heap = MergeHeap(keys: all, cursors: lists.count)
        for cursor in lists.indices where start[cursor] < end[cursor] { heap.push(cursor, at: start[cursor]) }
        while let (winner, index) = heap.top {
            let section = winner >> 1
            let row = index - start[winner]
            if winner & 1 == 0 {
                keys.append(index, of: all)
                counts.append(sections[section].counts[row])
                picks.append((Int32(section), Int32(row)))
            } else if keepingRemovals {
                removed.append(index, of: all)
            }
            // This key's older entries lose: every cursor at it moves on.
            repeat {
                let (cursor, at) = heap.top!
                if at + 1 < end[cursor] { heap.replaceTop(at: at + 1) } else { heap.popTop() }
            } while heap.top.map({ all.compare($0.index, with: index, of: all) == 0 }) ?? false
        }
        let last = sections[sections.count - 1]
        let rows = Chunk.gather(from: sections.map(\.rows), picks: picks, types: last.types)
        return StateSection(table: last.table, types: last.types, keys: keys, counts: counts, rows: rows, removed: removed)
    }

    // MARK: Bytes

    package func encode(into out: inout [UInt8]) {
        out.appendLittleEndian(UInt32(table))
        out.append(isWhole ? 1 : 0)
        out.appendLittleEndian(UInt32(types.count))
        for type in types { TypeCodec.append(type, to: &out) }
        Self.encode(keys, into: &out)
        Self.appendBlock(counts, to: &out)
        ChunkCodec.encode(rows, into: &out)
        Self.encode(removed, into: &out)
    }

    /// The table id, whole flag and column types a section begins with.
    private static func readHeader(_ reader: inout ByteReader) throws(SluiceError) -> (table: Int, isWhole: Bool, types: [DataType]) {
        let table = Int(try reader.read(UInt32.self))
        let isWhole = try reader.read(UInt8.self) == 1
        let typeCount = Int(try reader.read(UInt32.self))
        guard typeCount <= reader.bytes.count - reader.offset else { throw SluiceError(.ioError, "stored data is truncated") }
        var types: [DataType] = []
        for _ in 0 ..< typeCount { types.append(try TypeCodec.readType(&reader)) }
        return (table, isWhole, types)
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer, offset: inout Int) throws(SluiceError) -> StateSection {
        var reader = ByteReader(bytes: bytes, offset: offset)
        let (table, isWhole, types) = try readHeader(&reader)
        let keys = try decodeKeys(&reader)
        let counts = try reader.readArray(Int32.self, count: keys.count)
        guard counts.allSatisfy({ $0 > 0 }) else { throw SluiceError(.ioError, "stored state has a row count below one") }
        var chunkOffset = reader.offset
        let rows = try ChunkCodec.decode(bytes, offset: &chunkOffset, types: types)
        guard rows.count == keys.count else { throw SluiceError(.ioError, "stored state has \(rows.count) rows for \(keys.count) keys") }
        reader.skip(to: chunkOffset)
        let removed = try decodeKeys(&reader)
        offset = reader.offset
        var section = StateSection(table: table, types: types, keys: keys, counts: counts, rows: rows, removed: removed)
        section.isWhole = isWhole
        return section
    }

    /// What a page restored lazily from a section needs to know before its rows are read.
    package struct Summary: Sendable {
        package var table: Int
        package var isWhole: Bool
        package var types: [DataType]
        package var keyCount: Int
        /// The first key and the last, in that order (both the same key when there is one, and
        /// none when there are no keys).
        package var bounds: KeyBuffer
        /// Rows present: the counts added up.
        package var rowCount: Int
    }

    /// The summary of the section `bytes` holds, reading its keys' first one and its counts
    /// but not its rows (which ``decode(_:offset:)`` checks when the page is read).
    package static func summary(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) -> Summary {
        var reader = ByteReader(bytes: bytes, offset: 0)
        let (table, isWhole, types) = try readHeader(&reader)
        let count = Int(try reader.read(UInt32.self))
        let ends = try reader.readArray(UInt32.self, count: count)
        let length = Int(try reader.read(UInt32.self))
        let keyStart = reader.offset
        guard length <= bytes.count - keyStart else { throw SluiceError(.ioError, "stored data is truncated") }
        var bounds = KeyBuffer()
        if count > 0 {
            let lastStart = count > 1 ? Int(ends[count - 2]) : 0
            guard ends[0] <= UInt32(length), Int(ends[count - 1]) <= length, lastStart <= Int(ends[count - 1]) else {
                throw SluiceError(.ioError, "stored keys are malformed")
            }
            bounds.append(UnsafeRawBufferPointer(rebasing: bytes[keyStart ..< keyStart + Int(ends[0])]))
            bounds.append(UnsafeRawBufferPointer(rebasing: bytes[keyStart + lastStart ..< keyStart + Int(ends[count - 1])]))
        }
        reader.skip(to: keyStart + length)
        let counts = try reader.readArray(Int32.self, count: count)
        guard counts.allSatisfy({ $0 > 0 }) else { throw SluiceError(.ioError, "stored state has a row count below one") }
        return Summary(
            table: table, isWhole: isWhole, types: types, keyCount: count, bounds: bounds,
            rowCount: counts.reduce(0) { $0 + Int($1) })
    }

    private static func encode(_ keys: KeyBuffer, into out: inout [UInt8]) {
        out.appendLittleEndian(UInt32(keys.count))
        appendBlock(keys.ends, to: &out)
        out.appendLittleEndian(UInt32(keys.bytes.count))
        out += keys.bytes
    }

    /// `values` little-endian: one block copy on a little-endian host.
    private static func appendBlock(_ values: [Int32], to out: inout [UInt8]) {
        #if _endian(little)
        values.withUnsafeBytes { out.append(contentsOf: $0) }
        #else
        for value in values { out.appendLittleEndian(value) }
        #endif
    }

    private static func decodeKeys(_ reader: inout ByteReader) throws(SluiceError) -> KeyBuffer {
        let count = Int(try reader.read(UInt32.self))
        let ends = try reader.readArray(UInt32.self, count: count)
        let length = Int(try reader.read(UInt32.self))
        let bytes = try reader.readBytes(length)
        var previous: UInt32 = 0
        for end in ends {
            guard end >= previous, end <= UInt32(length), end <= UInt32(Int32.max) else { throw SluiceError(.ioError, "stored keys are malformed") }
            previous = end
        }
        guard previous == UInt32(length) else { throw SluiceError(.ioError, "stored keys are malformed") }
        let keys = KeyBuffer(bytes: bytes, ends: ends.map { Int32(bitPattern: $0) })
        // Ascending and unique, as every reader of a section assumes.
        for index in keys.count > 1 ? 1 ..< keys.count : 0 ..< 0 where keys.compare(index - 1, with: index, of: keys) >= 0 {
            throw SluiceError(.ioError, "stored keys are out of order")
        }
        return keys
    }
}

extension KeyBuffer {
    /// The keys of `buffers`, one after the other: their bytes and their shifted ends, a block each.
    static func concatenating(_ buffers: [KeyBuffer]) -> KeyBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(buffers.reduce(0) { $0 + $1.bytes.count })
        var ends: [Int32] = []
        ends.reserveCapacity(buffers.reduce(0) { $0 + $1.count })
        for buffer in buffers {
            let shift = Int32(bytes.count)
            bytes += buffer.bytes
            ends += buffer.ends.map { $0 + shift }
        }
        return KeyBuffer(bytes: bytes, ends: ends)
    }

    /// The indexes of the keys in ascending key order; equal keys keep their order.
    func sortedIndices() -> [Int] {
        sortedOrder().map(Int.init)
    }
}

/// The cursors of a k-way merge of sorted key lists laid end to end in one ``KeyBuffer``: a
/// binary heap of (cursor, key index), smallest key first and, for equal keys, the highest
/// cursor (the newest section) first.
private struct MergeHeap {
    private let keys: KeyBuffer
    private var entries: [(cursor: Int, index: Int)] = []

    init(keys: KeyBuffer, cursors: Int) {
        self.keys = keys
        entries.reserveCapacity(cursors)
    }

    var top: (cursor: Int, index: Int)? { entries.first }

    private func precedes(_ a: (cursor: Int, index: Int), _ b: (cursor: Int, index: Int)) -> Bool {
        let order = keys.compare(a.index, with: b.index, of: keys)
        return order != 0 ? order < 0 : a.cursor > b.cursor
    }

    mutating func push(_ cursor: Int, at index: Int) {
        entries.append((cursor, index))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if !precedes(entries[child], entries[parent]) { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Moves the top cursor to key `index` (its next).
    mutating func replaceTop(at index: Int) {
        entries[0].index = index
        siftDown()
    }

    mutating func popTop() {
        entries[0] = entries[entries.count - 1]
        entries.removeLast()
        if !entries.isEmpty { siftDown() }
    }

    private mutating func siftDown() {
        var parent = 0
        let count = entries.count
        while true {
            let left = 2 * parent + 1
            if left >= count { return }
            var child = left
            if left + 1 < count && precedes(entries[left + 1], entries[left]) { child = left + 1 }
            if !precedes(entries[child], entries[parent]) { return }
            entries.swapAt(child, parent)
            parent = child
        }
    }
}
