import Foundation
import SluiceCore
import SluicePGWire
import SluiceServer

/// `sluice bench checkpoint`: what durability costs and how fast it comes back.
/// - **Writes.** N rows inserted in chunks into a table feeding a view, three ways: no data
///   directory (memory only), with the write-ahead log and `synchronous_commit = off`, and with
///   an fsync before every acknowledgement; the last two as a ratio of the first.
/// - **Single-row statements.** Eight sessions running one-row INSERTs at once, with and without
///   the fsync: group commit lets one fsync serve the statements that came in meanwhile.
/// - **Views' state.** ``StateCheckpointBenchmark``: throughput with a checkpoint at every
///   barrier against none, bytes written against bytes changed, recovery of the views' state.
/// - **Checkpoint and recovery.** A table of about `stateBytes` (an id and a 200-byte text per
///   row) is checkpointed (bytes written, seconds), a tenth more rows are inserted and
///   checkpointed again (the delta: bytes written against bytes inserted), another tenth is
///   written to the log only, and a new database is opened on the directory: the time until it
///   serves SQL, and until its first full scan.
package struct CheckpointBenchmark {
    package var rows: Int
    package var stateBytes: Int
    /// Nexmark events through views, for the views' state checkpoints (``StateCheckpointBenchmark``).
    package var nexmarkEvents: Int

    package init(rows: Int, stateBytes: Int, nexmarkEvents: Int) {
        self.rows = rows
        self.stateBytes = stateBytes
        self.nexmarkEvents = nexmarkEvents
    }

    package func run() async throws {
        report("sluice bench checkpoint: \(rows) rows through a table and a view; \(stateBytes >> 20) MiB of table state recovered")
        let memory = try await insertRate(durable: nil)
        let relaxed = try await insertRate(durable: false)
        let synchronous = try await insertRate(durable: true)
        for (label, rate) in [("memory only", memory), ("log, synchronous_commit = off", relaxed), ("log, fsync per write", synchronous)] {
            report(String(format: "  inserts %-31@ %12.0f rows/s  %5.2f of memory only", label as NSString, rate, rate / memory))
        }
        for synchronousCommit in [false, true] {
            let (statements, seconds) = try await singleRowStatements(synchronousCommit: synchronousCommit)
            report(String(format: "  one-row INSERTs, 8 sessions, synchronous_commit = %@  %8.0f statements/s",
                         synchronousCommit ? "on " : "off", Double(statements) / seconds))
        }
        try await checkpointAndRecovery()
        if nexmarkEvents > 0 { try await StateCheckpointBenchmark(events: nexmarkEvents).run() }
    }

    /// Rows a second through `Database.insert` into `t` (feeding a GROUP BY view), until FLUSH.
    private func insertRate(durable: Bool?) async throws -> Double {
        let path = try benchDirectory(named: "checkpoint")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try Database(dataDirectory: durable == nil ? nil : path)
        defer {
            // (Checkpoints handed to the writer finish before the directory goes.)
            database.stop()
            database.streams.waitForStateCheckpoints()
        }
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await session.execute(script: "CREATE TABLE t (id bigint, k bigint, v bigint)")
        _ = try await session.execute(script: "CREATE MATERIALIZED VIEW agg AS \(MaterializedViewBenchmark.viewQuery)")
        guard let table = database.catalog.relation(named: "t") else { throw SluiceError.internalError("no table") }
        let start = ContinuousClock.now
        var next = 0
        while next < rows {
            let end = min(rows, next + Chunk.preferredSize)
            try database.tables.insert([MaterializedViewBenchmark.chunk(next ..< end, keys: 1000)], into: table, synchronousCommit: durable ?? false)
            next = end
        }
        await database.flush()
        return Double(rows) / (ContinuousClock.now - start).inSeconds
    }

    private func singleRowStatements(synchronousCommit: Bool) async throws -> (Int, Double) {
        let path = try benchDirectory(named: "checkpoint")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let database = try Database(dataDirectory: path)
        defer { database.stop() }
        let setup = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await setup.execute(script: "CREATE TABLE single (id bigint PRIMARY KEY, v bigint)")
        let perSession = 2000
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sessionIndex in 0 ..< 8 {
                group.addTask {
                    let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
                    if !synchronousCommit { _ = try await session.execute(script: "SET synchronous_commit = off") }
                    for row in 0 ..< perSession {
                        _ = try await session.execute(script: "INSERT INTO single VALUES (\(sessionIndex * perSession + row), \(row))")
                    }
                }
            }
            try await group.waitForAll()
        }
        return (8 * perSession, (ContinuousClock.now - start).inSeconds)
    }

    private func checkpointAndRecovery() async throws {
        let path = try benchDirectory(named: "checkpoint")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let padding = String(repeating: "x", count: 200)
        let rowBytes = 8 + padding.utf8.count + 4
        let stateRows = max(1, stateBytes / rowBytes)
        let logRows = stateRows / 10
        do {
            // No barrier but the CHECKPOINTs: the first writes the table whole, the second its delta.
            let database = try Database(dataDirectory: path, barrierIntervalMilliseconds: 3_600_000)
            let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
            _ = try await session.execute(script: "CREATE TABLE big (id bigint, note varchar)")
            guard let table = database.catalog.relation(named: "big") else { throw SluiceError.internalError("no table") }
            func rowsChunk(_ range: Range<Int>) -> Chunk {
                Chunk(columns: [
                    Column(type: .int64, storage: .int64(range.map { Int64($0) })),
                    Column(type: .varchar, values: range.map { _ in .string(padding) }),
                ])
            }
            var next = 0
            func insert(upTo last: Int) throws {
                while next < last {
                    let end = min(last, next + Chunk.preferredSize)
                    try database.tables.insert([rowsChunk(next ..< end)], into: table, synchronousCommit: false)
                    next = end
                }
            }
            for (label, last) in [("checkpoint", stateRows), ("delta", stateRows + logRows)] {
                let first = next
                try insert(upTo: last)
                let checkpointStart = ContinuousClock.now
                try await database.checkpoint()
                let checkpointSeconds = (ContinuousClock.now - checkpointStart).inSeconds
                let written = database.tables.journal?.history.last?.bytesWritten ?? 0
                report(String(format: "  %@ %7.2f s  %8.1f MiB written  %7.1f MiB/s  (%d rows, %.2f bytes written per byte inserted)",
                             label.padding(toLength: 12, withPad: " ", startingAt: 0) as NSString, checkpointSeconds, Double(written) / 1_048_576, Double(written) / 1_048_576 / checkpointSeconds,
                             last - first, Double(written) / Double((last - first) * rowBytes)))
            }
            try insert(upTo: stateRows + 2 * logRows)
            try database.tables.journal?.makeDurable(upTo: database.tables.journal?.log.appendedBytes ?? 0)
            // A crash: no clean stop.
            database.stop()
        }
        let recoveryStart = ContinuousClock.now
        let recovered = try Database(dataDirectory: path)
        let recoverySeconds = (ContinuousClock.now - recoveryStart).inSeconds
        let session = SQLSession(database: recovered, user: "root", databaseName: "dev", parameters: [:])
        // The table's pages are read from the run files at their first use: this query.
        let firstQueryStart = ContinuousClock.now
        let count = try await session.execute(script: "SELECT count(*), max(id) FROM big").chunks.first?.columns[0].value(at: 0).textForm ?? "?"
        let firstQuerySeconds = (ContinuousClock.now - firstQueryStart).inSeconds
        recovered.stop()
        report(String(format: "  recovery     %7.2f s until SQL is served: %d MiB checkpointed + %d rows from the log (%@ rows; %@)",
                     recoverySeconds, ((stateRows + logRows) * rowBytes) >> 20, logRows, count as NSString,
                     (recovered.recovery?.summary ?? "") as NSString))
        report(String(format: "  first scan   %7.2f s after that (the table's pages read from the checkpoint's run files); %.2f s from start to the whole table scanned",
                     firstQuerySeconds, recoverySeconds + firstQuerySeconds))
    }
}
