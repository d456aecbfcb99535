import Dispatch

/// Where HTTP routes run: a concurrent dispatch queue of its own, as a task executor, so that
/// answers do not wait on Swift's cooperative pool (two threads on a two-core machine), which
/// other work may hold. A route that blocks (a catalog commit's file writes) takes a queue
/// thread, not an event loop or a pool thread.
final class HTTPWorkers: TaskExecutor {
    static let shared = HTTPWorkers()
    private let queue = DispatchQueue(label: "sluice-http", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
