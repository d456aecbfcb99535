import SluiceCore

/// Reads of a paged table in the middle of an epoch: the committed keys under a prefix, and the
/// changes staged since the last commit, for an operator that must see its own epoch's writes
/// (a join probes the state its earlier input rows of the same epoch changed).
extension PagedTable {
    /// Consecutive committed keys of one page.
    package struct Run {
        package let contents: StatePage.Contents
        package let range: Range<Int>
    }

    /// The committed keys that begin with `prefix`, in key order, as runs of the pages they are
    /// on. Reads (and keeps) the pages they fall in; a page whose first key is past the prefix's
    /// keys is not read.
    /// - Complexity: O(log p) page comparisons, O(log k) key comparisons on the first page, plus
    ///   the keys found.
    package func runs(withPrefix prefix: [UInt8]) -> [Run] {
        runs(withPrefix: prefix, from: prefix, limit: .max).runs
    }

    /// The committed keys that begin with `prefix`, from `start` on (a key at or after the
    /// prefix), at most `limit` of them, as runs of the pages they are on; with the first key left
    /// out when the limit cut the read short (where the next read starts), nil when it did not.
    /// Reads only the pages the keys returned and the next one are on.
    /// - Complexity: O(log p) page comparisons, O(log k) key comparisons on the first page, plus
    ///   the keys found.
    package func runs(withPrefix prefix: [UInt8], from start: [UInt8], limit: Int) -> (runs: [Run], resume: [UInt8]?) {
        var pageIndex = pageIndex(from: start)
        var result: [Run] = []
        var taken = 0
        while pageIndex < pages.count {
            let page = pages[pageIndex]
            // A page that begins past the prefix's keys is not read.
            if page.firstKey.compare(0, with: prefix) > 0 && !page.firstKey.hasPrefix(0, prefix) { break }
            let contents = page.contents
            let low = Self.lowerBound(of: start, in: contents.keys)
            var end = low
            while end < contents.keys.count && contents.keys.hasPrefix(end, prefix) {
                if taken == limit {
                    if end > low { result.append(Run(contents: contents, range: low ..< end)) }
                    return (result, contents.keys.key(end))
                }
                end += 1
                taken += 1
            }
            if end > low { result.append(Run(contents: contents, range: low ..< end)) }
            if end < contents.keys.count { break }
            pageIndex += 1
        }
        return (result, nil)
    }

    /// The first committed key that begins with `prefix` (the least entry of an ordered group):
    /// its page's contents and its index there. Reads only the page it is on (and, when the
    /// prefix's keys begin at a page's end, the next one).
    package func first(withPrefix prefix: [UInt8]) -> (contents: StatePage.Contents, index: Int)? {
        let pageIndex = pageIndex(from: prefix)
        guard pageIndex < pages.count else { return nil }
        let contents = pages[pageIndex].contents
        let low = Self.lowerBound(of: prefix, in: contents.keys)
        guard low < contents.keys.count, contents.keys.hasPrefix(low, prefix) else { return nil }
        return (contents, low)
    }

    /// The index of the page the keys from `key` on begin in (`pages.count` when every key is
    /// before it): the last page that begins at or before `key`, or the one after it when that
    /// one ends before `key`.
    private func pageIndex(from key: [UInt8]) -> Int {
        guard !pages.isEmpty else { return 0 }
        let index = page(for: key)
        return pages[index].lastKey.compare(0, with: key) < 0 ? index + 1 : index
    }

    /// The last committed key that begins with `prefix` (the greatest entry of an ordered
    /// group): its page's contents and its index there.
    package func last(withPrefix prefix: [UInt8]) -> (contents: StatePage.Contents, index: Int)? {
        guard !pages.isEmpty else { return nil }
        // The keys with the prefix sort before `upper`; without one (a prefix of 0xFF bytes
        // only, or empty), every key from the prefix on has it.
        let upper = Self.upperBound(ofPrefix: prefix)
        var pageIndex = pages.count - 1
        if let upper {
            pageIndex = page(for: upper)
        }
        while pageIndex >= 0 {
            let page = pages[pageIndex]
            if let upper, page.firstKey.compare(0, with: upper) >= 0 {
                pageIndex -= 1
                continue
            }
            let contents = page.contents
            // The number of keys before `upper`.
            let low = upper.map { Self.lowerBound(of: $0, in: contents.keys) } ?? contents.keys.count
            guard low > 0, contents.keys.hasPrefix(low - 1, prefix) else { return nil }
            return (contents, low - 1)
        }
        return nil
    }

    /// The index of the first of `keys` (ascending) that is not before `key`.
    static func lowerBound(of key: [UInt8], in keys: KeyBuffer) -> Int {
        keys.count(before: key, orEqual: false)
    }

    /// Counts the pages against `memory` from now on; the table must still be empty (an
    /// operator gets its budget before its first row).
    package mutating func useMemory(_ memory: StateMemory) {
        precondition(pages.isEmpty && staged.keys.isEmpty, "a memory budget is set before the first row")
        self.memory = memory
    }

    /// Takes what `tables` stored for table `table` (pages left in the run files until touched,
    /// or a section) in place of the table's rows, keeping its memory budget and whether it
    /// tracks changes; leaves the table as it is when nothing is stored for it.
    package mutating func restore(from tables: RestoredTables, table: Int) throws(SluiceError) {
        let restored: PagedTable
        if let steps = tables.paged[table] {
            restored = try PagedTable(restoring: steps, types: types, memory: memory)
        } else if let section = tables.sections[table] {
            guard section.types == types else {
                throw SluiceError(.dataCorrupted, "state table \(table) is stored with other columns than its operator has")
            }
            restored = PagedTable(restoring: section, memory: memory)
        } else {
            return
        }
        let tracks = tracksChanges
        self = restored
        tracksChanges = tracks
        markCheckpointed()
    }

    /// The smallest key after every key that begins with `prefix`, or nil when there is none
    /// (an empty prefix, or one of 0xFF bytes only).
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

    /// Changes staged since the last commit, numbered in arrival order.
    package var stagedCount: Int { staged.signs.count }

    /// The sign staged change `change` came with (+1, -1, or 0 for a replacement).
    package func stagedSign(_ change: Int) -> Int32 { staged.signs[change] }

    /// The key of staged change `change`.
    package func stagedKey(_ change: Int) -> [UInt8] { staged.keys.key(change) }

    /// How the key of staged change `change` orders against `key` (negative: before it), in
    /// key order, without copying it.
    package func compareStagedKey(_ change: Int, with key: [UInt8]) -> Int { staged.keys.compare(change, with: key) }

    /// The rows of staged changes `changes`, in that order, as one chunk.
    package func stagedRows(_ changes: [Int]) -> Chunk { staged.rows(at: changes, types: types) }
}
