import SluiceCore

/// The state of one stateful operator: rows keyed by memcomparable bytes, kept in key order,
/// with a record of what the current epoch changed.
///
/// Writes go straight into an ordered map (``SortedBlockMap``), so reads — point lookups,
/// bounds and range scans — see the epoch's writes at no extra cost. Beside it, the epoch log
/// keeps each changed key's row from the start of the epoch and its row now: ``commitEpoch(_:)``
/// turns the log into the epoch's ``StateDelta`` (the unit a checkpoint writes) without
/// touching the rest of the table, and ``discardEpoch()`` puts the old rows back.
/// Owned by one operator on one thread; not `Sendable`.
/// - Complexity: `get`, `put`, `delete`, `first`, `last` O(log n); a scan O(log n + rows
///   returned); commit O(m log m) and discard O(m log n) for m keys changed in the epoch.
package final class StateTable {
    package let id: Int
    private var map = SortedBlockMap()
    /// The epoch's changed keys: the row at the start of the epoch and the row now (nil: none).
    private var changes: [[UInt8]: Change] = [:]
    /// Keys committed since the last checkpoint wrote this table (kept while ``tracksChanges``).
    private var sinceCheckpoint = Set<[UInt8]>()
    /// Whether commits keep their keys for the next checkpoint.
    package var tracksChanges = false
    /// More keys changed since the last checkpoint than are worth keeping: the next checkpoint
    /// writes the table whole.
    package private(set) var needsFullCheckpoint = false

    private struct Change {
        var old: [Value]?
        var new: [Value]?
    }

    package init(id: Int) {
        self.id = id
    }

    /// The row stored under `key`, including this epoch's writes.
    package func get(_ key: [UInt8]) -> [Value]? {
        map.get(key)
    }

    /// Stores `row` under `key`, replacing any row there.
    package func put(_ key: [UInt8], _ row: [Value]) {
        let old = map.put(key, row)
        if let index = changes.index(forKey: key) {
            changes.values[index].new = row
        } else {
            changes[key] = Change(old: old, new: row)
        }
    }

    /// Removes the row under `key`, if any.
    package func delete(_ key: [UInt8]) {
        guard let old = map.remove(key) else { return }
        if let index = changes.index(forKey: key) {
            changes.values[index].new = nil
        } else {
            changes[key] = Change(old: old, new: nil)
        }
    }

    /// The number of rows, including this epoch's writes.
    package var count: Int { map.count }

    /// The number of entries in each block of the ordered map, and whether the map's
    /// invariants hold (for tests).
    var blockSizes: (sizes: [Int], isWellFormed: Bool) { (map.blocks.map(\.keys.count), map.isWellFormed) }

    /// Rows with `lower <= key < upper` (either bound may be nil), in key order, including this
    /// epoch's writes.
    package func scan(from lower: [UInt8]? = nil, to upper: [UInt8]? = nil) -> [(key: [UInt8], row: [Value])] {
        var result: [(key: [UInt8], row: [Value])] = []
        var position = lower.map(map.lowerBound) ?? SortedBlockMap.Position(block: 0, entry: 0)
        let end = map.endPosition
        while position != end {
            let entry = map.entry(at: position)
            if let upper, ByteOrder.compare(entry.key, upper) >= 0 { break }
            result.append(entry)
            position = map.position(after: position)
        }
        return result
    }

    /// The first row in key order within the bounds (the minimum for an ordered key).
    package func first(from lower: [UInt8]? = nil, to upper: [UInt8]? = nil) -> (key: [UInt8], row: [Value])? {
        let position = lower.map(map.lowerBound) ?? SortedBlockMap.Position(block: 0, entry: 0)
        guard position != map.endPosition else { return nil }
        let entry = map.entry(at: position)
        if let upper, ByteOrder.compare(entry.key, upper) >= 0 { return nil }
        return entry
    }

    /// The last row in key order within the bounds (the maximum for an ordered key).
    package func last(from lower: [UInt8]? = nil, to upper: [UInt8]? = nil) -> (key: [UInt8], row: [Value])? {
        let end = upper.map(map.lowerBound) ?? map.endPosition
        guard let position = map.position(before: end) else { return nil }
        let entry = map.entry(at: position)
        if let lower, ByteOrder.compare(entry.key, lower) < 0 { return nil }
        return entry
    }

    /// Rows whose key starts with `prefix`, in key order.
    package func scan(withPrefix prefix: [UInt8]) -> [(key: [UInt8], row: [Value])] {
        scan(from: prefix, to: Self.upperBound(ofPrefix: prefix))
    }

    /// The first row whose key starts with `prefix` (with a prefix-free encoding of group
    /// keys in front, the group's minimum).
    package func first(withPrefix prefix: [UInt8]) -> (key: [UInt8], row: [Value])? {
        first(from: prefix, to: Self.upperBound(ofPrefix: prefix))
    }

    /// The last row whose key starts with `prefix` (the group's maximum).
    package func last(withPrefix prefix: [UInt8]) -> (key: [UInt8], row: [Value])? {
        last(from: prefix, to: Self.upperBound(ofPrefix: prefix))
    }

    /// The smallest key after every key that starts with `prefix`, or nil if there is none
    /// (an empty prefix, or one of only `0xFF` bytes).
    package static func upperBound(ofPrefix prefix: [UInt8]) -> [UInt8]? {
        var bound = prefix
        while let last = bound.last {
            if last < 0xFF {
                bound[bound.count - 1] = last + 1
                return bound
            }
            bound.removeLast()
        }
        return nil
    }

    /// Ends the epoch: keeps its writes and returns them — rows written, in key order, and
    /// keys removed that had a row when the epoch began.
    @discardableResult
    package func commitEpoch(_ epoch: UInt64) -> StateDelta {
        var delta = StateDelta(tableID: id, epoch: epoch)
        for (key, change) in changes.sorted(by: { ByteOrder.compare($0.key, $1.key) < 0 }) {
            if let row = change.new {
                delta.puts.append((key, row))
            } else if change.old != nil {
                delta.deletes.append(key)
            }
        }
        if tracksChanges && !needsFullCheckpoint {
            for key in changes.keys { sinceCheckpoint.insert(key) }
            if sinceCheckpoint.count > max(2 * map.count, 1 << 16) {
                needsFullCheckpoint = true
                sinceCheckpoint = []
            }
        }
        changes.removeAll(keepingCapacity: true)
        return delta
    }

    /// The table's part of a checkpoint: the keys committed since the last one (or, with
    /// `everything`, every row), each row as one `bytea` value in ``TypeCodec``'s row form.
    /// Call between epochs.
    package func checkpoint(everything: Bool) -> StateSection {
        let everything = everything || needsFullCheckpoint
        defer {
            sinceCheckpoint.removeAll(keepingCapacity: true)
            needsFullCheckpoint = false
        }
        var keys = KeyBuffer()
        var removed = KeyBuffer()
        var rows = ColumnBuilder(type: .bytea, capacity: everything ? map.count : sinceCheckpoint.count)
        var row: [UInt8] = []
        func put(_ key: [UInt8], _ values: [Value]) {
            keys.append(key)
            row.removeAll(keepingCapacity: true)
            TypeCodec.appendRow(values, to: &row)
            row.withUnsafeBytes { rows.append(bytes: $0) }
        }
        if everything {
            for entry in scan() { put(entry.key, entry.row) }
        } else {
            for key in sinceCheckpoint.sorted(by: { ByteOrder.compare($0, $1) < 0 }) {
                if let values = map.get(key) { put(key, values) } else { removed.append(key) }
            }
        }
        let column = rows.finish()
        var section = StateSection(
            table: id, types: [.bytea], keys: keys, counts: [Int32](repeating: 1, count: keys.count),
            rows: Chunk(columns: [column], count: keys.count), removed: removed)
        section.isWhole = everything
        return section
    }

    /// Replaces the table's rows by a checkpoint's (``checkpoint(everything:)``'s form).
    package func restore(_ section: StateSection) throws(SluiceError) {
        guard section.types == [.bytea] else { throw SluiceError(.dataCorrupted, "state table \(id) holds rows of another form") }
        map = SortedBlockMap()
        changes.removeAll()
        sinceCheckpoint.removeAll()
        for index in 0 ..< section.keys.count { map.put(section.keys.key(index), try section.storedRow(index)) }
    }

    /// Undoes the epoch's writes: the table is as it was when the epoch began.
    package func discardEpoch() {
        for (key, change) in changes {
            if let old = change.old { map.put(key, old) } else { map.remove(key) }
        }
        changes.removeAll(keepingCapacity: true)
    }
}

extension StateSection {
    /// Row `index` of a section a ``StateTable`` wrote (its values from their `bytea` form).
    package func storedRow(_ index: Int) throws(SluiceError) -> [Value] {
        guard case .bytes(let values) = rows.columns.first?.storage ?? .bool([]) else {
            throw SluiceError(.dataCorrupted, "state table \(table) holds rows of another form")
        }
        return try values.bytes(at: index).withRawBytes { (raw: UnsafeRawBufferPointer) throws(SluiceError) -> [Value] in
            var reader = ByteReader(bytes: raw, offset: 0)
            return try TypeCodec.readRow(&reader)
        }
    }
}

/// The changes one epoch made to one state table.
package struct StateDelta {
    package var tableID: Int
    package var epoch: UInt64
    /// Rows written, in key order.
    package var puts: [(key: [UInt8], row: [Value])] = []
    /// Keys of committed rows removed, in key order.
    package var deletes: [[UInt8]] = []

    package init(tableID: Int, epoch: UInt64) {
        self.tableID = tableID
        self.epoch = epoch
    }
}
