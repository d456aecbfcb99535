#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Knows how much of the current thread's stack is left, so recursion can stop with an error
/// before it overflows — PostgreSQL's `check_stack_depth()`.
///
/// Threads differ widely (8 MiB for a Linux main thread, 512 KiB for secondary threads on macOS)
/// and debug builds use several KiB per nesting level, so a fixed depth limit alone is not safe.
struct StackGuard {
    /// Stop when fewer than this many bytes are left.
    static let reserve: UInt = 256 * 1024
    /// Stack a parse may use when the thread's bounds cannot be found.
    static let fallbackBudget: UInt = 1024 * 1024

    /// The lowest address recursion may reach; 0 when the stack bounds are unknown.
    let floor: UInt

    init() {
        guard let bounds = Self.currentStackBounds() else {
            // Unknown bounds: allow a conservative budget below the current frame.
            var marker: UInt8 = 0
            let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
            floor = address > Self.fallbackBudget ? address - Self.fallbackBudget : 0
            return
        }
        let reserve = min(Self.reserve, bounds.size / 4)
        floor = bounds.low + reserve
    }

    /// True when the stack has room for another level of recursion.
    @inline(never)
    func hasRoom() -> Bool {
        guard floor != 0 else { return true }
        var marker: UInt8 = 0
        let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
        return address > floor
    }

    private static func currentStackBounds() -> (low: UInt, size: UInt)? {
        #if canImport(Darwin)
        let thread = pthread_self()
        let high = UInt(bitPattern: pthread_get_stackaddr_np(thread))
        let size = UInt(pthread_get_stacksize_np(thread))
        return high > size ? (high - size, size) : nil
        #elseif canImport(Glibc) || canImport(Musl)
        // `pthread_getattr_np` is a GNU extension the Swift Glibc module does not export.
        typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
        guard let symbol = dlsym(nil, "pthread_getattr_np") else { return nil }
        let getAttributes = unsafeBitCast(symbol, to: GetAttributes.self)
        var attributes = pthread_attr_t()
        guard getAttributes(pthread_self(), &attributes) == 0 else { return nil }
        defer { pthread_attr_destroy(&attributes) }
        var address: UnsafeMutableRawPointer?
        var size = 0
        guard pthread_attr_getstack(&attributes, &address, &size) == 0, let address else { return nil }
        return (UInt(bitPattern: address), UInt(size))
        #else
        return nil
        #endif
    }
}
