#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SluiceCore

/// `sluice bench memory`: does `--memory-limit` bound the server while statements work on far
/// more data than the limit? Each ``Case`` (a bulk load, views backfilled over the loaded table,
/// queries that group, sort and count distinct values, a large UPDATE and DELETE) runs as the
/// only statement of a fresh `sluice serve` process, started from a copy of a data directory
/// prepared once (`big` of N rows, `other` of N/3). Once the server answers, its peak resident
/// set so far (`VmHWM` in `/proc/<pid>/status`) is the idle baseline, start-up included; then
/// the peak is reset (`/proc/<pid>/clear_refs`), so that `VmHWM` read right after the statement
/// is the statement's own.
/// Each case runs under the limit and, unless told not to, once more with serve's default limit
/// (half the machine's memory), whose time is the throughput the limited run is compared with.
/// Statements go through psql; every answer is checked.
/// Goal: every peak ≤ 1.5 × the limit + 64 MiB, and throughput ≥ 0.5× of the run without a limit.
package struct MemoryBenchmark {
    /// Rows of `big`; a multiple of 6.
    package var rows: Int
    /// Bytes given to `sluice serve --memory-limit`.
    package var memoryLimit: Int
    /// The statements measured, in this order.
    package var cases: [Case]
    /// Whether each case runs a second time without `--memory-limit`.
    package var comparesWithoutLimit: Bool
    /// The `sluice` executable the servers are started from.
    package var executable: String

    /// A benchmark of `cases` on `rows` rows under `memoryLimit` bytes, servers started from
    /// `executable`.
    package init(rows: Int, memoryLimit: Int, cases: [Case], comparesWithoutLimit: Bool, executable: String) {
        self.rows = rows
        self.memoryLimit = memoryLimit
        self.cases = cases
        self.comparesWithoutLimit = comparesWithoutLimit
        self.executable = executable
    }

    /// The goal's bound on a run's peak resident set: 1.5 × the limit + 64 MiB.
    var bound: Int { memoryLimit + memoryLimit / 2 + (64 << 20) }

    /// One statement's run on a fresh server.
    struct Measurement {
        var seconds: Double
        /// The peak resident set once the server was ready, before the statement: start-up's.
        var idleBytes: Int
        /// The peak resident set during the statement (from the resident set it started at).
        var peakBytes: Int
        /// Whether the peak could not be reset after start-up, so that `peakBytes` includes it.
        var includesStartup: Bool
    }

    /// The data directories cases start from, prepared once per run of the benchmark.
    struct PreparedData {
        var root: String
        var loaded: String
        var withAggregate: String?
        var copyFile: String
        /// Bytes of `loaded` on disk.
        var bytes: Int
        /// The limit `sluice serve` takes without `--memory-limit`, as its first line says.
        var defaultLimit: String
    }

    /// Prepares the data, runs every case and prints a line for each; fails after the last
    /// case when one of them failed.
    package func run() throws {
        guard rows >= 6, rows % 6 == 0 else {
            throw SluiceError(.invalidParameterValue, "sluice bench memory needs a positive multiple of 6 rows, not \(rows)")
        }
        guard !cases.isEmpty, memoryLimit > 0 else {
            throw SluiceError(.invalidParameterValue, "sluice bench memory needs at least one case and a positive limit")
        }
        let root = try benchDirectory(named: "memory")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = try prepare(in: root)
        report(String(format: "sluice bench memory: %d rows (%.0f MB on disk), --memory-limit %d MiB; bound 1.5 × limit + 64 MiB = %d MiB",
                      rows, Double(data.bytes) / 1e6, memoryLimit >> 20, bound >> 20))
        report("  one fresh `sluice serve` per statement, from a copy of the loaded data; idle = VmHWM once started, peak = VmHWM of the statement alone (reset after start-up); "
            + "no limit = serve's default, \(data.defaultLimit); view-on-view alone, agg made beforehand")

        var failures: [String] = []
        var withinBound = 0
        var fastEnough = 0
        var compared = 0
        var misses: [String] = []
        var startupsOver: [String] = []
        for benchCase in cases {
            var line = "  \(benchCase.label)"
            let taken = Double(benchCase.rowsTaken(rows: rows))
            let limited: Measurement
            do {
                limited = try measure(benchCase, memoryLimit: memoryLimit, data: data)
            } catch {
                report(line + "limit: FAILED: \(error)")
                failures.append("\(benchCase.rawValue) under the limit")
                continue
            }
            let isWithin = limited.peakBytes <= bound
            if isWithin { withinBound += 1 } else { misses.append("\(benchCase.rawValue)'s peak") }
            line += String(format: "limit: %6.1f s %8.0f rows/s  idle %4d MiB  peak %5d MiB (%.2f× limit) ",
                           limited.seconds, taken / limited.seconds, limited.idleBytes >> 20, limited.peakBytes >> 20,
                           Double(limited.peakBytes) / Double(memoryLimit))
            line += isWithin ? "ok" : "OVER"
            if limited.includesStartup { line += " (start-up included: the peak could not be reset)" }
            if limited.idleBytes > bound { startupsOver.append(benchCase.rawValue) }
            if comparesWithoutLimit {
                do {
                    let free = try measure(benchCase, memoryLimit: nil, data: data)
                    let ratio = free.seconds / limited.seconds
                    compared += 1
                    if ratio >= 0.5 { fastEnough += 1 } else { misses.append("\(benchCase.rawValue)'s throughput") }
                    line += (isWithin ? "  " : "") + String(format: "     no limit: %6.1f s %8.0f rows/s  peak %5d MiB   throughput %.2f×",
                                                              free.seconds, taken / free.seconds, free.peakBytes >> 20, ratio)
                    line += ratio >= 0.5 ? "" : " LOW"
                } catch {
                    line += (isWithin ? "  " : "") + "     no limit: FAILED: \(error)"
                    failures.append("\(benchCase.rawValue) without a limit")
                }
            }
            report(line)
        }
        if !startupsOver.isEmpty {
            report("  start-up alone (idle) passed the bound under the limit in: \(startupsOver.joined(separator: ", "))")
        }
        var goal = "goal: peak ≤ \(bound >> 20) MiB in \(withinBound) of \(cases.count) cases"
        if comparesWithoutLimit { goal += ", throughput ≥ 0.5× of no limit in \(fastEnough) of \(compared)" }
        goal += misses.isEmpty && failures.isEmpty ? ": met" : ": not met"
        if !misses.isEmpty { goal += " (\(misses.joined(separator: ", ")))" }
        report(goal)
        if !failures.isEmpty {
            throw SluiceError(.internalError, "sluice bench memory: failed: \(failures.joined(separator: ", "))")
        }
    }

    /// Writes the COPY file when `copy` is a case, loads `big` and `other` on a server without
    /// a limit and stops it cleanly; when `view-on-view` is a case, makes `agg` in a copy too.
    private func prepare(in root: String) throws -> PreparedData {
        let copyFile = "\(root)/big.txt"
        if cases.contains(.copy) {
            BenchProgress.detail("writing \(rows) rows for COPY")
            _ = try Self.writeCopyFile(rows: rows, to: copyFile)
        }
        let loaded = "\(root)/loaded"
        let log = "\(root)/prepare.log"
        let server = try ServeProcess(executable: executable, dataDirectory: loaded, memoryLimit: nil, logPath: log)
        defer { server.stopAtOnce() }
        try server.waitUntilReady()
        let statements = Self.preparation(rows: rows)
        for (index, statement) in statements.enumerated() {
            BenchProgress.detail("preparing: statement \(index + 1) of \(statements.count)")
            _ = try server.psql(statement)
        }
        try server.stop()
        let defaultLimit = server.log.firstMatch(of: #/memory limit (\d+ MiB)/#).map { String($0.1) } ?? "unknown"

        var withAggregate: String?
        if cases.contains(.viewOnView) {
            BenchProgress.detail("preparing: agg for view-on-view")
            let directory = "\(root)/with-aggregate"
            try Self.copyDirectory(loaded, to: directory)
            let server = try ServeProcess(executable: executable, dataDirectory: directory, memoryLimit: nil, logPath: log)
            defer { server.stopAtOnce() }
            try server.waitUntilReady()
            _ = try server.psql(Self.aggregateView)
            try server.stop()
            withAggregate = directory
        }
        return PreparedData(root: root, loaded: loaded, withAggregate: withAggregate, copyFile: copyFile, bytes: Self.bytes(under: loaded), defaultLimit: defaultLimit)
    }

    /// Runs `benchCase` alone on a fresh server with `memoryLimit` (nil: serve's default) and
    /// checks its answer; the server is killed and its directory removed afterwards.
    private func measure(_ benchCase: Case, memoryLimit: Int?, data: PreparedData) throws -> Measurement {
        let directory = "\(data.root)/run"
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let condition = memoryLimit == nil ? "without a limit" : "under the limit"
        switch benchCase.start {
        case .empty: break
        case .loaded:
            BenchProgress.detail("\(benchCase.rawValue) \(condition): copying the data directory")
            try Self.copyDirectory(data.loaded, to: directory)
        case .withAggregate:
            guard let source = data.withAggregate else { throw SluiceError.internalError("no data directory with agg was prepared") }
            BenchProgress.detail("\(benchCase.rawValue) \(condition): copying the data directory")
            try Self.copyDirectory(source, to: directory)
        }
        let server = try ServeProcess(executable: executable, dataDirectory: directory, memoryLimit: memoryLimit, logPath: "\(data.root)/run.log")
        defer { server.stopAtOnce() }
        BenchProgress.detail("\(benchCase.rawValue) \(condition): starting the server")
        try server.waitUntilReady()
        if benchCase.start == .empty { _ = try server.psql("CREATE TABLE \(Self.bigDefinition)") }
        let idle = try server.peakResidentBytes()
        let isReset = server.resetPeakResidentBytes()

        BenchProgress.detail("\(benchCase.rawValue) \(condition): running")
        let start = ContinuousClock.now
        let answer = try server.psql(benchCase.statement(rows: rows, copyFile: data.copyFile))
        let seconds = (ContinuousClock.now - start).inSeconds
        let peak = try server.peakResidentBytes()
        guard answer == benchCase.answer(rows: rows) else {
            throw SluiceError(.internalError, "\(benchCase.rawValue) answered \"\(answer)\", not \"\(benchCase.answer(rows: rows))\"")
        }
        if let check = benchCase.check(rows: rows) {
            BenchProgress.detail("\(benchCase.rawValue) \(condition): checking")
            let result = try server.psql(check.query)
            guard result == check.answer else {
                throw SluiceError(.internalError, "after \(benchCase.rawValue), \(check.query) answered \"\(result)\", not \"\(check.answer)\"")
            }
        }
        return Measurement(seconds: seconds, idleBytes: idle, peakBytes: peak, includesStartup: !isReset)
    }

    /// `cp -a source destination`.
    static func copyDirectory(_ source: String, to destination: String) throws {
        let result = try LocalProcess.run(["cp", "-a", source, destination])
        guard result.status == 0 else { throw SluiceError(.ioError, "cannot copy \(source) to \(destination): \(result.errors)") }
    }

    /// The sizes of the regular files under `path`, added up.
    static func bytes(under path: String) -> Int {
        guard let files = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total = 0
        while files.nextObject() != nil {
            if let attributes = files.fileAttributes, attributes[.type] as? FileAttributeType == .typeRegular {
                total += (attributes[.size] as? NSNumber)?.intValue ?? 0
            }
        }
        return total
    }
}

/// A `sluice serve` for ``MemoryBenchmark`` in a process of its own: on a free loopback port,
/// without the broker, the Iceberg catalog and the dashboard, its output in a log file.
/// ``stopAtOnce()`` kills it by its PID (for a `defer`); ``stop()`` ends it cleanly.
final class ServeProcess {
    let process: Process
    let port: Int
    let logPath: String

    /// Starts `executable serve` on `dataDirectory` with `--memory-limit memoryLimit` (none
    /// when nil), writing its output to `logPath`.
    init(executable: String, dataDirectory: String, memoryLimit: Int?, logPath: String) throws {
        port = try LocalProcess.freeLoopbackPort()
        self.logPath = logPath
        guard FileManager.default.createFile(atPath: logPath, contents: nil), let log = FileHandle(forWritingAtPath: logPath) else {
            throw SluiceError(.ioError, "cannot create \(logPath)")
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["serve", "--listen", "127.0.0.1:\(port)", "--data-dir", dataDirectory, "--no-broker", "--no-catalog", "--no-dashboard"]
            + (memoryLimit.map { ["--memory-limit", String($0)] } ?? [])
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try? log.close()
    }

    /// What the server wrote to its log so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Polls with `SELECT 1` until the server answers; fails when it exits, or after `timeout`
    /// (recovering a large data directory takes a while).
    func waitUntilReady(timeout: Duration = .seconds(1800)) throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let probe = try LocalProcess.run(psqlArguments("SELECT 1"))
            if probe.status == 0, probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1" { return }
            guard process.isRunning else {
                throw SluiceError(.ioError, "sluice serve exited with status \(process.terminationStatus) while starting: \(log.suffix(2000))")
            }
            guard ContinuousClock.now < deadline else { throw SluiceError(.ioError, "sluice serve did not answer within \(timeout)") }
            usleep(20_000)
        }
    }

    /// Runs `command` through psql and returns what it printed, trimmed: a command tag, or
    /// rows unaligned without headers.
    func psql(_ command: String) throws -> String {
        let result = try LocalProcess.run(psqlArguments(command))
        guard result.status == 0 else {
            let exited = process.isRunning ? "" : "; the server exited with status \(process.terminationStatus): \(log.suffix(2000))"
            throw SluiceError(.ioError, "psql failed on \(command.prefix(100)): \(result.errors)\(exited)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func psqlArguments(_ command: String) -> [String] {
        ["psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", "root", "-d", "dev", "-c", command]
    }

    /// The process's peak resident set so far (`VmHWM`), in bytes.
    func peakResidentBytes() throws -> Int {
        let path = "/proc/\(process.processIdentifier)/status"
        let status = try String(contentsOfFile: path, encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kibibytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) })
        else { throw SluiceError(.ioError, "no VmHWM in \(path)") }
        return kibibytes << 10
    }

    /// Resets the peak resident set to the present one (writing 5 to `clear_refs`, Linux 4.0 on);
    /// false when the kernel does not let us.
    func resetPeakResidentBytes() -> Bool {
        let descriptor = open("/proc/\(process.processIdentifier)/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }

    /// Ends the server cleanly (SIGTERM: it writes its last checkpoint and exits); fails when it
    /// takes longer than `timeout` (then it is killed) or exits with an error.
    func stop(timeout: Duration = .seconds(600)) throws {
        guard process.isRunning else { throw SluiceError(.ioError, "sluice serve had exited: \(log.suffix(2000))") }
        process.terminate()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            stopAtOnce()
            throw SluiceError(.ioError, "sluice serve did not stop within \(timeout)")
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw SluiceError(.ioError, "sluice serve stopped with status \(process.terminationStatus): \(log.suffix(2000))")
        }
    }

    /// Kills the server by its PID if it still runs, and waits for it.
    func stopAtOnce() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
