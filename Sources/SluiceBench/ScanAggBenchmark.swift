import Foundation
import SluiceCore
import SluicePGWire
import SluiceServer

/// `sluice bench scan-agg`: N rows (a bigint key with 1,000 distinct values, a bigint value, a
/// short string) in a table; times `SELECT k, count(*), sum(v), min(v), max(v) FROM t GROUP BY k`
/// and a filtered `count(*)` through the SQL path (parse, bind, execute), and the same data and
/// queries in DuckDB with one and two threads. Times are medians of seven runs.
package struct ScanAggBenchmark {
    package var rows: Int
    package var compareWithDuckDB: Bool

    package init(rows: Int, compareWithDuckDB: Bool) {
        self.rows = rows
        self.compareWithDuckDB = compareWithDuckDB
    }

    /// Each query runs this many times; the median is reported (this machine's timings vary by
    /// a third from run to run).
    static let repetitions = 7

    static let groupQuery = "SELECT k, count(*), sum(v), min(v), max(v) FROM t GROUP BY k"
    static let filterQuery = "SELECT count(*) FROM t WHERE v > 500000"

    package func run() async throws {
        let database = try Database(dataDirectory: nil)
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await session.execute(script: "CREATE TABLE t (k bigint, v bigint, s varchar)")
        let loadStart = ContinuousClock.now
        guard let table = database.catalog.relation(named: "t"), let store = database.store(for: table.id) else {
            throw SluiceError.internalError("benchmark table missing")
        }
        var start = 0
        while start < rows {
            let end = min(rows, start + Chunk.preferredSize)
            try store.insert(Self.chunk(start ..< end))
            start = end
        }
        let loadSeconds = (ContinuousClock.now - loadStart).inSeconds
        report("sluice bench scan-agg: \(rows) rows (k: 1,000 distinct bigint keys, v: bigint, s: short text)")
        report(String(format: "  load (in-process, columnar):      %8.3f s", loadSeconds))

        var ours: [String: Double] = [:]
        for (label, query) in [("group-by", Self.groupQuery), ("filtered count", Self.filterQuery)] {
            var times: [Double] = []
            var resultRows = 0
            for _ in 0 ..< Self.repetitions {
                let clock = ContinuousClock.now
                let result = try await session.execute(script: query)
                times.append((ContinuousClock.now - clock).inSeconds)
                resultRows = result.rowCount
            }
            let best = times.sorted()[times.count / 2]
            ours[label] = Double(rows) / best
            report(String(format: "  sluice %-16@ %8.3f s  %12.0f rows/s  (%d result rows)", label as NSString, best, Double(rows) / best, resultRows))
        }
        guard compareWithDuckDB else { return }
        let duck = try duckDBFigures()
        for threads in [1, 2] {
            for label in ["group-by", "filtered count"] {
                guard let duckSeconds = duck["\(label)/\(threads)"] else { continue }
                let duckRate = Double(rows) / duckSeconds
                report(String(
                    format: "  duckdb %-16@ %8.3f s  %12.0f rows/s  (%d thread%@)  sluice/duckdb = %.2f", label as NSString,
                    duckSeconds, duckRate, threads, threads == 1 ? "" : "s", ours[label]! / duckRate))
            }
        }
    }


    /// Rows `range` of the benchmark table; the same formulas feed DuckDB.
    static func chunk(_ range: Range<Int>) -> Chunk {
        var keys = [Int64]()
        var values = [Int64]()
        var strings = VarBytes()
        keys.reserveCapacity(range.count)
        values.reserveCapacity(range.count)
        for i in range {
            let row = Int64(i)
            keys.append((row &* 2_654_435_761) % 1000)
            values.append((row &* 40503) % 1_000_003)
            strings.append("item\(i % 100)")
        }
        return Chunk(columns: [
            Column(type: .int64, storage: .int64(keys)), Column(type: .int64, storage: .int64(values)),
            Column(type: .varchar, storage: .bytes(strings)),
        ])
    }


    /// Runs DuckDB (Python package) over the same rows; returns median seconds per query and thread count.
    private func duckDBFigures() throws -> [String: Double] {
        let script = """
            import duckdb, time, sys
            n = int(sys.argv[1])
            con = duckdb.connect()
            con.execute(f"CREATE TABLE t AS SELECT (i * 2654435761) % 1000 AS k, (i * 40503) % 1000003 AS v, 'item' || (i % 100) AS s FROM range({n}) r(i)")
            for threads in (1, 2):
                con.execute(f"SET threads = {threads}")
                for label, q in (("group-by", "\(Self.groupQuery)"), ("filtered count", "\(Self.filterQuery)")):
                    times = []
                    for _ in range(\(Self.repetitions)):
                        t = time.perf_counter(); con.execute(q).fetchall(); times.append(time.perf_counter() - t)
                    print(f"{label}/{threads}={sorted(times)[len(times) // 2]}")
            """
        return try DuckDBReference.figures(script: script, arguments: [String(rows)]) ?? [:]
    }
}
