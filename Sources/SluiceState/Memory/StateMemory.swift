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
///
/// A budget that bounds the process (`boundsProcess`, the server's) leaves the pages what the
/// rest of the process does not hold: the limit less the resident set outside the pages (the
/// program, the epoch's rows in flight, checkpoints being written, what the allocator keeps),
/// sampled from the kernel at most every 50 ms as the state is used, and never less than
/// a quarter of the limit. So the resident set, not the pages alone, is held near the limit: the
/// more the rest of the process takes, the more pages go to disk.
package final class StateMemory: Sendable {
    /// The most bytes the pages (or, with ``boundsProcess``, the process) may keep in memory.
    package let limit: Int
    /// Where spill files are created (each is unlinked at once and lives while it is open).
    package let spillDirectory: String
    /// Whether the limit bounds the process's resident set rather than the pages alone.
    package let boundsProcess: Bool

    private let resident = Atomic<Int>(0)
    private let clock = Atomic<UInt64>(1)
    private let spilled = Atomic<Int>(0)
    private let evictions = Atomic<Int>(0)
    private let loads = Atomic<Int>(0)
    private let peak = Atomic<Int>(0)
    /// When memory was last given back to the kernel (``returnFreedMemory()``), in milliseconds.
    private let lastTrim = Atomic<Int>(0)
    /// With ``boundsProcess``: the resident bytes outside the pages at the last sample, and when
    /// it was taken, in milliseconds.
    private let outside = Atomic<Int>(0)
    private let lastSample = Atomic<Int>(0)

    package init(limit: Int, spillDirectory: String, boundsProcess: Bool = false) {
        self.limit = max(limit, 1)
        self.spillDirectory = spillDirectory
        self.boundsProcess = boundsProcess
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

    /// The most bytes of pages that may stay resident now: the limit or, bounding the process,
    /// the limit less what the process holds outside the pages (at least a quarter of it).
    package var pageBudget: Int {
        guard boundsProcess else { return limit }
        sampleProcessIfDue()
        return max(limit - outside.load(ordering: .relaxed), limit / 4)
    }

    /// Whether resident pages exceed their budget.
    package var isOverLimit: Bool { residentBytes > pageBudget }

    /// The resident bytes an eviction brings the store down to.
    package var evictionTarget: Int {
        let budget = pageBudget
        return budget - budget / 8
    }

    /// Bytes the process holds outside the pages, at the last sample (0 unless bounding the process).
    package var outsideBytes: Int { outside.load(ordering: .relaxed) }

    /// Samples the process's resident set when the last sample is 50 ms old.
    private func sampleProcessIfDue() {
        let now = Self.milliseconds()
        let last = lastSample.load(ordering: .relaxed)
        guard now - last >= 50, lastSample.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else { return }
        guard let resident = Self.processResidentBytes() else { return }
        outside.store(max(0, resident - residentBytes), ordering: .relaxed)
    }

    private static func milliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
    }

    /// The process's resident set, from `/proc/self/statm` (its second field, in pages); nil
    /// where there is none. Read without Foundation: the state store asks it as it runs.
    package static func processResidentBytes() -> Int? {
        #if canImport(Glibc)
        let descriptor = open("/proc/self/statm", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        var field = 0
        var value = 0
        for byte in buffer.prefix(count) {
            if byte == UInt8(ascii: " ") {
                field += 1
                if field == 2 { break }
                value = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
        }
        guard field >= 1 else { return nil }
        return value * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return nil
        #endif
    }

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
        let milliseconds = Self.milliseconds()
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
