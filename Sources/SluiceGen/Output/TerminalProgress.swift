import Foundation

/// A progress line for long command-line work: redrawn in place on standard error at most
/// twice a second when standard error is a terminal, and never when it is piped or with
/// `--quiet`, so scripts and logs get only the summary.
package struct TerminalProgress {
    /// Whether the line is drawn at all.
    package let isShown: Bool
    private var nextDraw: Double = 0
    private var drawn = false

    package init(quiet: Bool = false) {
        isShown = !quiet && isatty(2) != 0
    }

    /// Draws `text` (a closure, so nothing is formatted when the line is not shown or not due).
    package mutating func update(_ text: () -> String) {
        guard isShown else { return }
        let now = Date().timeIntervalSinceReferenceDate
        guard now >= nextDraw else { return }
        nextDraw = now + 0.5
        drawn = true
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text())".utf8))
    }

    /// Clears the line before the summary or an error is written.
    package mutating func clear() {
        guard drawn else { return }
        drawn = false
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
