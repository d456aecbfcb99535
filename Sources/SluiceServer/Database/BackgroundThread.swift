import Foundation

/// Runs blocks one at a time, in order, on a thread of its own at a lower priority (nice 10)
/// than the threads that answer clients: background work such as encoding and writing state
/// checkpoints, which on two cores would otherwise take one from the writers for a second at a
/// time. The thread is started when blocks come and ends when they are done.
final class BackgroundThread: @unchecked Sendable {
    private let name: String
    private let niceness: Int32
    private let condition = NSCondition()
    private var blocks: [() -> Void] = []
    private var isRunning = false
    /// Blocks queued and blocks run, in all.
    private var submitted = 0
    private var completed = 0

    init(name: String, niceness: Int32 = 10) {
        self.name = name
        self.niceness = niceness
    }

    /// Queues `block` to run after those queued before it.
    func async(_ block: @escaping () -> Void) {
        condition.lock()
        blocks.append(block)
        submitted += 1
        let starts = !isRunning
        isRunning = true
        condition.unlock()
        guard starts else { return }
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    /// Returns once every block queued before the call has run.
    func waitForQueued() {
        condition.lock()
        let target = submitted
        while completed < target { condition.wait() }
        condition.unlock()
    }

    private func run() {
        // On Linux a thread's nice value is its own: PRIO_PROCESS with 0 names the caller.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        while true {
            condition.lock()
            guard !blocks.isEmpty else {
                isRunning = false
                condition.unlock()
                return
            }
            let block = blocks.removeFirst()
            condition.unlock()
            block()
            condition.lock()
            completed += 1
            condition.broadcast()
            condition.unlock()
        }
    }
}
