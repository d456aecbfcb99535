import SluiceCore

/// RisingWave's `ON CONFLICT DO UPDATE [FULL | IF NOT NULL] WITH VERSION COLUMN(c)`: a row
/// written under a key the table holds takes effect only if its version is not older than the
/// stored row's, compared as RisingWave's materialize executor compares them (ascending, NULLs
/// first): a newer or equal version replaces (or, IF NOT NULL, patches) the stored row; an
/// older one is dropped; a NULL version loses to any version and ties with another NULL.
/// Rows of one write are applied one after the other, as if written in turn.
extension TableStore {
    /// Stages `rows` (whose keys are `keys`) against the stored rows as the version column
    /// `versionColumn` and `onConflict` (overwrite or patch) say. Returns what is stored and
    /// what it replaced.
    ///
    /// First the versions decide, key by key, which rows win (each against the version the
    /// key holds after the rows before it); then the winners are merged into the key's stored
    /// row, or the first of them, as ``ConflictBehavior/merging(_:of:into:)`` merges a new row
    /// into an old one: a winner's version becomes the key's (patching keeps an old value only
    /// where the new one is NULL, and a NULL version wins only over a NULL one).
    /// - Complexity: O(rows × columns): one lookup per distinct key, the version column
    ///   encoded once, one gather per column and merge round.
    static func resolveVersions(
        _ rows: Chunk, keys: KeyBuffer, onConflict: ConflictBehavior, versionColumn: Int, into state: inout State
    ) -> InsertResult {
        let hashes = hashes(of: keys)
        let groups = rowsByKey(keys, hashes: hashes)
        var held = RowPicks()
        var heldIndex = [Int](repeating: -1, count: groups.count)
        for group in 0 ..< groups.count {
            let first = groups[group].first!
            if let found = find(first, of: keys, hash: hashes[first], in: &state) {
                heldIndex[group] = held.count
                held.add(found.rows, found.index)
            }
        }
        let old = held.gathered(types: rows.types)
        // Each version in its memcomparable encoding, once: comparing two is then a memcmp.
        let versions = (old: encoded(old.columns[versionColumn]), new: encoded(rows.columns[versionColumn]))
        // Per written key: its stored row's first form ((0, row of `old`) or (1, row of
        // `rows`)), then rounds of later winners to merge into it.
        var base: [(source: Int32, row: Int32)] = []
        var rounds: [[(source: Int, into: Int)]] = []
        var keyRows: [Int] = []
        var signs: [Int8] = []
        var replaced: [Int] = []
        var winners: [Int] = []
        for group in 0 ..< groups.count {
            let members = groups[group]
            let heldRow = heldIndex[group]
            winners.removeAll(keepingCapacity: true)
            for row in members {
                // The key's version now: its last winner's, or the stored row's.
                if let last = winners.last {
                    guard versions.new.compare(row, with: last, of: versions.new) >= 0 else { continue }
                } else if heldRow >= 0 {
                    guard versions.new.compare(row, with: heldRow, of: versions.old) >= 0 else { continue }
                }
                winners.append(row)
            }
            guard !winners.isEmpty else { continue }
            let position = keyRows.count
            var merged = winners[...]
            if onConflict == .overwrite {
                // The last winner replaces every column.
                base.append((1, Int32(winners.last!)))
                merged = []
            } else if heldRow >= 0 {
                base.append((0, Int32(heldRow)))
            } else {
                base.append((1, Int32(winners[0])))
                merged = winners.dropFirst()
            }
            for (round, row) in merged.enumerated() {
                if rounds.count == round { rounds.append([]) }
                rounds[round].append((row, position))
            }
            keyRows.append(members.first!)
            signs.append(heldRow >= 0 ? 0 : 1)
            if heldRow >= 0 { replaced.append(heldRow) }
        }
        guard !keyRows.isEmpty else { return InsertResult(inserted: rows.gather([]), replaced: nil) }
        let stored = merging(rounds, of: rows, into: Chunk.gather(from: [old, rows], picks: base, types: rows.types), onConflict: onConflict)
        stage(stored, signs: signs, keys: keys, keyOf: { keyRows[$0] }, hashes: hashes, in: &state)
        return InsertResult(inserted: stored, replaced: replaced.isEmpty ? nil : old.gather(replaced))
    }

    /// `rows` with each key's rows (`groups`) folded into one, in order, as writing them one
    /// after the other would leave it: the first row for `ignore`, the non-null values last
    /// written for `updateIfNotNull`, the last row for `overwrite`. Rows come out in the order
    /// their keys first appear.
    /// - Complexity: O(rows × columns), one gather per column and fold round.
    static func folding(_ rows: Chunk, groups: KeyGroups, onConflict: ConflictBehavior) -> Chunk {
        guard groups.hasRepeats else { return rows }
        if onConflict == .overwrite { return rows.gather((0 ..< groups.count).map { groups[$0].last! }) }
        let firsts = (0 ..< groups.count).map { groups[$0].first! }
        guard onConflict == .updateIfNotNull else { return rows.gather(firsts) }
        // Round r merges each key's (r+2)th row into the one before.
        var rounds: [[(source: Int, into: Int)]] = []
        for group in 0 ..< groups.count {
            for (round, row) in groups[group].dropFirst().enumerated() {
                if rounds.count == round { rounds.append([]) }
                rounds[round].append((row, group))
            }
        }
        return merging(rounds, of: rows, into: rows.gather(firsts), onConflict: onConflict)
    }

    /// `base` with the rows of each round of `rounds` merged in turn (row `source` of `newer`
    /// into row `into` of `base`), as ``ConflictBehavior/merging(_:of:into:)`` merges them.
    private static func merging(
        _ rounds: [[(source: Int, into: Int)]], of newer: Chunk, into base: Chunk, onConflict: ConflictBehavior
    ) -> Chunk {
        rounds.reduce(base) { merged, round in onConflict.merging(round, of: newer, into: merged) }
    }

    /// Each row of `column` in its memcomparable encoding (ascending, NULLs first), whose
    /// byte order is the values' order for every type.
    private static func encoded(_ column: Column) -> KeyBuffer {
        var keys = KeyBuffer()
        keys.reserve(additionalKeys: column.count)
        for row in 0 ..< column.count {
            keys.appendKey { bytes in MemcomparableEncoding.append(column, row: row, to: &bytes) }
        }
        return keys
    }

    /// The rows of `keys` grouped by key (``KeyGroups``), each group in row order, the groups in
    /// the order their keys first appear: an open-addressing table of the rows' hashes, keys
    /// compared as bytes only when hashes meet, nothing allocated per row.
    static func rowsByKey(_ keys: KeyBuffer, hashes: [UInt64]) -> KeyGroups {
        var capacity = 16
        while capacity < keys.count * 2 { capacity *= 2 }
        let mask = capacity - 1
        // Per slot: the first row of its group plus one (0: empty).
        var slots = [Int32](repeating: 0, count: capacity)
        var groupOf = [Int32](repeating: 0, count: keys.count)
        var firsts: [Int] = []
        firsts.reserveCapacity(keys.count)
        keys.bytes.withUnsafeBytes { bytes in
            rows: for row in 0 ..< keys.count {
                let hash = hashes[row]
                var slot = Int(truncatingIfNeeded: hash >> 7) & mask
                while slots[slot] != 0 {
                    let other = Int(slots[slot]) - 1
                    if hashes[other] == hash,
                       UnsafeRawBufferPointer(rebasing: bytes[keys.start(row) ..< Int(keys.ends[row])])
                        .elementsEqual(UnsafeRawBufferPointer(rebasing: bytes[keys.start(other) ..< Int(keys.ends[other])])) {
                        groupOf[row] = groupOf[other]
                        continue rows
                    }
                    slot = (slot + 1) & mask
                }
                slots[slot] = Int32(row + 1)
                groupOf[row] = Int32(firsts.count)
                firsts.append(row)
            }
        }
        if firsts.count == keys.count { return KeyGroups(order: firsts, bounds: nil) }
        // Rows ordered by group, stably: a count per group, its start, then the rows placed.
        var bounds = [Int](repeating: 0, count: firsts.count + 1)
        for row in 0 ..< keys.count { bounds[Int(groupOf[row]) + 1] += 1 }
        for group in 0 ..< firsts.count { bounds[group + 1] += bounds[group] }
        var next = bounds
        var order = [Int](repeating: 0, count: keys.count)
        for row in 0 ..< keys.count {
            let group = Int(groupOf[row])
            order[next[group]] = row
            next[group] += 1
        }
        return KeyGroups(order: order, bounds: bounds)
    }
}

/// Rows grouped by their keys (``TableStore/rowsByKey(_:hashes:)``): group `g` is
/// `order[bounds[g] ..< bounds[g + 1]]`, or the one row `order[g]` when no key repeats.
struct KeyGroups {
    let order: [Int]
    let bounds: [Int]?

    var count: Int { bounds.map { $0.count - 1 } ?? order.count }

    /// Whether some key has more than one row.
    var hasRepeats: Bool { bounds != nil }

    /// Group `group`'s rows, in order.
    subscript(group: Int) -> ArraySlice<Int> {
        guard let bounds else { return order[group ... group] }
        return order[bounds[group] ..< bounds[group + 1]]
    }
}
