#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import SluiceState

/// Allocator settings for a long-running engine.
///
/// glibc serves allocations above its mmap threshold with fresh mappings and gives freed memory
/// back to the kernel eagerly; a stream operator that builds and drops large buffers every epoch
/// then spends a third of its time in page faults zeroing new pages. Raising the mmap threshold
/// to its maximum (32 MiB) and the trim threshold to 1 GiB keeps such buffers in the heap for
/// reuse. Under a memory limit the trim threshold is an eighth of the limit (at least 16 MiB),
/// so memory that state eviction frees goes back to the kernel, and the mmap threshold a 512th
/// of it (at least 256 KiB, at most 32 MiB): at a 115 MiB limit, three times smaller state ran
/// at the same rate with a peak resident set of 174–178 MiB instead of 211–233 MiB, since the
/// buffers an epoch and a checkpoint build and drop no longer stay in the heap once freed.
///
/// That alone does not hold the resident set near the limit: glibc gives back only the free
/// memory at the top of each arena's heap, and the worker, connector and checkpoint threads
/// each allocate in arenas of their own, where what evicted pages and finished epochs free sits
/// between live blocks. So under a limit the number of arenas is capped at two per core, and a
/// background thread calls `malloc_trim` (which returns the free pages inside every arena)
/// whenever the resident set is over the limit, at most every quarter second.
/// `mallopt` and `malloc_trim` are looked up at run time because Swift's Glibc module does not
/// export them.
package enum MemoryTuning {
    private static let trimmerStarted = Atomic<Bool>(false)

    package static func apply(memoryLimit: Int? = nil) {
        #if canImport(Glibc)
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
        let trimThreshold: Int32 = -1
        let mmapThreshold: Int32 = -3
        let arenaMax: Int32 = -8
        // Under a limit, a 512th of it (at least 256 KiB): buffers past that are mapped alone and
        // given back when freed, rather than left in the heap between live blocks.
        _ = mallopt(mmapThreshold, Int32(memoryLimit.map { min(32 << 20, max(256 << 10, $0 / 512)) } ?? 32 << 20))
        let trim = memoryLimit.map { min(1 << 30, max($0 / 8, 16 << 20)) } ?? 1 << 30
        _ = mallopt(trimThreshold, Int32(trim))
        if let memoryLimit {
            _ = mallopt(arenaMax, Int32(2 * ProcessInfo.processInfo.activeProcessorCount))
            startTrimmer(limit: memoryLimit)
        }
        #endif
    }

    /// Starts the thread that gives free heap memory back while the resident set is over `limit`.
    private static func startTrimmer(limit: Int) {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        let mallocTrim = unsafeBitCast(symbol, to: MallocTrim.self)
        guard !trimmerStarted.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: 0.25)
                if (StateMemory.processResidentBytes() ?? 0) > limit { _ = mallocTrim(0) }
            }
        }
        thread.name = "sluice-malloc-trim"
        thread.qualityOfService = .background
        thread.start()
        #endif
    }
}
