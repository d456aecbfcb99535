import SluiceCore

/// One state table's part of a checkpoint: the keys it wrote since the checkpoint before, each
/// with its row and count, and the keys it removed — or, in a base, every key it holds.
///
/// Keys are in ascending order and unique within a section, and a key is never both put and
/// removed. Rows are typed columns (``ChunkCodec``) and the section names its column types, so
/// it reads back without the catalog and is checked against what its operator expects.
///
/// Layout: table id (u32), column count (u32) and each column's type (``TypeCodec``), key count
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

    /// Bytes of the section's buffers, about what it takes on disk.
    package var byteCount: Int {
        keys.bytes.count + keys.count * 8 + removed.bytes.count + removed.count * 4 + rows.columns.reduce(0) { $0 + StatePage.bytes(of: $1) }
    }

    /// A section from puts and removals in any order: sorted, a key put more than once keeps
    /// its last put, and a key both put and removed is put (the removal was of an earlier row
    /// under it).
    package static func sorting(
        table: Int, types: [DataType], keys: KeyBuffer, counts: [Int32], rows: Chunk, removed: KeyBuffer
    ) -> StateSection {
        // Removals first, then puts; sorted by key, then by that order, so the last entry of
        // each key decides.
        let all = KeyBuffer.concatenating(removed, keys)
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

    /// The contents `sections` of one table leave, oldest first (a base, then deltas): for each
    /// key the newest put, unless a newer section removed it. With `keepingRemovals` (folding
    /// deltas into one delta) a key whose newest entry is a removal stays removed; otherwise the
    /// result has no removals.
    package static func merged(_ sections: [StateSection], keepingRemovals: Bool = false) -> StateSection? {
        guard let first = sections.first else { return nil }
        if sections.count == 1 && (first.removed.isEmpty || keepingRemovals) { return first }
        // Entries of every section in order, puts then removals of each.
        var all = KeyBuffer()
        var entries: [(section: Int32, row: Int32)] = []
        for (index, section) in sections.enumerated() {
            all = KeyBuffer.concatenating(all, section.keys, section.removed)
            for row in 0 ..< section.keys.count { entries.append((Int32(index), Int32(row))) }
            for _ in 0 ..< section.removed.count { entries.append((Int32(index), -1)) }
        }
        let order = all.sortedIndices()
        var keys = KeyBuffer(reservingKeys: all.count, bytes: all.bytes.count)
        var counts: [Int32] = []
        var picks: [(section: Int32, row: Int32)] = []
        var removed = KeyBuffer()
        var position = 0
        while position < order.count {
            var last = position
            while last + 1 < order.count, all.compare(order[last + 1], with: order[position], of: all) == 0 { last += 1 }
            let entry = entries[order[last]]
            if entry.row >= 0 {
                keys.append(order[last], of: all)
                counts.append(sections[Int(entry.section)].counts[Int(entry.row)])
                picks.append(entry)
            } else if keepingRemovals {
                removed.append(order[last], of: all)
            }
            position = last + 1
        }
        // The rows, gathered per section and then put in key order.
        var perSection = [[Int]](repeating: [], count: sections.count)
        var place: [(section: Int, index: Int)] = []
        place.reserveCapacity(picks.count)
        for pick in picks {
            place.append((Int(pick.section), perSection[Int(pick.section)].count))
            perSection[Int(pick.section)].append(Int(pick.row))
        }
        var offsets: [Int] = []
        var running = 0
        var gathered: [Chunk] = []
        for (index, rows) in perSection.enumerated() {
            offsets.append(running)
            running += rows.count
            gathered.append(sections[index].rows.gather(rows))
        }
        let combined = Chunk.concatenate(gathered, types: first.types)
        let rows = combined.gather(place.map { offsets[$0.section] + $0.index })
        return StateSection(table: first.table, types: first.types, keys: keys, counts: counts, rows: rows, removed: removed)
    }

    // MARK: Bytes

    package func encode(into out: inout [UInt8]) {
        out.appendLittleEndian(UInt32(table))
        out.appendLittleEndian(UInt32(types.count))
        for type in types { TypeCodec.append(type, to: &out) }
        Self.encode(keys, into: &out)
        for count in counts { out.appendLittleEndian(count) }
        ChunkCodec.encode(rows, into: &out)
        Self.encode(removed, into: &out)
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer, offset: inout Int) throws(SluiceError) -> StateSection {
        var reader = ByteReader(bytes: bytes, offset: offset)
        let table = Int(try reader.read(UInt32.self))
        let typeCount = Int(try reader.read(UInt32.self))
        guard typeCount <= bytes.count - reader.offset else { throw SluiceError(.ioError, "stored data is truncated") }
        var types: [DataType] = []
        for _ in 0 ..< typeCount { types.append(try TypeCodec.readType(&reader)) }
        let keys = try decodeKeys(&reader)
        let counts = try reader.readArray(Int32.self, count: keys.count)
        guard counts.allSatisfy({ $0 > 0 }) else { throw SluiceError(.ioError, "stored state has a row count below one") }
        var chunkOffset = reader.offset
        let rows = try ChunkCodec.decode(bytes, offset: &chunkOffset, types: types)
        guard rows.count == keys.count else { throw SluiceError(.ioError, "stored state has \(rows.count) rows for \(keys.count) keys") }
        reader.skip(to: chunkOffset)
        let removed = try decodeKeys(&reader)
        offset = reader.offset
        return StateSection(table: table, types: types, keys: keys, counts: counts, rows: rows, removed: removed)
    }

    private static func encode(_ keys: KeyBuffer, into out: inout [UInt8]) {
        out.appendLittleEndian(UInt32(keys.count))
        for end in keys.ends { out.appendLittleEndian(UInt32(end)) }
        out.appendLittleEndian(UInt32(keys.bytes.count))
        out += keys.bytes
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
    /// The keys of `buffers`, one after the other.
    static func concatenating(_ buffers: KeyBuffer...) -> KeyBuffer {
        var result = KeyBuffer(reservingKeys: buffers.reduce(0) { $0 + $1.count }, bytes: buffers.reduce(0) { $0 + $1.bytes.count })
        for buffer in buffers {
            for index in 0 ..< buffer.count { result.append(index, of: buffer) }
        }
        return result
    }

    /// The indexes of the keys in ascending key order; equal keys keep their order.
    func sortedIndices() -> [Int] {
        var order = Array(0 ..< count)
        order.sort { left, right in
            let result = compare(left, with: right, of: self)
            return result < 0 || (result == 0 && left < right)
        }
        return order
    }
}
