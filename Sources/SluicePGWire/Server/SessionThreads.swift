#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore

/// The threads that carry out sessions' statements, as a task executor: a thread for each
/// statement running at once, up to `maximumThreads`.
///
/// Statements run synchronously for as long as their query takes. On Swift's cooperative pool,
/// which has one thread per core, two long queries would hold every thread and leave other
/// sessions, and everything else on the pool, waiting. Here the kernel shares the cores among
/// the running statements, so a `SELECT 1` is answered at once however many long queries run
/// (PostgreSQL gets the same from its process per connection). A thread that stays idle for
/// `idleTimeout` ends.
package final class SessionThreads: TaskExecutor, @unchecked Sendable {
    /// A statement's stack: the binder, optimizer and executor recurse over a query's nesting
    /// (up to the parser's 1,000 levels), several KiB a level in a debug build. Only the pages
    /// a statement touches take memory.
    package static let stackSize = 256 << 20

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs = CircularBuffer<UnownedJob>()
    private var idle = 0
    private var threads = 0
    private let maximumThreads: Int
    private let idleTimeout: TimeInterval

    package init(maximumThreads: Int = 256, idleTimeout: TimeInterval = 30) {
        precondition(maximumThreads > 0)
        self.maximumThreads = maximumThreads
        self.idleTimeout = idleTimeout
    }

    /// The threads running now (for tests).
    package var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let startsThread = jobs.count > idle && threads < maximumThreads
        if startsThread { threads += 1 }
        condition.signal()
        condition.unlock()
        if startsThread { startThread() }
    }

    /// A thread with a stack of ``stackSize`` (made with pthreads: Foundation's `Thread` leaves
    /// its stack at the 8 MiB default whatever `stackSize` says).
    private func startThread() {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, Self.stackSize)
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            let threads = Unmanaged<SessionThreads>.fromOpaque(context!).takeRetainedValue()
            // (A new thread would otherwise keep the name of the one that made it.)
            Thread.current.name = "sluice-session"
            threads.work()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<SessionThreads>.fromOpaque(context).release()
            condition.lock()
            threads -= 1
            condition.unlock()
            return
        }
        pthread_detach(thread)
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        condition.lock()
        while true {
            if let job = jobs.popFirst() {
                condition.unlock()
                job.runSynchronously(on: executor)
                condition.lock()
                continue
            }
            idle += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleTimeout))
            idle -= 1
            if !signalled && jobs.isEmpty {
                threads -= 1
                condition.unlock()
                return
            }
        }
    }
}
