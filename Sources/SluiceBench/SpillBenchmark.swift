import Foundation
import SluiceCore
import SluicePGWire
import SluiceServer

/// `sluice bench spill`: a GROUP BY, a sort and a join larger than a 256 MB query memory limit,
/// run in Sluice with the limit (they spill to disk) and without it (in memory), and a top-10
/// sort of as many rows (which needs no spilling), beside DuckDB
/// with one thread and the same memory limit (it spills too). Each query's median time and the
/// ratio DuckDB time / Sluice time; the answers are checked against DuckDB's.
package struct SpillBenchmark {
    package var rows: Int
    package var repetitions: Int

    package init(rows: Int, repetitions: Int) {
        self.rows = rows
        self.repetitions = repetitions
    }

    /// The queries, in the dialect both speak.
    func queries() -> [(name: String, sql: String)] {
        let groups = rows / 5
        return [
            ("group by (\(groups / 1_000_000)M groups)",
             "SELECT count(*), sum(c), max(c) FROM (SELECT g % \(groups) AS k, count(*) AS c FROM generate_series(1, \(rows)) AS s(g) GROUP BY 1) t"),
            // (The OFFSET makes it a whole sort, not a top-n one.)
            ("sort (\(rows / 1_000_000)M rows)", "SELECT g FROM generate_series(1, \(rows)) AS s(g) ORDER BY g % \(groups) DESC, g LIMIT 2 OFFSET \(rows - 2)"),
            ("top 10 of \(rows / 1_000_000)M rows", "SELECT g FROM generate_series(1, \(rows)) AS s(g) ORDER BY g % \(groups) DESC, g LIMIT 10"),
            ("join (\(rows / 2_500_000)M-row build side)",
             "SELECT count(*), sum(a) FROM generate_series(1, \(rows * 2 / 5)) AS x(a) JOIN generate_series(1, \(rows * 2 / 5)) AS y(b) ON a = b"),
        ]
    }

    package func run() async throws {
        let queries = queries()
        report("sluice bench spill: \(rows) generated rows, median of \(repetitions) runs per query")
        guard let duck = try DuckDBReference.figures(script: Self.duckScript, arguments: [String(repetitions)] + queries.map(\.sql)) else {
            throw SluiceError(.featureNotSupported, "sluice bench spill needs DuckDB (.venv, made by `make test`)")
        }
        let directory = try benchDirectory(named: "spill")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Database(dataDirectory: directory)
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        report("")
        report("  query                           sluice 256 MB (s)   sluice in memory (s)   duckdb 256 MB, 1 thread (s)   duckdb/sluice")
        for (index, query) in queries.enumerated() {
            var figures: [Double] = []
            var answer = ""
            for limit in ["256MB", "64GB"] {
                _ = try await session.execute(script: "SET query_memory_limit = '\(limit)'")
                var times: [Double] = []
                for _ in 0 ..< repetitions {
                    let clock = ContinuousClock.now
                    let result = try await session.execute(script: query.sql)
                    times.append((ContinuousClock.now - clock).inSeconds)
                    answer = result.chunks.flatMap(\.rows).map { $0.map(\.textForm).joined(separator: ",") }.joined(separator: ";")
                }
                figures.append(times.sorted()[times.count / 2])
            }
            let duckSeconds = duck["q\(index)"] ?? .nan
            let check = duck["q\(index).failed"] == 1 ? "  (DuckDB failed)" : (duck["q\(index).answer.\(answer)"] == 1 ? "" : "  (answer \(answer) differs from DuckDB's)")
            let name = query.name.padding(toLength: 30, withPad: " ", startingAt: 0)
            report(String(
                format: "  %@  %17.2f   %20.2f   %27.2f   %13.2f%@", name as NSString, figures[0], figures[1], duckSeconds,
                duckSeconds / figures[0], check as NSString))
        }
        database.stop()
    }

    /// Times each query (argv[2…]) with one thread under a 256 MB memory limit: `qN=seconds`
    /// and `qN.answer.<rows>=1` lines.
    static let duckScript = """
        import duckdb, sys, tempfile, time
        reps = int(sys.argv[1])
        con = duckdb.connect()
        con.execute("SET threads = 1")
        con.execute("SET memory_limit = '256MB'")
        con.execute(f"SET temp_directory = '{tempfile.mkdtemp()}'")
        for number, text in enumerate(sys.argv[2:]):
            times = []
            try:
                for _ in range(reps):
                    t = time.perf_counter(); rows = con.execute(text).fetchall(); times.append(time.perf_counter() - t)
            except duckdb.Error as error:
                print(f"q{number}.failed=1")
                print(f"duckdb failed q{number}: {str(error).splitlines()[0]}", file=sys.stderr)
                continue
            print(f"q{number}={sorted(times)[len(times) // 2]}")
            print(f"q{number}.answer." + ";".join(",".join(str(v) for v in row) for row in rows) + "=1")
        """
}
