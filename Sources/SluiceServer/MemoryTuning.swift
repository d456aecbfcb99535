#if canImport(Glibc)
import Glibc
#endif

/// Allocator settings for a long-running engine.
///
/// glibc serves allocations above its mmap threshold with fresh mappings and gives freed memory
/// back to the kernel eagerly; a stream operator that builds and drops large buffers every epoch
/// then spends a third of its time in page faults zeroing new pages. Raising the mmap threshold
/// to its maximum (32 MiB) and the trim threshold to 1 GiB keeps such buffers in the heap for
/// reuse. Under a memory limit the trim threshold is an eighth of the limit (at least 16 MiB),
/// so memory that state eviction frees goes back to the kernel. `mallopt` is looked up at run
/// time because Swift's Glibc module does not export it.
package enum MemoryTuning {
    package static func apply(memoryLimit: Int? = nil) {
        #if canImport(Glibc)
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
        let trimThreshold: Int32 = -1
        let mmapThreshold: Int32 = -3
        _ = mallopt(mmapThreshold, 32 << 20)
        let trim = memoryLimit.map { min(1 << 30, max($0 / 8, 16 << 20)) } ?? 1 << 30
        _ = mallopt(trimThreshold, Int32(trim))
        #endif
    }
}
