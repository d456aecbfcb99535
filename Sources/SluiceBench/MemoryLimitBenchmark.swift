import Foundation
import SluiceCore
import SluicePGWire
import SluiceServer

/// The larger-than-memory part of `sluice bench checkpoint`: a datagen source through a view that
/// keeps every row and a GROUP BY, each run in a process of its own (so that its peak resident
/// set is its own): first with no limit, then under `--memory-limit` at a third of the state the
/// first run held. Prints each run's rate, the process's peak RSS (VmHWM) and what the state
/// store evicted and read back. The views' pages and the aggregate's groups count against the
/// limit.
package struct MemoryLimitBenchmark {
    package var rows: Int
    package var executable: String

    package init(rows: Int, executable: String) {
        self.rows = rows
        self.executable = executable
    }

    static let barrierMilliseconds = 250

    /// One child's figures.
    struct Figures {
        var seconds: Double
        var peakRSS: Int
        var stateBytes: Int
        var peakResident: Int
        var evicted: Int
        var loaded: Int
    }

    package func run() throws {
        report("  larger than memory: \(rows) datagen rows through a view of every row and a GROUP BY of \(rows / 20) groups, barrier every \(Self.barrierMilliseconds) ms, each run in its own process")
        let free = try child(memoryLimit: nil)
        report(String(format: "  no memory limit (state %.0f MiB)            %10.0f rows/s; peak RSS %.0f MiB",
                     Double(free.stateBytes) / 1_048_576, Double(rows) / free.seconds, Double(free.peakRSS) / 1_048_576))
        let limit = max(free.stateBytes / 3, 8 << 20)
        let limited = try child(memoryLimit: limit)
        report(String(format: "  --memory-limit %.0f MiB (state %.1fx the limit) %10.0f rows/s, %.2f of no limit; peak RSS %.0f MiB (%.2f of no limit); pages' peak %.0f MiB, %d pages evicted, %d read back",
                     Double(limit) / 1_048_576, Double(limited.stateBytes) / Double(limit), Double(rows) / limited.seconds, free.seconds / limited.seconds,
                     Double(limited.peakRSS) / 1_048_576, Double(limited.peakRSS) / Double(max(free.peakRSS, 1)),
                     Double(limited.peakResident) / 1_048_576, limited.evicted, limited.loaded))
    }

    private func child(memoryLimit: Int?) throws -> Figures {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["bench", "memory-child", "--rows", "\(rows)"] + (memoryLimit.map { ["--memory-limit", "\($0)"] } ?? [])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = output.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }) else {
            throw SluiceError.internalError("the memory-limit run failed: \(output)")
        }
        let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard fields.count == 6 else { throw SluiceError.internalError("the memory-limit run printed \(line)") }
        return Figures(
            seconds: fields[0], peakRSS: Int(fields[1]), stateBytes: Int(fields[2]), peakResident: Int(fields[3]), evicted: Int(fields[4]),
            loaded: Int(fields[5]))
    }

    /// The child: runs the pipeline in this process and prints `RESULT seconds peakRSS state
    /// peakResident evicted loaded`.
    package static func runChild(rows: Int, memoryLimit: Int?) async throws {
        MemoryTuning.apply(memoryLimit: memoryLimit)
        let path = try benchDirectory(named: "memory-limit")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try Database.withConnectors(dataDirectory: path, barrierIntervalMilliseconds: barrierMilliseconds, memoryLimit: memoryLimit)
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await session.execute(script: """
            CREATE SOURCE s (id bigint, name varchar, v bigint) WITH (connector = 'datagen', fields.id.kind = 'sequence',
              fields.id.end = '\(rows - 1)', fields.name.length = '16', fields.v.min = '0', fields.v.max = '1000',
              datagen.rows.per.second = '100000000')
            """)
        let start = ContinuousClock.now
        _ = try await session.execute(script: "CREATE MATERIALIZED VIEW every_row AS SELECT * FROM s")
        _ = try await session.execute(script: "CREATE MATERIALIZED VIEW groups AS SELECT id % \(rows / 20) AS k, count(*) AS n, sum(v) AS total FROM s GROUP BY id % \(rows / 20)")
        try await database.waitForSource(named: "s", toTake: rows)
        let seconds = (ContinuousClock.now - start).inSeconds
        let memory = database.streams.memoryStatus
        let state = database.streams.runtime.views.reduce(0) { $0 + $1.statistics.stateBytes.load(ordering: .relaxed) }
        database.stop()
        report("RESULT \(seconds) \(memory.processPeakBytes) \(state) \(memory.peakResidentBytes) \(memory.evictedPages) \(memory.loadedPages)")
    }
}
