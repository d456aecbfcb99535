import Foundation
import SluiceCore
import SluicePostgresClient
import SluiceServer

/// `sluice bench cdc`: rows/s from a PostgreSQL table through CDC (`connector =
/// 'postgres-cdc'`, `CREATE TABLE … FROM pg TABLE …`) into a materialized view, beside
/// `COPY … TO STDOUT` of the same rows from PostgreSQL, the ceiling of reading them out.
/// PostgreSQL (started here, `wal_level = logical`, fsync on) holds N rows of the balloon game's
/// shape; two ways in are timed:
/// - **snapshot**: from CREATE TABLE until the view holds the N rows PostgreSQL already had
///   (the slot's exported snapshot, copied);
/// - **stream**: from the commit of an `INSERT … SELECT` of N more rows in PostgreSQL (one
///   transaction) until the view holds them too: PostgreSQL's decoding of the WAL, the pgoutput
///   stream, applied by key. The insert's own time is printed beside, and the stream's ceiling:
///   N more rows inserted again, with CDC's table dropped, and timed from the commit until the
///   walsender has sent them to a client of the benchmark's that only counts them.
/// Goal: ≥ 0.5× COPY TO's rows/s.
package struct CDCBenchmark {
    package var rows: Int
    package var runs: Int

    package init(rows: Int, runs: Int) {
        self.rows = rows
        self.runs = max(1, runs)
    }

    private static let table = """
        (id bigint PRIMARY KEY, player text, balloon_color text, score integer, page_id integer, favorite_color_bonus boolean, event_ts timestamptz)
        """
    private static let fill = """
        SELECT g, 'player-' || (g % 1000), (ARRAY['red', 'blue', 'green', 'yellow'])[1 + g % 4], (g % 97)::int, (g % 10)::int, g % 3 = 0,
          timestamptz '2024-01-01 00:00:00+00' + g * interval '1 millisecond' FROM generate_series
        """

    package func run() async throws {
        report("sluice bench cdc: \(rows) rows of a PostgreSQL table through CDC into a view, beside COPY TO STDOUT, medians of \(runs) runs")
        guard let binaries = PostgresReference.binaryDirectory() else {
            throw SluiceError(.featureNotSupported, "sluice bench cdc needs PostgreSQL's server (the postgresql package)")
        }
        let postgres = try PostgresReference.start(binaries: binaries, settings: ["wal_level=logical", "max_replication_slots=8", "max_wal_senders=8"] + (ProcessInfo.processInfo.environment["CDC_BENCH_SETTINGS"].map { $0.split(separator: " ").map(String.init) } ?? []), progress: BenchProgress.detail)
        defer { postgres.stop() }
        let settings = postgres.settings()
        var times: [String: [Double]] = [:]
        for run in 0 ..< runs {
            let connection = try PostgresConnection(settings)
            try connection.execute("DROP TABLE IF EXISTS balloon; CREATE TABLE balloon \(Self.table)")
            try connection.execute("INSERT INTO balloon \(Self.fill)(1, \(rows)) AS g")
            try connection.execute("VACUUM ANALYZE balloon")
            try connection.execute("CHECKPOINT")
            // COPY TO: the same rows out of PostgreSQL, as text.
            var bytes = 0
            let copyStart = ContinuousClock.now
            let copied = try connection.copyOut("COPY balloon TO STDOUT") { (row: UnsafeRawBufferPointer) throws(SluiceError) in bytes += row.count }
            times["COPY TO", default: []].append((ContinuousClock.now - copyStart).inSeconds)
            guard copied == rows else { throw SluiceError(.internalError, "COPY TO sent \(copied) rows, not \(rows)") }

            let (database, session, directory) = try await IcebergSinkBenchmark.open(named: "cdc-\(run)")
            defer {
                database.stop()
                try? FileManager.default.removeItem(atPath: directory)
            }
            _ = try await session.execute(script: """
                CREATE SOURCE pg WITH (connector = 'postgres-cdc', hostname = '127.0.0.1', port = '\(postgres.port)', username = 'root',
                  database.name = 'dev', slot.name = 'bench_\(run)', publication.name = 'bench_\(run)')
                """)
            let snapshotStart = ContinuousClock.now
            _ = try await session.execute(script: """
                CREATE TABLE balloon (id bigint PRIMARY KEY, player varchar, balloon_color varchar, score int, page_id int,
                  favorite_color_bonus boolean, event_ts timestamptz) FROM pg TABLE 'public.balloon';
                CREATE MATERIALIZED VIEW scores AS SELECT balloon_color, count(*) AS n, sum(score) AS total FROM balloon GROUP BY balloon_color
                """)
            try await database.waitForSource(named: "balloon", toTake: rows)
            times["snapshot", default: []].append((ContinuousClock.now - snapshotStart).inSeconds)
            try await check(session, rows: rows)

            // The stream is timed from the upstream commit: PostgreSQL's own insert is not CDC's work.
            let insertStart = ContinuousClock.now
            try connection.execute("INSERT INTO balloon \(Self.fill)(\(rows + 1), \(2 * rows)) AS g")
            let streamStart = ContinuousClock.now
            times["upstream INSERT", default: []].append((streamStart - insertStart).inSeconds)
            try await database.waitForSource(named: "balloon", toTake: 2 * rows)
            times["stream", default: []].append((ContinuousClock.now - streamStart).inSeconds)
            try await check(session, rows: 2 * rows)
            try await session.execute(script: "DROP MATERIALIZED VIEW scores; DROP TABLE balloon; DROP SOURCE pg")
            times["drain", default: []].append(try drain(postgres, connection, run: run))
            connection.close()
        }
        var medians: [String: Double] = [:]
        let labels = ["COPY TO": "COPY TO STDOUT", "upstream INSERT": "(the upstream INSERT)", "snapshot": "CDC snapshot → view",
                      "stream": "CDC stream → view", "drain": "(the stream, nothing applied)"]
        for label in ["COPY TO", "snapshot", "upstream INSERT", "stream", "drain"] {
            let median = times[label]!.sorted()[runs / 2]
            medians[label] = median
            report(String(format: "  %-24@ %7.3f s  %12.0f rows/s", labels[label]! as NSString, median, Double(rows) / median))
        }
        if let copy = medians["COPY TO"], let snapshot = medians["snapshot"], let stream = medians["stream"] {
            report(String(format: "  CDC into a view at %.2fx COPY TO's rows/s from the snapshot, %.2fx from the stream", copy / snapshot, copy / stream))
        }
        if let drain = medians["drain"], let stream = medians["stream"] {
            report(String(format: "  the stream into a view at %.2fx the rows/s of PostgreSQL's walsender sending it to a client that applies nothing", drain / stream))
        }
    }

    /// Seconds from the commit of an `INSERT … SELECT` of N more rows until PostgreSQL's pgoutput
    /// stream (protocol 1, as CDC asks for it) has carried them all to a client that only counts
    /// them: the stream's own ceiling, the walsender's decoding and sending, with CDC's slot gone.
    private func drain(_ postgres: PostgresReference, _ connection: PostgresConnection, run: Int) throws -> Double {
        try connection.execute("DROP PUBLICATION IF EXISTS bench_drain; CREATE PUBLICATION bench_drain FOR TABLE balloon")
        var settings = postgres.settings()
        settings.replication = true
        let replication = try PostgresConnection(settings)
        defer { replication.close() }
        try replication.execute("CREATE_REPLICATION_SLOT bench_drain_\(run) TEMPORARY LOGICAL pgoutput (SNAPSHOT 'nothing')")
        try replication.startStreaming(
            "START_REPLICATION SLOT bench_drain_\(run) LOGICAL 0/0 (proto_version '1', publication_names 'bench_drain')")
        try connection.execute("INSERT INTO balloon \(Self.fill)(\(2 * rows + 1), \(3 * rows)) AS g")
        let start = ContinuousClock.now
        var inserts = 0
        var committed = false
        // No standby status: the drain is over well inside wal_sender_timeout, and sending one
        // each second changed nothing.
        while !committed {
            let outcome = try replication.receive(timeout: .seconds(60)) { (message: UnsafeRawBufferPointer) throws(SluiceError) in
                // XLogData: 'w', three LSNs and a time, then the pgoutput message ('I' insert, 'C' commit).
                guard message.count > 25, message[0] == UInt8(ascii: "w") else { return }
                switch message[25] {
                case UInt8(ascii: "I"): inserts += 1
                case UInt8(ascii: "C"): committed = inserts > 0
                default: break
                }
            }
            if outcome != .message && outcome != .idle { throw SluiceError(.internalError, "PostgreSQL ended the replication stream") }
            if outcome == .idle { throw SluiceError(.internalError, "the replication stream sent nothing for a minute") }
        }
        let seconds = (ContinuousClock.now - start).inSeconds
        guard inserts == rows else { throw SluiceError(.internalError, "the stream carried \(inserts) inserts, not \(rows)") }
        return seconds
    }

    /// The view counts `rows` rows (the check that the figures are of the whole work).
    private func check(_ session: SQLSession, rows: Int) async throws {
        let result = try await session.execute(script: "SELECT sum(n)::bigint FROM scores")
        let counted = result.chunks.first.map { $0.columns[0].value(at: 0) }
        guard case .int64(let n)? = counted, n == rows else {
            throw SluiceError(.internalError, "the view counts \(String(describing: counted)) rows, not \(rows)")
        }
    }
}
