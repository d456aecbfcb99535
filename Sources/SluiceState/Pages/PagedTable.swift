import SluiceCore

/// An ordered map from key bytes to typed rows, each present one or more times, kept as sorted
/// columnar pages (``StatePage``) and changed one epoch at a time.
///
/// Changes are staged as they come (``stage(_:sign:key:)``): a key, +1 or -1, and for an
/// insertion the row, left in the chunk it arrived in. ``commitEpoch()`` sorts the epoch's
/// keys, folds the changes of each key into one, and rewrites only the pages those keys fall
/// in; every other page is kept by reference. A copy of the table (``snapshot``) is the list of
/// its pages, so reading a consistent epoch copies nothing but that list.
///
/// For a key, the changes of an epoch add up: the count moves by the sum of their signs, and
/// the row becomes the epoch's last inserted row under the key (an update's new values), or
/// stays as it was. A count that falls to zero removes the key; one that would fall below zero
/// is an upstream inconsistency, counted in ``inconsistencies`` and dropped.
///
/// Not `Sendable` while it has staged changes; owned by one operator on one thread.
/// - Complexity: staging O(1) per row plus the key's encoding; a commit O(m log m) for m staged
///   rows plus O(p) row copies for the p rows of the pages they touch.
package struct PagedTable {
    package let types: [DataType]
    /// Non-empty pages in key order: every key of a page precedes every key of the next.
    package private(set) var pages: [StatePage] = []
    /// Every page's first key, in one buffer, for finding a key's page without touching the
    /// pages (a retain and a likely cache miss each). Rebuilt whenever the page list is replaced;
    /// stale while pages are appended one by one (restoring), when its count tells it apart.
    private var fences = KeyBuffer()
    /// Rows as readers see them (each key's row times its count).
    package private(set) var rowCount = 0
    /// Distinct keys.
    package private(set) var keyCount = 0
    /// Bytes the pages hold (``StatePage/byteCount``).
    package private(set) var byteCount = 0
    /// Deletes of rows the table does not hold: a bug upstream, counted rather than crashed on.
    package private(set) var inconsistencies = 0

    /// Keys per page the commit aims for.
    package static let pageCapacity = Chunk.preferredSize

    var staged = StagedChanges()
    /// Whether commits keep what they change for the next checkpoint (``checkpoint(table:everything:)``).
    package var tracksChanges = false
    /// What each commit since the last checkpoint changed, oldest first.
    private var changeLog: [StateSection] = []
    private var changeLogBytes = 0
    /// The changes since the last checkpoint outgrew the table and were dropped: the next
    /// checkpoint must write everything.
    package private(set) var needsFullCheckpoint = false
    /// The commit in progress's changes, page by page (``tracksChanges``).
    private var epochChanges = EpochChanges()
    /// While every commit since the last checkpoint changed only pages from this index on (the
    /// last page then, and pages after it) and removed no key, the changes are those pages, and
    /// no copy of them is kept: a table that only grows checkpoints its new pages. Nil once a
    /// commit reached further (the changes are then kept in `changeLog`).
    private var tailStart: Int? = 0
    /// Whether anything was committed since the last checkpoint.
    private var changedSinceCheckpoint = false
    /// Whether the commit in progress gathers its changed rows into `epochChanges` (not while it
    /// stays within the tail).
    private var gathersChangedRows = false

    private struct EpochChanges {
        var keys = KeyBuffer()
        var counts: [Int32] = []
        var rows: [Chunk] = []
        var removed = KeyBuffer()
    }

    /// The budget the pages count against; with one, a commit over its limit evicts this
    /// table's coldest pages to ``spillFile``.
    package internal(set) var memory: StateMemory?
    /// Where evicted pages go, opened at the first eviction.
    private var spillFile: SpillFile?

    package init(types: [DataType], memory: StateMemory? = nil) {
        self.types = types
        self.memory = memory
    }

    /// The pages as of the last commit: shared, so reading them copies nothing, and an
    /// evicted page is read back only when its rows are asked for.
    package var snapshot: [StatePage] { pages }

    /// True when changes wait for ``commitEpoch()``.
    package var hasStagedChanges: Bool { !staged.keys.isEmpty }

    /// Stages one change per row of `chunk`: the sign of each row's op, under the key that
    /// `key` appends for it (the vnode bytes first, then the key proper).
    package mutating func stage(_ chunk: StreamChunk, key: (inout [UInt8], _ rowIndex: Int) -> Void) {
        stage(chunk.data, signs: chunk.ops.map { $0.isInsertion ? 1 : -1 }, key: key)
    }

    /// Stages one change per row of `rows`: +1 adds the row under its key, -1 takes one away, and
    /// 0 replaces the key's row by this one without changing its count (an update under one key).
    package mutating func stage(_ rows: Chunk, signs: [Int8], key: (inout [UInt8], _ rowIndex: Int) -> Void) {
        stage(rows, counts: signs.map(Int32.init), key: key)
    }

    /// Stages one change per row of `rows` that moves its key's count by `counts[row]`: a
    /// positive count also makes the row the key's row, and 0 replaces the row alone.
    package mutating func stage(_ rows: Chunk, counts signs: [Int32], key: (inout [UInt8], _ rowIndex: Int) -> Void) {
        precondition(signs.count == rows.count, "one count per row")
        guard rows.count > 0 else { return }
        staged.chunks.append(rows)
        staged.chunkEnds.append((staged.chunkEnds.last ?? 0) + rows.count)
        staged.keys.reserve(additionalKeys: rows.count)
        for rowIndex in 0 ..< rows.count {
            staged.keys.appendKey { key(&$0, rowIndex) }
        }
        staged.signs += signs
    }

    /// Applies the staged changes. Returns false when nothing was staged.
    @discardableResult
    package mutating func commitEpoch() -> Bool {
        guard !staged.keys.isEmpty else { return false }
        let now = memory?.tick() ?? 0
        let changes = staged.folded()
        // The pages from the first one the commit changes on, rebuilt; the pages ahead of it
        // (`leading` of them) stay where they are, as do their fences.
        var rebuilt: [StatePage] = []
        var pageIndex = 0
        var entryIndex = 0
        var evictedThrough = 0
        var leading: Int?
        let entries = changes.entries
        while entryIndex < entries.count {
            // The page a key falls in: the last page whose first key is not after it (the first
            // page for keys before every page).
            let target = pages.isEmpty ? -1 : page(for: entries[entryIndex].key, in: changes.keys, from: pageIndex)
            if leading == nil {
                leading = max(target, 0)
                pageIndex = max(target, 0)
                gathersChangedRows = tracksChanges && (tailStart.map { max(target, 0) < $0 } ?? true)
                rebuilt.reserveCapacity(pages.count - pageIndex + changes.entries.count / Self.pageCapacity + 1)
            }
            while pageIndex < target {
                rebuilt.append(pages[pageIndex])
                pageIndex += 1
            }
            // The entries before the next page's first key: found by doubling, then halving (an
            // epoch's entries spread over many pages leave few per page).
            var end = entries.count
            if target + 1 < pages.count {
                let next = pages[target + 1].firstKey
                func isBefore(_ index: Int) -> Bool { changes.keys.compare(Int(entries[index].key), with: 0, of: next) < 0 }
                var low = entryIndex + 1
                var step = 1
                while low < entries.count && isBefore(low) {
                    low += step
                    step *= 2
                }
                var high = min(low, entries.count)
                low = max(entryIndex + 1, low - step / 2)
                // Invariant: entries before `low` are before `next`; those from `high` are not.
                while low < high {
                    let middle = (low + high) / 2
                    if isBefore(middle) { low = middle + 1 } else { high = middle }
                }
                end = low
            }
            let old = target >= 0 ? pages[target] : nil
            let isLast = target + 1 >= pages.count
            rebuilt += merge(old, with: entries[entryIndex ..< end], changes: changes, isLast: isLast)
            if let memory, memory.isOverLimit {
                // Over the limit mid-commit (an epoch that touches much of a large table): the
                // pages written so far go out as they are made, all but the newest.
                evictedThrough = evict(&rebuilt, from: evictedThrough, memory: memory)
            }
            if let old {
                rowCount -= old.rowCount
                keyCount -= old.keyCount
                byteCount -= old.byteCount
            }
            if target >= 0 { pageIndex = target + 1 }
            entryIndex = end
        }
        while pageIndex < pages.count {
            rebuilt.append(pages[pageIndex])
            pageIndex += 1
        }
        let current = fences.count == pages.count
        let kept = leading ?? pages.count
        // The tail's pages as they were: the changes of the commits since the last checkpoint,
        // should this one leave the tail.
        let oldTail = tailStart.map { tail in tracksChanges && kept < tail ? Array(pages[min(tail, pages.count)...]) : [] } ?? []
        pages.replaceSubrange(kept..., with: rebuilt)
        if current {
            // Only the fences from the first changed page on are laid out again (an append
            // rewrites the last page alone).
            fences.removeKeys(from: kept)
            for page in pages[kept...] { fences.append(0, of: page.firstKey) }
        } else {
            rebuildFences()
        }
        staged = StagedChanges()
        if let memory, memory.isOverLimit { evictColdPages(memory, before: now) }
        if tracksChanges {
            let changes = epochChanges
            epochChanges = EpochChanges()
            changedSinceCheckpoint = true
            if let tail = tailStart {
                if kept >= tail && changes.removed.isEmpty { return true }
                // Leaving the tail: what the commits before changed (and, for a commit within
                // the tail that removed keys, this one's puts too) is the tail's pages.
                tailStart = nil
                keepChanges(Self.section(of: kept >= tail ? Array(pages[min(tail, pages.count)...]) : oldTail, types: types))
            }
            if !needsFullCheckpoint {
                keepChanges(StateSection(
                    table: 0, types: types, keys: changes.keys, counts: changes.counts,
                    rows: Chunk.concatenate(changes.rows, types: types), removed: changes.removed))
            }
        }
        return true
    }

    /// `pages`' keys, counts and rows as one section of puts.
    private static func section(of pages: [StatePage], types: [DataType]) -> StateSection {
        let contents = pages.map { $0.readContents() }
        return StateSection(
            table: 0, types: types, keys: KeyBuffer.concatenating(contents.map(\.keys)),
            counts: zip(pages, contents).flatMap { page, contents in contents.counts ?? [Int32](repeating: 1, count: page.keyCount) },
            rows: Chunk.concatenate(contents.map(\.rows), types: types))
    }

    /// Marks the table as checkpointed as it is now: changes are tracked from here.
    package mutating func markCheckpointed() {
        changeLog = []
        changeLogBytes = 0
        needsFullCheckpoint = false
        tailStart = max(pages.count - 1, 0)
        changedSinceCheckpoint = false
    }

    /// The table's part of a checkpoint, as table `table`: what the commits since the last
    /// checkpoint changed or, with `everything`, every page (written one at a time when the
    /// checkpoint is written). Forgets the changes. Without `merging`, the changes are left for
    /// the checkpoint's writer to merge (``FragmentCheckpoint/settle()``).
    package mutating func checkpoint(table: Int, everything: Bool, merging: Bool = true) -> FragmentCheckpoint.PagedImage {
        defer { markCheckpointed() }
        guard !everything && !needsFullCheckpoint else {
            // (Within a delta, a table whose changes were dropped writes itself whole.)
            return FragmentCheckpoint.PagedImage(table: table, types: types, pages: pages)
        }
        if let tail = tailStart {
            // Only the tail changed: its pages are the delta (the first may repeat keys the last
            // checkpoint has, with the same rows).
            let changed = changedSinceCheckpoint ? Array(pages[min(tail, pages.count)...]) : []
            return FragmentCheckpoint.PagedImage(table: table, types: types, pages: changed, isWhole: false)
        }
        var image = FragmentCheckpoint.PagedImage(table: table, types: types, unmerged: changeLog)
        if merging { image.settle() }
        return image
    }

    /// Keeps `section` (a commit's changes) for the next checkpoint; past a bound, drops every
    /// kept change and marks the table for a whole checkpoint instead.
    private mutating func keepChanges(_ section: StateSection) {
        guard !needsFullCheckpoint else { return }
        changeLog.append(section)
        changeLogBytes += section.byteCount
        // Under a memory limit the kept changes may not hold more than an eighth of it
        // (the next checkpoint then writes the pages, read one at a time).
        let bound = memory.map { max(min(byteCount, $0.limit / 8), 4 << 20) } ?? max(byteCount, 16 << 20)
        if changeLogBytes > bound {
            needsFullCheckpoint = true
            changeLog = []
            changeLogBytes = 0
        }
    }

    /// A table holding `section`'s rows (a checkpoint's contents: ascending keys, no removals).
    package init(restoring section: StateSection, memory: StateMemory? = nil) {
        self.init(types: section.types, memory: memory)
        appendPages(keys: section.keys, rows: section.rows, counts: section.counts)
        rebuildFences()
    }

    /// Appends `keys` (ascending, after every key held) with their `rows` and `counts` (nil:
    /// each row once) as pages of ``pageCapacity`` keys. The fences are left to the caller.
    private mutating func appendPages(keys: KeyBuffer, rows: Chunk, counts: [Int32]?) {
        var start = 0
        while start < keys.count {
            let end = min(keys.count, start + Self.pageCapacity)
            var pageKeys = keys
            if start > 0 || end < keys.count {
                pageKeys = KeyBuffer()
                pageKeys.append(start ..< end, of: keys)
            }
            let pageRows = start == 0 && end == rows.count ? rows : rows.slice(start ..< end)
            let page = StatePage(keys: pageKeys, rows: pageRows, counts: counts.map { Array($0[start ..< end]) }, memory: memory)
            pages.append(page)
            rowCount += page.rowCount
            keyCount += page.keyCount
            byteCount += page.byteCount
            start = end
        }
    }

    /// Appends `runs` of keys, each with its rows (every row present once), as pages: a table
    /// read in whole from a file in key order. Every key must follow the one before it and every
    /// key the table holds; when one does not, nothing is appended and the result is false.
    package mutating func append(_ runs: [(keys: KeyBuffer, rows: Chunk)]) -> Bool {
        var previous: (keys: KeyBuffer, index: Int)? = pages.last.map { ($0.lastKey, 0) }
        for run in runs {
            guard run.keys.count == run.rows.count else { return false }
            for index in 0 ..< run.keys.count {
                if let previous, previous.keys.compare(previous.index, with: index, of: run.keys) >= 0 { return false }
                previous = (run.keys, index)
            }
        }
        let current = fences.count == pages.count
        let first = pages.count
        for run in runs { appendPages(keys: run.keys, rows: run.rows, counts: nil) }
        if tracksChanges && runs.contains(where: { !$0.keys.isEmpty }) {
            changedSinceCheckpoint = true
            // (Appended pages are in the tail, if the changes are still the tail's pages.)
            if tailStart == nil {
                for run in runs where !run.keys.isEmpty {
                    keepChanges(StateSection(
                        table: 0, types: types, keys: run.keys, counts: [Int32](repeating: 1, count: run.keys.count), rows: run.rows))
                }
            }
        }
        if current {
            for page in pages[first...] { fences.append(0, of: page.firstKey) }
        } else {
            rebuildFences()
        }
        // Appends of whole pages commit nothing, so they check the budget here: a scan of a
        // large source appended page by page must spill as a commit would.
        if let memory, memory.isOverLimit { evictColdPages(memory, before: memory.tick()) }
        return true
    }

    /// The table a checkpoint chain's `steps` leave: page blocks that fall after every key so
    /// far (stored or pending) are left in the run file as pages (each read on first use); the
    /// other blocks and sections are merged, in order, and applied once at the end
    /// (``apply(_:)``). A view restored lazily: an append-only view reads nothing but its last
    /// page.
    package init(restoring steps: [RestoredTables.Step], types: [DataType], memory: StateMemory? = nil) throws(SluiceError) {
        self.init(types: types, memory: memory)
        var pending: [StateSection] = []
        var pendingBytes = 0
        /// The greatest key put or removed in `pending`.
        var pendingLast = KeyBuffer()
        // Under a memory budget, pending changes are applied whenever they pass an eighth of it
        // (in order, which leaves what one merge of them all would): a chain of large deltas is
        // never all in memory at once.
        let pendingLimit = memory.map { max($0.pageBudget / 8, 1 << 20) } ?? Int.max
        func dropPending() {
            pending = []
            pendingBytes = 0
            pendingLast = KeyBuffer()
        }
        func applyPending(_ table: inout PagedTable) {
            if let merged = StateSection.merged(pending, keepingRemovals: true) { table.apply(merged) }
            dropPending()
            if let memory, memory.isOverLimit { table.evictColdPages(memory, before: memory.tick()) }
        }
        func defer_(_ section: StateSection, _ table: inout PagedTable) {
            pending.append(section)
            pendingBytes += section.byteCount
            for keys in [section.keys, section.removed] where !keys.isEmpty {
                if pendingLast.isEmpty || keys.compare(keys.count - 1, with: 0, of: pendingLast) > 0 {
                    pendingLast = KeyBuffer()
                    pendingLast.append(keys.count - 1, of: keys)
                }
            }
            if pendingBytes >= pendingLimit { applyPending(&table) }
        }
        /// A section of the chain: whole, it is the table from here on; else its changes wait.
        func take(_ section: StateSection, _ table: inout PagedTable) throws(SluiceError) {
            guard section.types == types else { throw SluiceError(.dataCorrupted, "stored rows have other column types than their table") }
            if section.isWhole {
                table = PagedTable(restoring: section, memory: memory)
                dropPending()
            } else {
                defer_(section, &table)
            }
        }
        for step in steps {
            switch step {
            case .pages(let references):
                for reference in references {
                    guard reference.types == types else { throw SluiceError(.dataCorrupted, "stored pages have other column types than their table") }
                    if reference.summary.isWhole {
                        self = PagedTable(types: types, memory: memory)
                        dropPending()
                    }
                    // A block that a page or a pending change reaches is merged with the
                    // pending changes (it once was appended when only a pending change reached
                    // it, after applying them: its keys then overlapped the page they made).
                    if let last = pages.last, last.lastKey.compare(0, with: 0, of: reference.summary.bounds) >= 0
                        || (!pendingLast.isEmpty && pendingLast.compare(0, with: 0, of: reference.summary.bounds) >= 0) {
                        defer_(try reference.read(), &self)
                        continue
                    }
                    let page = StatePage(reference: reference, memory: memory)
                    pages.append(page)
                    rowCount += page.rowCount
                    keyCount += page.keyCount
                    byteCount += page.byteCount
                }
            case .changes(let section):
                try take(section, &self)
            case .storedChanges(let reference):
                try take(try reference.read(), &self)
            }
        }
        applyPending(&self)
        rebuildFences()
        if let memory, memory.isOverLimit { evictColdPages(memory, before: memory.tick()) }
    }

    /// Puts `section`'s keys with their rows and counts (replacing what the keys held) and
    /// removes its removed keys, rewriting only the pages they fall in.
    package mutating func apply(_ section: StateSection) {
        guard !section.isEmpty else { return }
        let all = KeyBuffer.concatenating([section.keys, section.removed])
        let order = all.sortedIndices()
        var start = 0
        var pageIndex = 0
        var rebuilt: [StatePage] = []
        var evictedThrough = 0
        while start < order.count {
            let target = pages.isEmpty ? -1 : page(for: Int32(order[start]), in: all, from: pageIndex)
            while pageIndex < target {
                rebuilt.append(pages[pageIndex])
                pageIndex += 1
            }
            var end = start + 1
            if target + 1 < pages.count {
                let next = pages[target + 1].firstKey
                while end < order.count, all.compare(order[end], with: 0, of: next) < 0 { end += 1 }
            } else {
                end = order.count
            }
            let old = target >= 0 ? pages[target] : nil
            if let old {
                rowCount -= old.rowCount
                keyCount -= old.keyCount
                byteCount -= old.byteCount
            }
            rebuilt += put(order[start ..< end], of: all, from: section, into: old, isLast: target + 1 >= pages.count)
            // Over the budget part way (changes all over a large table), the pages made so far
            // go out as they are made, all but the newest, as in a commit.
            if let memory, memory.isOverLimit { evictedThrough = evict(&rebuilt, from: evictedThrough, memory: memory) }
            if target >= 0 { pageIndex = target + 1 }
            start = end
        }
        while pageIndex < pages.count {
            rebuilt.append(pages[pageIndex])
            pageIndex += 1
        }
        pages = rebuilt
        rebuildFences()
    }

    /// Lays out ``fences`` for the current pages.
    private mutating func rebuildFences() {
        var first = KeyBuffer(reservingKeys: pages.count, bytes: pages.count * 16)
        for page in pages { first.append(0, of: page.firstKey) }
        fences = first
    }

    /// The pages that replace `old` once the puts and removals `operations` (indexes into
    /// `all`: below `section.keys.count` a put, above it a removal) are applied.
    private mutating func put(
        _ operations: ArraySlice<Int>, of all: KeyBuffer, from section: StateSection, into old: StatePage?, isLast: Bool
    ) -> [StatePage] {
        // (Read without caching: the page is replaced.)
        let oldContents = old?.readContents()
        let oldKeys = oldContents?.keys ?? KeyBuffer()
        let oldCount = oldKeys.count
        let putCount = section.keys.count
        var keys = KeyBuffer(reservingKeys: oldCount + operations.count, bytes: oldKeys.bytes.count)
        var counts: [Int32] = []
        var sources: [Int] = []
        var puts: [Int] = []
        var oldIndex = 0
        var operation = operations.startIndex
        while oldIndex < oldCount || operation < operations.endIndex {
            let order = operation == operations.endIndex ? -1
                : oldIndex == oldCount ? 1 : oldKeys.compare(oldIndex, with: operations[operation], of: all)
            if order < 0 {
                keys.append(oldIndex, of: oldKeys)
                counts.append(oldContents?.counts?[oldIndex] ?? 1)
                sources.append(oldIndex)
                oldIndex += 1
                continue
            }
            let index = operations[operation]
            if index < putCount {
                keys.append(index, of: all)
                counts.append(section.counts[index])
                sources.append(oldCount + puts.count)
                puts.append(index)
            }
            if order == 0 { oldIndex += 1 }
            operation += 1
        }
        let rows = Chunk.concatenate([oldContents?.rows ?? Chunk(emptyOf: types), section.rows.gather(puts)], types: types)
        var result: [StatePage] = []
        let total = keys.count
        let pieces = (total + Self.pageCapacity - 1) / Self.pageCapacity
        let pieceSize = isLast ? Self.pageCapacity : max(1, (total + max(pieces, 1) - 1) / max(pieces, 1))
        var start = 0
        while start < total {
            let end = min(total, start + pieceSize)
            var pieceKeys = KeyBuffer(reservingKeys: end - start, bytes: 0)
            for index in start ..< end { pieceKeys.append(index, of: keys) }
            let page = StatePage(keys: pieceKeys, rows: rows.gather(Array(sources[start ..< end])), counts: Array(counts[start ..< end]), memory: memory)
            rowCount += page.rowCount
            keyCount += page.keyCount
            byteCount += page.byteCount
            result.append(page)
            start = end
        }
        return result
    }

    /// The row stored under `key` as of the last commit, as a one-row chunk, and its count; nil
    /// when the key is absent. Reads the key's page back if it was evicted.
    package func lookup(_ key: [UInt8]) -> (row: Chunk, count: Int32)? {
        find(key).map { ($0.contents.rows.slice($0.index ..< $0.index + 1), $0.contents.counts?[$0.index] ?? 1) }
    }

    /// Where the committed row under `key` is: its page's contents and its index there.
    package func find(_ key: [UInt8]) -> (contents: StatePage.Contents, index: Int)? {
        guard !pages.isEmpty else { return nil }
        let page = pages[page(for: key)]
        guard page.firstKey.compare(0, with: key) <= 0, page.lastKey.compare(0, with: key) >= 0 else { return nil }
        let contents = page.contents
        let index = Self.lowerBound(of: key, in: contents.keys)
        guard index < contents.keys.count, contents.keys.compare(index, with: key) == 0 else { return nil }
        return (contents, index)
    }

    /// Drops the staged changes: the table stays as of the last commit.
    package mutating func discardEpoch() {
        staged = StagedChanges()
    }

    /// The index of the last page at or after `start` whose first key is not after key
    /// `keyIndex` of `keys`, or `start` when there is none.
    func page(for keyIndex: Int32, in keys: KeyBuffer, from start: Int) -> Int {
        var low = start
        var high = pages.count
        // Invariant: pages before `low` (from `start`) begin at or before the key, except `start`
        // itself, which is the answer when no page does.
        while low < high {
            let middle = (low + high) / 2
            if keys.compare(Int(keyIndex), with: 0, of: pages[middle].firstKey) >= 0 { low = middle + 1 } else { high = middle }
        }
        return max(start, low - 1)
    }

    /// ``page(for:in:from:)`` of a key in an array, from the first page (no buffer made for it).
    func page(for key: [UInt8]) -> Int {
        guard fences.count == pages.count else {
            var low = 0
            var high = pages.count
            while low < high {
                let middle = (low + high) / 2
                if pages[middle].firstKey.compare(0, with: key) <= 0 { low = middle + 1 } else { high = middle }
            }
            return max(0, low - 1)
        }
        return max(0, fences.count(before: key, orEqual: true) - 1)
    }

    /// The pages that replace `old` once `entries` (all within its key range) are applied.
    private mutating func merge(
        _ old: StatePage?, with entries: ArraySlice<FoldedChange>, changes: FoldedChanges, isLast: Bool
    ) -> [StatePage] {
        // (Read without caching: the page is replaced.)
        let oldContents = old?.readContents()
        let oldKeys = oldContents?.keys ?? KeyBuffer()
        let oldCounts = oldContents?.counts
        let oldCount = oldKeys.count
        let newKeys = changes.keys
        // While every key so far is the old page's (the commit only replaced rows or changed
        // counts), the old key buffer is the answer and `keys` stays empty; the first key added
        // or dropped copies the old keys before it.
        var keysAreOld = old != nil
        var keys = KeyBuffer()
        func copyOldKeys(upTo end: Int) {
            keysAreOld = false
            keys = KeyBuffer(reservingKeys: oldCount + entries.count, bytes: oldKeys.bytes.count + entries.count * 16)
            keys.append(0 ..< end, of: oldKeys)
        }
        // Once the keys are no longer the old ones, keys are added in runs of consecutive keys
        // of one buffer (the old page's, or the changes'), each copied as one block when the
        // next key does not continue it or the merge ends.
        var run: (isOld: Bool, keys: Range<Int>)?
        func flushRun() {
            guard let pending = run else { return }
            keys.append(pending.keys, of: pending.isOld ? oldKeys : newKeys)
            run = nil
        }
        func addKey(_ index: Int, isOld: Bool) {
            if let pending = run, pending.isOld == isOld, pending.keys.upperBound == index {
                run = (isOld, pending.keys.lowerBound ..< index + 1)
                return
            }
            flushRun()
            run = (isOld, index ..< index + 1)
        }
        // Each row's source: (0, row) a row of the old page, (1, row) a staged row.
        var picks: [(source: Int32, row: Int32)] = []
        picks.reserveCapacity(oldCount + entries.count)
        var counts: [Int32] = []
        counts.reserveCapacity(oldCount + entries.count)
        var insertedAny = false
        // Positions in `keys` of the keys this commit changed (``tracksChanges``).
        var changedPositions: [Int] = []
        var oldIndex = 0
        var entryIndex = entries.startIndex
        var unmatched = 0
        // The two key buffers are read through raw pointers for the whole merge: one retain,
        // not one per comparison.
        oldKeys.bytes.withUnsafeBufferPointer { oldBytes in
            oldKeys.ends.withUnsafeBufferPointer { oldEnds in
                newKeys.bytes.withUnsafeBufferPointer { newBytes in
                    newKeys.ends.withUnsafeBufferPointer { newEnds in
                        while entryIndex < entries.endIndex || oldIndex < oldCount {
                            var order = 1
                            if entryIndex == entries.endIndex {
                                order = -1
                            } else if oldIndex < oldCount {
                                let oldStart = oldIndex == 0 ? 0 : Int(oldEnds[oldIndex - 1])
                                let key = Int(entries[entryIndex].key)
                                let newStart = key == 0 ? 0 : Int(newEnds[key - 1])
                                order = KeyBuffer.compare(
                                    oldBytes.baseAddress.map { $0 + oldStart }, Int(oldEnds[oldIndex]) - oldStart,
                                    newBytes.baseAddress.map { $0 + newStart }, Int(newEnds[key]) - newStart)
                            }
                            if order < 0 {
                                if !keysAreOld { addKey(oldIndex, isOld: true) }
                                picks.append((0, Int32(oldIndex)))
                                counts.append(oldCounts?[oldIndex] ?? 1)
                                oldIndex += 1
                                continue
                            }
                            let entry = entries[entryIndex]
                            let baseCount = order == 0 ? (oldCounts?[oldIndex] ?? 1) : 0
                            let count = baseCount + entry.count
                            // Anything but an old key kept changes the keys.
                            if keysAreOld && !(order == 0 && count > 0) { copyOldKeys(upTo: picks.count) }
                            if count < 0 || (count > 0 && baseCount == 0 && entry.insertedRow < 0) {
                                unmatched += 1
                            } else if count == 0 && baseCount > 0 && tracksChanges {
                                epochChanges.removed.append(Int(entry.key), of: newKeys)
                            } else if count > 0 {
                                if gathersChangedRows { changedPositions.append(picks.count) }
                                if !keysAreOld { addKey(Int(entry.key), isOld: false) }
                                if entry.insertedRow >= 0 {
                                    picks.append((1, entry.insertedRow))
                                    insertedAny = true
                                } else {
                                    picks.append((0, Int32(oldIndex)))
                                }
                                counts.append(count)
                            }
                            if order == 0 { oldIndex += 1 }
                            entryIndex += 1
                        }
                    }
                }
            }
        }
        flushRun()
        inconsistencies += unmatched
        if keysAreOld { keys = oldKeys }

        // Rows are gathered from the old page's and the staged rows in one pass.
        let sources = [oldContents?.rows ?? changes.rows, changes.rows]
        let total = picks.count
        if gathersChangedRows && !changedPositions.isEmpty {
            for position in changedPositions {
                epochChanges.keys.append(position, of: keys)
                epochChanges.counts.append(counts[position])
            }
            epochChanges.rows.append(Chunk.gather(from: sources, picks: changedPositions.map { picks[$0] }, types: types))
        }
        guard total > 0 else { return [] }
        // The table's last page fills pages up (appends go there); elsewhere a page that
        // overflows splits into equal parts, leaving room on both sides.
        let pieces = (total + Self.pageCapacity - 1) / Self.pageCapacity
        let pieceSize = isLast ? Self.pageCapacity : (total + pieces - 1) / pieces
        var result: [StatePage] = []
        var start = 0
        while start < total {
            let end = min(total, start + pieceSize)
            var pieceKeys = keys
            if end - start != total {
                pieceKeys = KeyBuffer(reservingKeys: end - start, bytes: 0)
                for index in start ..< end { pieceKeys.append(index, of: keys) }
            }
            let isIdentity = start == 0 && end == total && old != nil && !insertedAny && total == oldCount
            let rows = isIdentity ? oldContents!.rows : Chunk.gather(from: sources, picks: Array(picks[start ..< end]), types: types)
            let page = StatePage(keys: pieceKeys, rows: rows, counts: Array(counts[start ..< end]), memory: memory)
            rowCount += page.rowCount
            keyCount += page.keyCount
            byteCount += page.byteCount
            result.append(page)
            start = end
        }
        return result
    }

    /// Evicts `pages[start...]` but the last until `memory` is under its eviction target; returns
    /// where the next call starts.
    private mutating func evict(_ pages: inout [StatePage], from start: Int, memory: StateMemory) -> Int {
        guard pages.count > start + 1 else { return start }
        if spillFile == nil { spillFile = try? SpillFile(directory: memory.spillDirectory) }
        guard let spillFile else { return start }
        var index = start
        while index < pages.count - 1 && memory.residentBytes > memory.evictionTarget {
            pages[index].evict(to: spillFile)
            index += 1
        }
        return index
    }

    /// Drops pages read back and cached (they are in the spill file already) but the last,
    /// least recently used first, until `memory` is under its eviction target: a table that
    /// reads many evicted pages between commits (lookups) keeps its cache within the limit.
    package mutating func shedCachedPages() {
        guard let memory, memory.isOverLimit, let spillFile else { return }
        var cached: [(used: UInt64, index: Int)] = []
        for index in pages.indices.dropLast() where pages[index].isCached { cached.append((pages[index].lastUsed, index)) }
        cached.sort { $0.used < $1.used }
        for candidate in cached {
            if memory.residentBytes <= memory.evictionTarget { break }
            pages[candidate.index].evict(to: spillFile)
        }
    }

    /// Evicts the resident pages this commit did not write, least recently used first, until
    /// `memory` is back under its eviction target or none is left. The last page stays: an
    /// append-only table writes there every epoch.
    private mutating func evictColdPages(_ memory: StateMemory, before now: UInt64) {
        var candidates: [(used: UInt64, index: Int)] = []
        for index in pages.indices.dropLast() where pages[index].lastUsed < now && pages[index].isResident {
            candidates.append((pages[index].lastUsed, index))
        }
        guard !candidates.isEmpty else { return }
        if spillFile == nil {
            do {
                spillFile = try SpillFile(directory: memory.spillDirectory)
            } catch {
                return
            }
        }
        guard let spillFile else { return }
        candidates.sort { $0.used < $1.used }
        let target = memory.evictionTarget
        var freed = 0
        for candidate in candidates {
            if memory.residentBytes <= target { break }
            freed += pages[candidate.index].evict(to: spillFile)
        }
        if freed > 0 { memory.returnFreedMemory() }
    }

    /// Every key with its row and count, in key order (for tests).
    package func entries() -> [(key: [UInt8], row: [Value], count: Int)] {
        var result: [(key: [UInt8], row: [Value], count: Int)] = []
        for page in pages {
            let contents = page.contents
            for index in 0 ..< page.keyCount {
                result.append((contents.keys.key(index), contents.rows.row(index), Int(contents.counts?[index] ?? 1)))
            }
        }
        return result
    }

    /// Whether the pages are non-empty, within the capacity, and strictly ascending, and
    /// the counters agree with them (for tests).
    package var isWellFormed: Bool {
        var rows = 0
        var keys = 0
        for (pageIndex, page) in pages.enumerated() {
            guard page.keyCount > 0, page.keyCount <= Self.pageCapacity else { return false }
            let pageKeys = page.keys
            for index in 1 ..< max(page.keyCount, 1) where pageKeys.compare(index - 1, with: index, of: pageKeys) >= 0 { return false }
            guard pageKeys.compare(0, with: 0, of: page.firstKey) == 0, page.published.count == page.rowCount else { return false }
            if pageIndex > 0 {
                let previous = pages[pageIndex - 1]
                guard previous.keys.compare(previous.keyCount - 1, with: 0, of: pageKeys) < 0 else { return false }
            }
            rows += page.rowCount
            keys += page.keyCount
        }
        // The fences, where current, are the pages' first keys.
        if fences.count == pages.count {
            for (index, page) in pages.enumerated() where fences.compare(index, with: 0, of: page.firstKey) != 0 { return false }
        }
        return rows == rowCount && keys == keyCount
    }
}
