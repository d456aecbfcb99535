import Foundation
import SluiceCore

/// A fixed set of worker threads that run fragments with messages waiting.
///
/// A fragment runs on one worker at a time, for a bounded number of messages, and then goes to
/// the back of the line if it has more; so a few threads serve any number of views, and a busy
/// view cannot starve the others. The workers also run short jobs handed to them
/// (``BackgroundJobs``: a source's next Parquet page to decompress), ahead of fragments: whoever
/// handed one over takes it back and does it itself if no worker has started it.
package final class WorkerPool: BackgroundJobs, @unchecked Sendable {
    private let condition = NSCondition()
    private var ready: [Fragment] = []
    private var head = 0
    private var jobs: [@Sendable () -> Void] = []
    private var jobHead = 0
    private var stopped = false

    package init(threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        for index in 0 ..< max(1, threads) {
            let thread = Thread { [self] in work() }
            thread.name = "sluice-worker-\(index)"
            thread.start()
        }
    }

    /// Queues `fragment` to run (the fragment makes sure it is queued at most once).
    func enqueue(_ fragment: Fragment) {
        condition.lock()
        ready.append(fragment)
        condition.signal()
        condition.unlock()
    }

    /// Queues `job` to run on a worker before the fragments waiting.
    package func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the worker threads once they finish what they are running.
    package func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == ready.count && jobHead == jobs.count && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                return
            }
            if jobHead < jobs.count {
                let job = jobs[jobHead]
                jobHead += 1
                if jobHead == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    jobHead = 0
                }
                condition.unlock()
                job()
                continue
            }
            let fragment = ready[head]
            head += 1
            if head > 256 && head * 2 > ready.count {
                ready.removeFirst(head)
                head = 0
            }
            condition.unlock()
            fragment.runSlice()
        }
    }
}
