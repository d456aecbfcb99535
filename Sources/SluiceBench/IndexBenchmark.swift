import Foundation
import SluiceCore
import SluiceServer

/// `sluice bench index`: a table of N rows `(id bigint PRIMARY KEY, k bigint, v bigint)` with `k`
/// a permutation of the ids. Times building `CREATE INDEX ON t (k)`; point lookups
/// `SELECT v FROM t WHERE k = …` and 1,000-row range lookups through the SQL path, with the
/// index and without it (a scan); and the cost the index adds to writes (chunks of 1,000 rows
/// inserted through the table's write path); then the same for an index on a materialized view's
/// aggregate column. DuckDB runs the table's lookups with its ART index on `k`, one thread.
/// Lookup times are medians.
package struct IndexBenchmark {
    package var rows: Int
    package var lookups: Int

    package init(rows: Int, lookups: Int) {
        self.rows = rows
        self.lookups = lookups
    }

    /// `k` of row `i`: a permutation of `0 ..< rows` (the multiplier is prime to any row count
    /// not a multiple of it).
    static func key(_ i: Int, rows: Int) -> Int64 { Int64((i &* 7_919) % rows) }

    package func run() async throws {
        let database = try Database(dataDirectory: nil)
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await session.execute(script: "CREATE TABLE t (id bigint PRIMARY KEY, k bigint, v bigint)")
        guard let table = database.catalog.relation(named: "t") else { throw SluiceError.internalError("benchmark table missing") }
        precondition(rows % 7_919 != 0, "the row count must not be a multiple of 7919")
        // The table's write path: logged (with no data directory, not), indexed, sent to views.
        let write = { (rows: Chunk) throws(SluiceError) -> Void in _ = try database.tables.insert([rows], into: table, synchronousCommit: false) }
        var start = 0
        while start < rows {
            let end = min(rows, start + Chunk.preferredSize)
            try write(chunk(start ..< end))
            start = end
        }
        report("sluice bench index: \(rows) rows (id bigint PRIMARY KEY, k bigint: a permutation of the ids, v bigint), \(lookups) lookups")
        let probes = (0 ..< lookups).map { Int64(($0 &* 104_729) % rows) }

        let scanPoint = try await median(session, Array(probes.prefix(5))) { "SELECT v FROM t WHERE k = \($0)" }
        let scanRange = try await median(session, Array(probes.prefix(5))) { "SELECT count(*), sum(v) FROM t WHERE k >= \($0) AND k < \($0 + 1000)" }
        let writesBefore = try writeSeconds(write, from: rows)

        let buildStart = ContinuousClock.now
        _ = try await session.execute(script: "CREATE INDEX t_k ON t (k)")
        let buildSeconds = (ContinuousClock.now - buildStart).inSeconds
        let point = try await median(session, probes) { "SELECT v FROM t WHERE k = \($0)" }
        let range = try await median(session, probes) { "SELECT count(*), sum(v) FROM t WHERE k >= \($0) AND k < \($0 + 1000)" }
        let writesAfter = try writeSeconds(write, from: rows + Self.writtenRows)

        report(String(format: "  CREATE INDEX (build):             %8.3f s  %12.0f rows/s", buildSeconds, Double(rows) / buildSeconds))
        report(String(format: "  point lookup, index:              %8.1f µs  (scan: %.1f ms, %.0fx)", point * 1e6, scanPoint * 1e3, scanPoint / point))
        report(String(format: "  1,000-row range lookup, index:    %8.1f µs  (scan: %.1f ms, %.0fx)", range * 1e6, scanRange * 1e3, scanRange / range))
        report(String(
            format: "  insert %d rows, index kept:   %8.3f s  (without the index: %.3f s, %.2fx)", Self.writtenRows, writesAfter, writesBefore,
            writesAfter / writesBefore))

        try await viewIndex(session, write: write, probes: probes)

        if let duck = try duckDBFigures(probes: probes) {
            if let duckPoint = duck["point"], let duckRange = duck["range"], let duckBuild = duck["build"] {
                report(String(format: "  duckdb CREATE INDEX (ART):        %8.3f s", duckBuild))
                report(String(format: "  duckdb point lookup, ART index:   %8.1f µs  sluice/duckdb = %.2f", duckPoint * 1e6, duckPoint / point))
                report(String(format: "  duckdb 1,000-row range lookup:    %8.1f µs  sluice/duckdb = %.2f", duckRange * 1e6, duckRange / range))
            }
        }
    }

    /// An index on a materialized view (`SELECT id % 200000 AS g, count(*) AS n, sum(v) AS s
    /// FROM t GROUP BY 1`, 200,000 groups): range lookups on `s` through the index and through a
    /// scan of the view, and what keeping the index adds to the view's epochs (inserts of
    /// ``writtenRows`` rows and the FLUSH that waits for the view).
    private func viewIndex(_ session: SQLSession, write: (Chunk) throws(SluiceError) -> Void, probes: [Int64]) async throws {
        _ = try await session.execute(script: "CREATE MATERIALIZED VIEW mv AS SELECT id % 200000 AS g, count(*) AS n, sum(v) AS s FROM t GROUP BY 1")
        _ = try await session.execute(script: "FLUSH")
        // Sums are about 500,000 per row of the group: probes spread over their range.
        let perGroup = Int64(max(rows / 200_000, 1))
        let viewProbes = probes.map { $0 % 1_000_003 * perGroup }
        let lookup = { (p: Int64) in "SELECT count(*), min(g) FROM mv WHERE s >= \(p) AND s < \(p + 20000)" }
        let scan = try await median(session, Array(viewProbes.prefix(5)), lookup)
        let before = try await flushedWriteSeconds(session, write, from: rows + 2 * Self.writtenRows)
        let buildStart = ContinuousClock.now
        _ = try await session.execute(script: "CREATE INDEX mv_s ON mv (s)")
        let buildSeconds = (ContinuousClock.now - buildStart).inSeconds
        let indexed = try await median(session, viewProbes, lookup)
        let after = try await flushedWriteSeconds(session, write, from: rows + 3 * Self.writtenRows)
        report(String(format: "  view of 200,000 groups, CREATE INDEX on its sum: %.3f s", buildSeconds))
        report(String(format: "  view range lookup, index:         %8.1f µs  (scan: %.1f ms, %.0fx)", indexed * 1e6, scan * 1e3, scan / indexed))
        report(String(
            format: "  insert %d rows + FLUSH, view index kept: %.3f s  (without the index: %.3f s, %.2fx)", Self.writtenRows, after, before,
            after / before))
    }

    /// ``writeSeconds(_:from:)`` and then the FLUSH that waits for the views to take the rows.
    private func flushedWriteSeconds(_ session: SQLSession, _ write: (Chunk) throws(SluiceError) -> Void, from first: Int) async throws -> Double {
        let clock = ContinuousClock.now
        _ = try writeSeconds(write, from: first)
        _ = try await session.execute(script: "FLUSH")
        return (ContinuousClock.now - clock).inSeconds
    }

    /// Rows written by each pass of ``writeSeconds(_:from:)``.
    static let writtenRows = 100_000

    /// Seconds to insert ``writtenRows`` new rows (ids from `first`) in chunks of 1,000 through
    /// the table's write path (no data directory, so no log).
    private func writeSeconds(_ write: (Chunk) throws(SluiceError) -> Void, from first: Int) throws -> Double {
        let clock = ContinuousClock.now
        var start = first
        while start < first + Self.writtenRows {
            let end = start + 1_000
            try write(chunk(start ..< end))
            start = end
        }
        return (ContinuousClock.now - clock).inSeconds
    }

    /// The median seconds of `query(probe)` over `probes`, each run through the SQL path (parse,
    /// bind, optimize, execute).
    private func median(_ session: SQLSession, _ probes: [Int64], _ query: (Int64) -> String) async throws -> Double {
        var times: [Double] = []
        times.reserveCapacity(probes.count)
        for probe in probes {
            let text = query(probe)
            let clock = ContinuousClock.now
            _ = try await session.execute(script: text)
            times.append((ContinuousClock.now - clock).inSeconds)
        }
        return times.sorted()[times.count / 2]
    }

    /// Rows `range`: id, k (``key(_:rows:)``, past `rows` the id itself) and v.
    private func chunk(_ range: Range<Int>) -> Chunk {
        let ids = range.map { Int64($0) }
        let keys = range.map { $0 < rows ? Self.key($0, rows: rows) : Int64($0) }
        let values = range.map { Int64($0 &* 31 % 1_000_003) }
        return Chunk(columns: [
            Column(type: .int64, storage: .int64(ids)), Column(type: .int64, storage: .int64(keys)), Column(type: .int64, storage: .int64(values)),
        ])
    }

    /// DuckDB (one thread) over the same rows: the index build, and median point and range lookups.
    private func duckDBFigures(probes: [Int64]) throws -> [String: Double]? {
        let script = """
            import duckdb, time, sys
            n = int(sys.argv[1]); probes = [int(p) for p in sys.argv[2].split(",")]
            con = duckdb.connect()
            con.execute("SET threads = 1")
            con.execute(f"CREATE TABLE t AS SELECT i AS id, (i * 7919) % {n} AS k, (i * 31) % 1000003 AS v FROM range({n}) r(i)")
            t = time.perf_counter(); con.execute("CREATE INDEX t_k ON t (k)"); print(f"build={time.perf_counter() - t}")
            for label, q in (("point", "SELECT v FROM t WHERE k = {}"), ("range", "SELECT count(*), sum(v) FROM t WHERE k >= {0} AND k < {0} + 1000")):
                times = []
                for p in probes:
                    text = q.format(p)
                    t = time.perf_counter(); con.execute(text).fetchall(); times.append(time.perf_counter() - t)
                print(f"{label}={sorted(times)[len(times) // 2]}")
            """
        return try DuckDBReference.figures(script: script, arguments: [String(rows), probes.map(String.init).joined(separator: ",")])
    }
}
