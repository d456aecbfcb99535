import Foundation
import Synchronization
import SluiceCore

/// Where one reader of a source gets its rows from (a set of Kafka partitions, a generator, a
/// folder of files). The ``SourceDriver`` calls ``step(_:)`` on the reader's own thread, again and
/// again: each call reads what is ready and hands it over through the context, which delivers
/// it and moves the reader's position in the same step.
package protocol SourceReader: AnyObject {
    /// Reads what is ready. Throwing means the outside system failed: the driver records why,
    /// calls ``reset()``, waits (a second, then longer) and steps again.
    func step(_ context: SourceStepContext) throws(SluiceError) -> SourceStep
    /// Nobody reads the source now: let go of what reading holds (a Kafka assignment).
    func pause()
    /// Starts over after a failure: a new connection on the next step.
    func reset()
    /// The driver stops: release everything.
    func close()
}

extension SourceReader {
    package func pause() {}
    package func reset() {}
    package func close() {}
}

/// What a step did.
package enum SourceStep: Sendable {
    /// Rows or positions moved: step again at once.
    case progressed
    /// Nothing was ready: step again after at most this long (the driver also wakes to stop).
    case idle(Duration)
    /// The source has no more rows (a generator's sequence ended); the status says so.
    case finished(String)
}

/// What a reader's step hands its rows to.
package final class SourceStepContext: Sendable {
    private let output: SourceOutput
    package let statistics: SourceStatistics
    private let stopping: @Sendable () -> Bool
    /// The index of the reader among the source's readers.
    package let readerIndex: Int
    /// Rows delivered since the driver last took the count.
    private let delivered = Atomic<Int>(0)

    init(output: SourceOutput, statistics: SourceStatistics, stopping: @escaping @Sendable () -> Bool, readerIndex: Int) {
        self.output = output
        self.statistics = statistics
        self.stopping = stopping
        self.readerIndex = readerIndex
    }

    /// Where the reader may run work ahead of its thread (nil: nowhere; do it in turn).
    package var background: (any BackgroundJobs)? { output.background }

    /// True once the source is stopping: a long step (a large file) should return.
    package var isStopping: Bool { stopping() }

    /// Delivers `chunk` and runs `advance` (the reader's new position) in the same step. Rows the
    /// database refuses (the table was dropped meanwhile, say) are counted as rejected and the
    /// position moves on all the same.
    package func deliver(_ chunk: Chunk, advance: () -> Void) {
        _ = deliver(chunk, reading: nil, advance: advance)
    }

    /// The source's columns its readers read now (nil: all): a reader that can leave columns
    /// undecoded (Parquet's) decodes these and delivers with ``deliver(_:reading:advance:)``.
    package var readColumns: Set<Int>? { output.reading?.columns() }

    /// ``deliver(_:advance:)`` of a chunk of which only `columns` (from ``readColumns``) hold
    /// values; false, with nothing delivered and `advance` not run, when a reader now reads a
    /// column outside them: decode the rows again with ``readColumns`` and deliver them again.
    package func deliver(_ chunk: Chunk, reading columns: Set<Int>?, advance: () -> Void) -> Bool {
        guard chunk.count > 0 else {
            advance()
            return true
        }
        do throws(SluiceError) {
            if let columns, let reading = output.reading {
                guard try reading.deliver(chunk, columns, advance) else { return false }
            } else {
                try output.deliver(chunk, advance)
            }
            statistics.rowsRead.add(chunk.count, ordering: .relaxed)
            delivered.add(chunk.count, ordering: .relaxed)
        } catch {
            statistics.status = "delivery failed: \(error.message)"
            statistics.rowsRejected.add(chunk.count, ordering: .relaxed)
            advance()
        }
        return true
    }

    /// The rows delivered since the last call.
    func takeDelivered() -> Int { delivered.exchange(0, ordering: .relaxed) }

    /// Deletes the rows with the keys of `keys` (a table's FORMAT UPSERT), then runs `advance`.
    package func deleteKeys(_ keys: Chunk, advance: () -> Void) {
        guard keys.count > 0, let deleteKeys = output.deleteKeys else {
            advance()
            return
        }
        do throws(SluiceError) {
            try deleteKeys(keys, advance)
            statistics.rowsRead.add(keys.count, ordering: .relaxed)
        } catch {
            statistics.status = "delivery failed: \(error.message)"
            statistics.rowsRejected.add(keys.count, ordering: .relaxed)
            advance()
        }
    }

    /// Counts a bad row and keeps its record for `sluice_source_errors`.
    package func reject(partition: Int32, offset: Int64, message: String, payload: UnsafeRawBufferPointer) {
        statistics.reject(partition: partition, offset: offset, message: message, payload: payload, at: Int64(Date().timeIntervalSince1970 * 1_000_000))
    }
}

/// Runs a source's readers, each on a thread of its own: the one owner of a source's threads.
///
/// For each reader it loops: while nobody reads the source (no view over it) it waits, having
/// paused the reader; otherwise it steps the reader, sleeping as the reader says when nothing is
/// ready, and after a failure it resets the reader and backs off (1 s, doubling to 30 s), with
/// the reason in the source's status. When a reader runs dry (a step finds nothing ready) after
/// a backlog of at least ``backlogRows`` rows, the driver tells the output (``SourceOutput/caughtUp``),
/// so the views show them without waiting out the barrier interval; a trickle does not.
/// ``stop()`` returns once every thread has ended and every reader is closed.
package final class SourceDriver: Sendable {
    private let name: String
    private let statistics: SourceStatistics
    private let readers: [SendableReader]
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Int>(0)
    private let finished = DispatchSemaphore(value: 0)

    /// A reader is used by its own thread alone once started.
    private struct SendableReader: @unchecked Sendable {
        let reader: any SourceReader
    }

    package init(name: String, statistics: SourceStatistics, readers: [any SourceReader]) {
        self.name = name
        self.statistics = statistics
        self.readers = readers.map(SendableReader.init)
    }

    package func start(output: SourceOutput) {
        for (index, box) in readers.enumerated() {
            let context = SourceStepContext(
                output: output, statistics: statistics, stopping: { [self] in stopping.load(ordering: .relaxed) }, readerIndex: index)
            let thread = Thread { [self] in
                run(box.reader, context: context, output: output)
                box.reader.close()
                finished.signal()
            }
            thread.name = "sluice-source-\(name)-\(index)"
            started.add(1, ordering: .relaxed)
            thread.start()
        }
    }

    package func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for _ in 0 ..< started.load(ordering: .acquiring) { finished.wait() }
    }

    /// Rows read without a pause that make a backlog (eight chunks).
    package static let backlogRows = 8 * Chunk.preferredSize

    private func run(_ reader: any SourceReader, context: SourceStepContext, output: SourceOutput) {
        var backoff: Duration = .seconds(1)
        var paused = false
        // Rows delivered since the reader last found nothing ready.
        var burst = 0
        func ranDry() {
            burst += context.takeDelivered()
            if burst >= Self.backlogRows { output.caughtUp?() }
            burst = 0
        }
        while !stopping.load(ordering: .acquiring) {
            guard output.isRead() else {
                if !paused {
                    reader.pause()
                    paused = true
                }
                if context.readerIndex == 0 { statistics.status = "waiting for a view" }
                if let wait = output.waitForReader { wait(.milliseconds(50)) } else { sleep(.milliseconds(50)) }
                continue
            }
            paused = false
            do throws(SluiceError) {
                switch try reader.step(context) {
                case .progressed:
                    backoff = .seconds(1)
                    burst += context.takeDelivered()
                case .idle(let wait):
                    backoff = .seconds(1)
                    ranDry()
                    sleep(wait)
                case .finished(let status):
                    ranDry()
                    statistics.status = status
                    return
                }
            } catch {
                statistics.status = "retrying: \(error.message)"
                reader.reset()
                sleep(backoff)
                backoff = min(backoff * 2, .seconds(30))
            }
        }
    }

    /// Sleeps `duration`, waking early (within 50 ms) when the source stops.
    private func sleep(_ duration: Duration) {
        let deadline = ContinuousClock.now + duration
        while !stopping.load(ordering: .relaxed) {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return }
            Thread.sleep(forTimeInterval: min(0.05, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18))
        }
    }
}

/// A connector's driver while it runs: started once, stopped once. The readers usually hold
/// their connector, so dropping the driver on stop frees both.
package final class SourceDriverSlot: Sendable {
    private let driver = Mutex<SourceDriver?>(nil)

    package init() {}

    package func start(name: String, statistics: SourceStatistics, readers: [any SourceReader], output: SourceOutput) {
        let started = SourceDriver(name: name, statistics: statistics, readers: readers)
        driver.withLock { $0 = started }
        started.start(output: output)
    }

    package func stop() {
        let running = driver.withLock { current -> SourceDriver? in
            defer { current = nil }
            return current
        }
        running?.stop()
    }
}

