import Synchronization
import SluiceCore

/// One sorted page of a ``PagedTable``: keys in order, each with its row and how many times
/// the row is present. Immutable once built and shared by reference between the table and
/// every snapshot that holds it, so readers never copy it and never block the writer.
///
/// A page built under a memory budget (``StateMemory``) can be evicted: its contents are
/// written to a spill file and dropped, and read back (and cached until the next eviction)
/// the first time anyone asks for them. Its first key and sizes stay in memory, so the table
/// finds the page a key falls in without reading it.
///
/// Invariant: keys strictly ascending; `rows.count == keys.count`; every count is at least 1.
package final class StatePage: Sendable {
    /// What a page holds, in memory.
    package struct Contents: Sendable {
        package let keys: KeyBuffer
        /// One row per key, as typed columns.
        package let rows: Chunk
        /// How many times each key's row is present; nil when every row is present once.
        package let counts: [Int32]?
        /// The rows as readers see them: each repeated as often as it is present.
        package let published: Chunk
    }

    private enum Residence {
        case resident(Contents)
        /// In a spill file only.
        case spilled(SpillFile, SpillFile.Region)
        /// In a spill file and read back into memory.
        case cached(Contents, SpillFile, SpillFile.Region)
    }

    package let types: [DataType]
    /// The page's first key alone.
    package let firstKey: KeyBuffer
    /// The page's last key alone.
    package let lastKey: KeyBuffer
    package let keyCount: Int
    /// Rows as readers see them (each key's row times its count).
    package let rowCount: Int
    /// Bytes the page's buffers hold (keys, rows, counts), for state size accounting.
    package let byteCount: Int

    private let residence: Mutex<Residence>
    private let memory: StateMemory?
    private let lastUse: Atomic<UInt64>

    package init(keys: KeyBuffer, rows: Chunk, counts: [Int32]?, memory: StateMemory? = nil) {
        precondition(keys.count == rows.count && (counts?.count ?? keys.count) == keys.count, "page columns differ in length")
        let contents = Self.contents(keys: keys, rows: rows, counts: counts)
        types = rows.types
        var first = KeyBuffer()
        var last = KeyBuffer()
        if keys.count > 0 {
            first.append(0, of: keys)
            last.append(keys.count - 1, of: keys)
        }
        firstKey = first
        lastKey = last
        keyCount = keys.count
        rowCount = contents.published.count
        byteCount = keys.bytes.count + keys.count * 4 + rows.byteCount + (contents.counts?.count ?? 0) * 4
        residence = Mutex(.resident(contents))
        self.memory = memory
        lastUse = Atomic(memory?.now ?? 0)
        memory?.acquire(byteCount)
    }

    /// Where a page's contents lie in a file (a checkpoint's run file), with what the table
    /// needs to know of it before they are read.
    package struct Reference: Sendable {
        let file: SpillFile
        let region: SpillFile.Region
        let summary: StateSection.Summary

        package var types: [DataType] { summary.types }

        /// The section the reference points at, read and checked.
        package func read() throws(SluiceError) -> StateSection { try file.readSection(region) }
    }

    /// A page left in a file until it is first read: a view restored from a checkpoint loads
    /// its pages as it touches them.
    package init(reference: Reference, memory: StateMemory?) {
        types = reference.summary.types
        var first = KeyBuffer()
        var last = KeyBuffer()
        if reference.summary.bounds.count == 2 {
            first.append(0, of: reference.summary.bounds)
            last.append(1, of: reference.summary.bounds)
        }
        firstKey = first
        lastKey = last
        keyCount = reference.summary.keyCount
        rowCount = reference.summary.rowCount
        // The encoded size stands for the buffers' size, which is known only once read.
        byteCount = reference.region.length
        residence = Mutex(.spilled(reference.file, reference.region))
        self.memory = memory
        lastUse = Atomic(0)
        memory?.recordSpilled(byteCount)
    }

    deinit {
        residence.withLock { residence in
            switch residence {
            case .resident:
                memory?.release(byteCount)
            case .spilled(let file, let region):
                file.free(region)
                memory?.recordSpillFreed(byteCount)
            case .cached(_, let file, let region):
                memory?.release(byteCount)
                file.free(region)
            }
        }
    }

    private static func contents(keys: KeyBuffer, rows: Chunk, counts: [Int32]?) -> Contents {
        guard let counts, counts.contains(where: { $0 != 1 }) else {
            return Contents(keys: keys, rows: rows, counts: nil, published: rows)
        }
        var expanded: [Int] = []
        expanded.reserveCapacity(counts.reduce(0) { $0 + Int($1) })
        for (rowIndex, count) in counts.enumerated() {
            for _ in 0 ..< Int(count) { expanded.append(rowIndex) }
        }
        return Contents(keys: keys, rows: rows, counts: counts, published: rows.gather(expanded))
    }

    /// The page's keys, rows and counts, read back from its spill file if it was evicted.
    ///
    /// A spill file is written and read only by this process; a read that fails (an I/O error
    /// or a checksum mismatch, which only failing hardware causes) stops the process with the
    /// file and offset, and recovery restarts from the last checkpoint.
    package var contents: Contents { contents(caching: true) }

    /// The rows as readers see them, for a query: an evicted page read back stays cached only
    /// while the state is under its memory limit (nothing else would evict it before the
    /// table's next commit, which an idle view may never make).
    package var publishedForReading: Chunk { contents(caching: false).published }

    /// The keys and rows as ``publishedForReading`` reads them.
    package var contentsForReading: Contents { contents(caching: false) }

    private func contents(caching: Bool) -> Contents {
        if let memory { lastUse.store(memory.now, ordering: .relaxed) }
        return residence.withLock { residence in
            switch residence {
            case .resident(let contents), .cached(let contents, _, _):
                return contents
            case .spilled(let file, let region):
                let loaded = Self.load(region, from: file)
                if !caching, let memory, memory.isOverLimit { return loaded }
                residence = .cached(loaded, file, region)
                memory?.acquire(byteCount)
                memory?.recordLoad(byteCount)
                return loaded
            }
        }
    }

    /// The page's contents, read back from its spill file for this caller alone if it was
    /// evicted (a checkpoint writing every page leaves the cache as it was).
    package func readContents() -> Contents {
        let stored = residence.withLock { residence -> (SpillFile, SpillFile.Region)? in
            switch residence {
            case .resident, .cached: return nil
            case .spilled(let file, let region): return (file, region)
            }
        }
        guard let (file, region) = stored else { return contents }
        return Self.load(region, from: file)
    }

    private static func load(_ region: SpillFile.Region, from file: SpillFile) -> Contents {
        do {
            let section = try file.readSection(region)
            return contents(keys: section.keys, rows: section.rows, counts: section.counts)
        } catch {
            fatalError("state page lost: \(error)")
        }
    }

    package var keys: KeyBuffer { contents.keys }
    package var rows: Chunk { contents.rows }
    package var counts: [Int32]? { contents.counts }
    package var published: Chunk { contents.published }

    /// The use-clock tick of the page's last read (``StateMemory/now``).
    package var lastUsed: UInt64 { lastUse.load(ordering: .relaxed) }

    /// Whether the page's contents were read back from a spill file and kept.
    package var isCached: Bool {
        residence.withLock { residence in
            if case .cached = residence { return true }
            return false
        }
    }

    /// Whether the page's contents are in memory.
    package var isResident: Bool {
        residence.withLock { residence in
            if case .spilled = residence { return false }
            return true
        }
    }

    /// Drops the page's contents from memory, writing them to `file` first unless they are
    /// there already. Returns the bytes freed: 0 when the page was not in memory or the write
    /// failed (a full disk: the page stays in memory).
    @discardableResult
    package func evict(to file: SpillFile) -> Int {
        residence.withLock { residence in
            switch residence {
            case .spilled:
                return 0
            case .cached(_, let file, let region):
                residence = .spilled(file, region)
            case .resident(let contents):
                var section = StateSection(
                    table: 0, types: types, keys: contents.keys,
                    counts: contents.counts ?? [Int32](repeating: 1, count: keyCount), rows: contents.rows)
                section.isWhole = true
                var bytes: [UInt8] = []
                bytes.reserveCapacity(byteCount + 64)
                section.encode(into: &bytes)
                guard let region = try? file.write(bytes) else { return 0 }
                residence = .spilled(file, region)
            }
            memory?.release(byteCount)
            memory?.recordEviction(byteCount)
            return byteCount
        }
    }
}
