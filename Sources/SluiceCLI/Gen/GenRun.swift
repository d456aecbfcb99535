import SluiceCommandLine
import Dispatch
import Foundation
import SluiceGen
import Synchronization

/// One `sluice gen` run: pulls events from a generator into a sink until the count, the
/// duration or an interrupt (SIGINT, SIGTERM) ends it, pacing to `rate` events a second by
/// sleeping on a monotonic clock; shows progress when standard error is a terminal and a
/// one-line summary at the end (neither with `--quiet`).
struct GenRun {
    let name: String
    let count: Int?
    let duration: Double?
    /// Events a second; 0 is as fast as possible.
    let rate: Double
    /// `--quiet`: no progress line and no summary.
    var quiet = false

    /// Flush a sink before sleeping when this long has passed since the last flush, so a
    /// paced run's events reach the topic within about this delay.
    private static let linger = 0.1

    /// Runs until the count, the duration, or a stop: SIGINT or SIGTERM, or with `stopRequested`
    /// (a run inside a longer-lived command that handles the signals itself), when it says so.
    func drive<Generator: EventGenerator, Sink: EventSink>(
        _ generator: inout Generator, into sink: inout Sink, destination: String, stopRequested: (() -> Bool)? = nil
    ) throws {
        let signals = stopRequested == nil ? StopSignal() : nil
        defer { signals?.restore() }
        let isStopped = stopRequested ?? { signals?.isRequested ?? false }
        var progress = TerminalProgress(quiet: quiet)
        let event = GeneratedEvent()
        let start = monotonicSeconds()
        let deadline = duration.map { start + $0 }
        let interval = rate > 0 ? 1 / rate : 0
        var sent = 0
        var bytes = 0
        var lastFlush = start
        do {
            while count.map({ sent < $0 }) ?? true, !isStopped() {
                // Unpaced runs read the clock every 1,024 events only.
                if rate > 0 || sent & 1023 == 0 {
                    var now = monotonicSeconds()
                    if let deadline, now >= deadline { break }
                    if rate > 0 {
                        let due = start + Double(sent) * interval
                        if due > now {
                            if now - lastFlush >= Self.linger || due - now >= Self.linger {
                                try sink.flush()
                                lastFlush = now
                            }
                            sleep(until: min(due, deadline ?? due))
                            now = monotonicSeconds()
                            if let deadline, now >= deadline { break }
                        }
                    }
                    progress.update { "sluice gen \(name): \(sent) events, \(Int(Double(sent) / max(now - start, 1e-9))) events/s" }
                }
                event.clear()
                generator.next(into: event)
                try sink.send(key: event.keyBytes, value: event.value.bytes)
                sent += 1
                bytes += event.value.count
            }
            try sink.finish()
        } catch let error as ExitCode {
            throw error
        } catch {
            progress.clear()
            throw fail("gen \(name): \(error) (after \(sent) events)")
        }
        progress.clear()
        guard !quiet else { return }
        let elapsed = max(monotonicSeconds() - start, 1e-9)
        let megabytes = String(format: "%.1f", Double(bytes) / 1_048_576)
        let seconds = String(format: "%.2f", elapsed)
        FileHandle.standardError.write(Data(
            "sluice gen \(name): \(sent) events (\(megabytes) MiB of JSON) to \(destination) in \(seconds) s, \(Int(Double(sent) / elapsed)) events/s\n".utf8))
    }
}

/// Seconds on the monotonic clock.
private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Sleeps until the monotonic clock reads `target` (no busy wait).
private func sleep(until target: Double) {
    let seconds = target - monotonicSeconds()
    guard seconds > 0 else { return }
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR {
        request = remaining
    }
}

/// Turns SIGINT and SIGTERM into a request to stop, which the run checks between events (so
/// the sink is flushed and the summary printed), until `restore()`.
private final class StopSignal {
    /// Set from the signal sources' queue, read by the run.
    private final class Request: Sendable {
        let isSet = Atomic<Bool>(false)
    }

    private let request = Request()
    private var sources: [any DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [request] in request.isSet.store(true, ordering: .relaxed) }
            source.resume()
            sources.append(source)
        }
    }

    var isRequested: Bool {
        request.isSet.load(ordering: .relaxed)
    }

    func restore() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
