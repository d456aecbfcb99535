import Synchronization

/// The memory budget of the state store (`--memory-limit`): how many bytes of state pages may
/// be resident, and where pages beyond it go.
///
/// Every ``StatePage`` built with a budget counts its bytes here while its rows are in memory.
/// A ``PagedTable`` that commits an epoch while the resident bytes exceed the limit writes its
/// coldest pages to its spill file and drops their rows (``PagedTable/commitEpoch()``), until
/// the resident bytes are back under seven eighths of the limit. A spilled page read again
/// (a query, a backfill, a commit that changes it) is loaded back and stays cached, counted
/// here, until the next eviction finds it cold.
///
/// Pages are counted by ``StatePage/byteCount``: the keys, rows and counts, not the allocator's
/// overhead or the rows repeated for readers when a key is present more than once.
package final class StateMemory: Sendable {
    /// The most bytes of pages kept in memory.
    package let limit: Int
    /// Where spill files are created (each is unlinked at once and lives while it is open).
    package let spillDirectory: String

    private let resident = Atomic<Int>(0)
    private let clock = Atomic<UInt64>(1)
    private let spilled = Atomic<Int>(0)
    private let evictions = Atomic<Int>(0)
    private let loads = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)
    /// When memory was last given back to the kernel (``returnFreedMemory()``), in milliseconds.
    private let lastTrim = Atomic<Int>(0)

    package init(limit: Int, spillDirectory: String) {
        self.limit = max(limit, 1)
        self.spillDirectory = spillDirectory
    }

    /// Bytes of pages in memory now.
    package var residentBytes: Int { resident.load(ordering: .relaxed) }
    /// The most bytes of pages that were in memory at once.
    package var peakResidentBytes: Int { peak.load(ordering: .relaxed) }
    /// Bytes of pages written out and not read back.
    package var spilledBytes: Int { spilled.load(ordering: .relaxed) }
    /// Pages written out, in all.
    package var evictedPages: Int { evictions.load(ordering: .relaxed) }
    /// Spilled pages read back, in all.
    package var loadedPages: Int { loads.load(ordering: .relaxed) }

    /// Whether resident pages exceed the limit.
    package var isOverLimit: Bool { residentBytes > limit }

    /// The resident bytes an eviction brings the store down to.
    package var evictionTarget: Int { limit - limit / 8 }

    /// The current tick of the use clock; a page remembers the tick it was last used at.
    package var now: UInt64 { clock.load(ordering: .relaxed) }

    /// Advances the use clock (one tick per committed epoch of any table) and returns the new tick.
    package func tick() -> UInt64 { clock.add(1, ordering: .relaxed).newValue }

    package func acquire(_ bytes: Int) {
        let total = resident.add(bytes, ordering: .relaxed).newValue
        var seen = peak.load(ordering: .relaxed)
        while total > seen {
            let (exchanged, current) = peak.compareExchange(expected: seen, desired: total, ordering: .relaxed)
            if exchanged { break }
            seen = current
        }
    }

    package func release(_ bytes: Int) {
        resident.subtract(bytes, ordering: .relaxed)
    }

    func recordEviction(_ bytes: Int) {
        evictions.add(1, ordering: .relaxed)
        recordSpilled(bytes)
    }

    /// Counts bytes of pages that are on disk only (evicted, or restored and not yet read).
    func recordSpilled(_ bytes: Int) {
        spilled.add(bytes, ordering: .relaxed)
    }

    func recordLoad(_ bytes: Int) {
        loads.add(1, ordering: .relaxed)
        spilled.subtract(bytes, ordering: .relaxed)
    }

    func recordSpillFreed(_ bytes: Int) {
        spilled.subtract(bytes, ordering: .relaxed)
    }

    /// Gives the memory that evictions freed back to the kernel, at most ten times a second.
    ///
    /// Evicted pages leave holes among the pages that stay, which the allocator keeps; its
    /// `malloc_trim` returns the whole free pages inside them. (Looked up at run time: Swift's
    /// Glibc module does not export it.)
    func returnFreedMemory() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let milliseconds = now.tv_sec * 1000 + now.tv_nsec / 1_000_000
        let last = lastTrim.load(ordering: .relaxed)
        guard milliseconds - last >= 100, lastTrim.compareExchange(expected: last, desired: milliseconds, ordering: .relaxed).exchanged else { return }
        if let trim = Self.mallocTrim { _ = trim(0) }
    }

    private typealias Trim = @convention(c) (Int) -> Int32
    private static let mallocTrim: Trim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    /// Half of the machine's memory: the default limit, as `--memory-limit` documents.
    package static var defaultLimit: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, pageSize > 0 else { return 4 << 30 }
        return pages * pageSize / 2
    }

    /// Bytes from a size such as `512MB`, `2GiB`, `1g` or `1048576` (no suffix: bytes); nil
    /// when the text is not a size.
    package static func parseSize(_ text: String) -> Int? {
        let trimmed = text.trimmingWhitespace.lowercased()
        let digits = trimmed.prefix { $0.isNumber }
        guard !digits.isEmpty, let number = Int(digits) else { return nil }
        let unit = trimmed.dropFirst(digits.count).trimmingWhitespace
        let shift: Int
        switch unit {
        case "", "b": shift = 0
        case "k", "kb", "kib": shift = 10
        case "m", "mb", "mib": shift = 20
        case "g", "gb", "gib": shift = 30
        case "t", "tb", "tib": shift = 40
        default: return nil
        }
        guard number <= Int.max >> shift else { return nil }
        return number << shift
    }
}

#if canImport(Glibc)
import Glibc
#endif

private extension StringProtocol {
    var trimmingWhitespace: String {
        var slice = Substring(self)
        while let first = slice.first, first.isWhitespace { slice.removeFirst() }
        while let last = slice.last, last.isWhitespace { slice.removeLast() }
        return String(slice)
    }
}

/// Bytes of state held outside pages (an operator's own arrays), counted in a ``StateMemory``
/// while the charge lives.
package final class MemoryCharge {
    package let memory: StateMemory
    package private(set) var bytes = 0

    package init(_ memory: StateMemory) {
        self.memory = memory
    }

    /// Counts `bytes` instead of what was counted before.
    package func set(_ bytes: Int) {
        if bytes > self.bytes { memory.acquire(bytes - self.bytes) } else { memory.release(self.bytes - bytes) }
        self.bytes = bytes
    }

    deinit {
        memory.release(bytes)
    }
}
