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
///   stream, applied by key. The insert's own time is printed beside.
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
        let postgres = try PostgresReference.start(binaries: binaries, settings: ["wal_level=logical", "max_replication_slots=8", "max_wal_senders=8"] + (ProcessInfo.processInfo.environment["CDC_BENCH_SETTINGS"].map { $0.split(separator: " ").map(String.init) } ?? []))
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
            connection.close()
        }
        var medians: [String: Double] = [:]
        let labels = ["COPY TO": "COPY TO STDOUT", "upstream INSERT": "(the upstream INSERT)", "snapshot": "CDC snapshot → view",
                      "stream": "CDC stream → view"]
        for label in ["COPY TO", "snapshot", "upstream INSERT", "stream"] {
            let median = times[label]!.sorted()[runs / 2]
            medians[label] = median
            report(String(format: "  %-24@ %7.3f s  %12.0f rows/s", labels[label]! as NSString, median, Double(rows) / median))
        }
        if let copy = medians["COPY TO"], let snapshot = medians["snapshot"], let stream = medians["stream"] {
            report(String(format: "  CDC into a view at %.2fx COPY TO's rows/s from the snapshot, %.2fx from the stream", copy / snapshot, copy / stream))
        }
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
