import Foundation
import SluiceGen
import Synchronization

/// Progress of a running benchmark on a terminal: a ``TerminalProgress`` line, redrawn twice a
/// second by a ticker, naming what the benchmark last reported (its current phase) or what it
/// waits for, and the time spent on it. Shown only when standard error is a terminal and
/// `sluice bench` was not given `--quiet`. The benchmarks' figures go through ``report(_:)``,
/// which clears the line first, so figures and progress never share a line.
package enum BenchProgress {
    private struct State {
        var line = TerminalProgress(quiet: true)
        var phase = ""
        var detail = ""
        var since = ContinuousClock.now
        var ticker: Thread?
    }

    private static let state = Mutex(State())

    /// Starts drawing (on a terminal, without `quiet`).
    package static func enable(quiet: Bool) {
        state.withLock { state in
            guard state.ticker == nil else { return }
            state.line = TerminalProgress(quiet: quiet)
            guard state.line.isShown else { return }
            let ticker = Thread {
                while true {
                    Thread.sleep(forTimeInterval: 0.5)
                    BenchProgress.state.withLock { state in
                        let seconds = Int((ContinuousClock.now - state.since).components.seconds)
                        let what = state.detail.isEmpty ? "after: \(state.phase)" : state.detail
                        state.line.update { "  … \(what) (\(seconds) s)" }
                    }
                }
            }
            ticker.start()
            state.ticker = ticker
        }
    }

    /// What the benchmark is waiting for, with counts ("source took 1,200,000 of 10,000,000").
    package static func detail(_ text: String) {
        state.withLock { $0.detail = text }
    }

    /// Prints a figure or heading line to standard output; it becomes the phase the progress
    /// line names until the next one.
    package static func report(_ line: String) {
        state.withLock { state in
            state.line.clear()
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { state.phase = String(trimmed.prefix(60)) }
            state.detail = ""
            state.since = .now
        }
    }
}

/// A benchmark's output line (see ``BenchProgress/report(_:)``).
func report(_ line: String) {
    BenchProgress.report(line)
}
