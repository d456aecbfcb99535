import Foundation
import SluiceCore
import SluicePGWire
import SluiceServer

/// `sluice bench tpch`: TPC-H's 22 queries on the same data in Sluice and in DuckDB with one
/// thread, each query's median time, the ratio DuckDB time / Sluice time (1 is DuckDB's speed,
/// 0.5 half of it) and the geometric mean of the ratios.
///
/// DuckDB's `tpch` extension (the test environment's duckdb-ext-tpch) generates the data at the
/// scale factor asked, writes each table as `|`-separated text with its column types, writes the
/// queries' text, and times them. Sluice loads the text in-process, a chunk of columns at a time
/// (the text cast to each column's type by the cast kernels), and runs each query through the SQL
/// path (parse, bind, optimize, execute). Each Sluice result's row count is checked against
/// DuckDB's.
package struct TPCHBenchmark {
    package var scaleFactor: Double
    package var repetitions: Int
    /// The queries to run (all 22 when empty).
    package var queries: [Int]

    package init(scaleFactor: Double, repetitions: Int, queries: [Int] = []) {
        self.scaleFactor = scaleFactor
        self.repetitions = repetitions
        self.queries = queries
    }

    package func run() async throws {
        let directory = try benchDirectory(named: "tpch")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        report("sluice bench tpch: scale factor \(scaleFactor), median of \(repetitions) runs per query")
        let generateStart = ContinuousClock.now
        guard let duck = try DuckDBReference.figures(script: Self.duckScript, arguments: [String(scaleFactor), directory, String(repetitions)]) else {
            throw SluiceError(.featureNotSupported, "sluice bench tpch needs DuckDB and its tpch extension (.venv, made by `make test`)")
        }
        report(String(format: "  data and DuckDB's runs: %.1f s", (ContinuousClock.now - generateStart).inSeconds))

        let database = try Database(dataDirectory: nil)
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        let loadStart = ContinuousClock.now
        var loadedRows = 0
        let schema = try String(contentsOfFile: directory + "/schema.txt", encoding: .utf8)
        for line in schema.split(separator: "\n") {
            let parts = line.split(separator: "|", maxSplits: 1)
            let table = String(parts[0])
            _ = try await session.execute(script: "CREATE TABLE \(table) (\(parts[1]))")
            guard let relation = database.catalog.relation(named: table) else { throw SluiceError.internalError("benchmark table \(table) missing") }
            loadedRows += try database.loadDelimitedText(path: "\(directory)/\(table).tbl", into: relation)
        }
        let loadSeconds = (ContinuousClock.now - loadStart).inSeconds
        report(String(format: "  sluice load (in-process, from text): %d rows in %.1f s", loadedRows, loadSeconds))
        report("")
        report("  query   sluice (s)   duckdb 1 thread (s)   duckdb/sluice")

        var ratios: [Double] = []
        var sluiceTotal = 0.0
        var duckTotal = 0.0
        for number in 1 ... 22 where queries.isEmpty || queries.contains(number) {
            let text = try String(contentsOfFile: "\(directory)/q\(number).sql", encoding: .utf8)
            var times: [Double] = []
            var rows = 0
            var failure: String?
            for _ in 0 ..< repetitions {
                let clock = ContinuousClock.now
                do {
                    rows = try await session.execute(script: text).rowCount
                } catch let error as SluiceError {
                    failure = error.message
                    break
                }
                times.append((ContinuousClock.now - clock).inSeconds)
            }
            let duckSeconds = duck["q\(number)"] ?? .nan
            if let failure {
                report(String(format: "  q%-5d  failed: %@", number, failure as NSString))
                continue
            }
            let seconds = times.sorted()[times.count / 2]
            let ratio = duckSeconds / seconds
            ratios.append(ratio)
            sluiceTotal += seconds
            duckTotal += duckSeconds
            let expectedRows = Int(duck["q\(number).rows"] ?? -1)
            let check = rows == expectedRows ? "" : "  (\(rows) rows, DuckDB \(expectedRows))"
            report(String(format: "  q%-5d  %10.3f   %19.3f   %13.2f%@", number, seconds, duckSeconds, ratio, check as NSString))
        }
        let geometricMean = exp(ratios.reduce(0) { $0 + log($1) } / Double(max(ratios.count, 1)))
        report(String(format: "  total   %10.3f   %19.3f", sluiceTotal, duckTotal))
        report(String(format: "  %d of %d queries completed; geometric mean of duckdb/sluice: %.3f", ratios.count, queries.isEmpty ? 22 : queries.count, geometricMean))
    }

    /// Generates the data, writes it and the queries under argv[2], and times each query with
    /// one thread: `qN=seconds` and `qN.rows=count` lines.
    static let duckScript = """
        import duckdb, duckdb_ext, os, sys, time
        sf, out, reps = float(sys.argv[1]), sys.argv[2], int(sys.argv[3])
        con = duckdb.connect(config={"extension_directory": os.path.join(list(duckdb_ext.__path__)[0], "extensions")})
        con.execute("LOAD tpch")
        con.execute(f"CALL dbgen(sf={sf})")
        with open(os.path.join(out, "schema.txt"), "w") as schema:
            for (table,) in con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall():
                columns = con.execute("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position", [table]).fetchall()
                schema.write(table + "|" + ", ".join(f"{c} {t.replace('DECIMAL', 'NUMERIC')}" for c, t in columns) + "\\n")
                con.execute(f"COPY {table} TO '{os.path.join(out, table + '.tbl')}' (HEADER false, DELIMITER '|', QUOTE '', ESCAPE '')")
        con.execute("SET threads = 1")
        for number, text in con.execute("SELECT query_nr, query FROM tpch_queries() ORDER BY 1").fetchall():
            with open(os.path.join(out, f"q{number}.sql"), "w") as f:
                f.write(text)
            times = []
            for _ in range(reps):
                t = time.perf_counter(); rows = con.execute(text).fetchall(); times.append(time.perf_counter() - t)
            print(f"q{number}={sorted(times)[len(times) // 2]}")
            print(f"q{number}.rows={len(rows)}")
        """
}
