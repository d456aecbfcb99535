import Foundation
import Synchronization
import Testing
@testable import SluicePGWire

@Suite struct SessionThreadsTests {
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Eight statements that each block until all eight run: on a pool with a thread per core
    /// they would wait for each other forever; here each gets its thread.
    @Test func statementsThatBlockEachRunOnTheirOwnThread() async throws {
        let threads = SessionThreads()
        let started = Counter()
        let count = 8
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask(executorPreference: threads) {
                    started.value.add(1, ordering: .relaxed)
                    let deadline = Date(timeIntervalSinceNow: 10)
                    while started.value.load(ordering: .relaxed) < count && Date() < deadline { usleep(1000) }
                    return started.value.load(ordering: .relaxed) == count
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: count))
    }

    /// Idle threads end; the next statement starts one again.
    @Test func idleThreadsEnd() async throws {
        let threads = SessionThreads(maximumThreads: 4, idleTimeout: 0.05)
        let value = await Task(executorPreference: threads) { 41 + 1 }.value
        #expect(value == 42)
        let deadline = Date(timeIntervalSinceNow: 10)
        while threads.threadCount > 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(threads.threadCount == 0)
        #expect(await Task(executorPreference: threads) { 7 }.value == 7)
    }
}
