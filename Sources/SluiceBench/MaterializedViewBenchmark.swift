import Foundation
import SluiceCore
import SluicePGWire
import SluiceServer

/// `sluice bench mv`: N rows inserted in batches into a table feeding the materialized view
/// `SELECT k, count(*), sum(v), max(v) FROM t GROUP BY k`, timed end to end (from the first
/// insert until FLUSH returns with every row in the view) and inside the aggregate operator
/// alone; with 1,000 keys, with 1,000,000 keys, and with 1,000 keys and 10% of the rows deleted
/// again. DuckDB (one thread) runs the same GROUP BY over the same rows as a batch query for
/// scale. Memory per group is the aggregate operator's state (its own accounting of what it
/// stores: counters, sums, the min/max value multisets and the key directory) over the number
/// of groups.
package struct MaterializedViewBenchmark {
    package var rows: Int
    package var compareWithDuckDB: Bool
    /// Nexmark events for the q0, q1 and q2 views (0: skip them).
    package var nexmarkEvents: Int

    /// One aggregate scenario to run alone (nil: all, then the join and Nexmark).
    package var only: Scenario?

    package enum Scenario: String, CaseIterable, Sendable {
        case thousandKeys = "1k"
        case millionKeys = "1M"
        case thousandKeysDeleted = "1k-deleted"
        case general
    }

    package init(rows: Int, compareWithDuckDB: Bool, nexmarkEvents: Int = 3_000_000, only: Scenario? = nil) {
        self.rows = rows
        self.compareWithDuckDB = compareWithDuckDB
        self.nexmarkEvents = nexmarkEvents
        self.only = only
    }

    static let viewQuery = "SELECT k, count(*), sum(v), max(v) FROM t GROUP BY k"
    /// The same over the general aggregate (avg is not on the integer path): max keeps every
    /// value of every group in ordered state, since a table deletes.
    static let generalQuery = "SELECT k, max(v), avg(v) FROM t GROUP BY k"
    /// Rows per insert call (one barrier interval usually spans many).
    static let batchRows = 64 * Chunk.preferredSize

    struct Figures {
        var label: String
        var keys: Int
        var endToEndSeconds: Double
        var aggregateSeconds: Double
        var aggregateRows: Int
        var groups: Int
        var bytesPerGroup: Double
        /// The aggregate's epochs and change rows out: the barrier is timed, so a faster run
        /// finishes fewer epochs, and each epoch emits a change per group it touched.
        var epochs = 0
        var rowsOut = 0
    }

    package func run() async throws {
        report("sluice bench mv: \(rows) rows into t(id, k, v) feeding \(Self.viewQuery)")
        var results: [Figures] = []
        let scenarios: [(Scenario, String, Int, Bool)] = [
            (.thousandKeys, "1k keys", 1000, false), (.millionKeys, "1M keys", 1_000_000, false),
            (.thousandKeysDeleted, "1k keys, 10% deleted", 1000, true),
        ]
        for (kind, label, keys, deleteTenth) in scenarios where only == nil || only == kind {
            let figures = try await scenario(label: label, keys: keys, deleteTenth: deleteTenth)
            results.append(figures)
            Self.printFigures(figures)
        }
        // (Fewer rows: the general aggregate is slower, and every row is an ordered entry.)
        if only == nil || only == .general {
            let generalRows = min(rows, 2_000_000)
            report("  \(generalRows) rows feeding \(Self.generalQuery):")
            Self.printFigures(try await scenario(label: "100k keys, general", keys: 100_000, deleteTenth: false, query: Self.generalQuery, rows: generalRows))
        }
        if only != nil {
            if compareWithDuckDB && !results.isEmpty { try printDuckDB(for: results) }
            return
        }
        try await JoinViewBenchmark(rows: min(rows, 1_000_000), compareWithDuckDB: compareWithDuckDB).run()
        if nexmarkEvents > 0 { _ = try await NexmarkViewBenchmark(events: nexmarkEvents, only: ["q0", "q1", "q2"]).run() }
        guard compareWithDuckDB else { return }
        try printDuckDB(for: results)
    }

    private func printDuckDB(for results: [Figures]) throws {
        let duck = try duckDBSeconds(keys: Array(Set(results.map(\.keys))).sorted())
        for figures in results where !figures.label.contains("deleted") {
            guard let seconds = duck[figures.keys] else { continue }
            let duckRate = Double(rows) / seconds
            let aggregateRate = Double(figures.aggregateRows) / figures.aggregateSeconds
            report(String(
                format: "  duckdb %-15@ batch GROUP BY %6.3f s %12.0f rows/s (1 thread) | aggregate operator / duckdb = %.2f",
                figures.label as NSString, seconds, duckRate, aggregateRate / duckRate))
        }
    }

    private static func printFigures(_ figures: Figures) {
        report(String(
            format: "  %-22@ end-to-end %6.2f s %12.0f rows/s | aggregate operator %12.0f rows/s | %d groups, %.0f bytes/group | %d epochs, %d changes out",
            figures.label as NSString, figures.endToEndSeconds, Double(figures.aggregateRows) / figures.endToEndSeconds,
            Double(figures.aggregateRows) / figures.aggregateSeconds, figures.groups, figures.bytesPerGroup, figures.epochs, figures.rowsOut))
    }

    private func scenario(label: String, keys: Int, deleteTenth: Bool, query: String = viewQuery, rows: Int? = nil) async throws -> Figures {
        let rows = rows ?? self.rows
        let database = try Database(dataDirectory: nil)
        defer { database.stop() }
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await session.execute(script: "CREATE TABLE t (id bigint, k bigint, v bigint)")
        _ = try await session.execute(script: "CREATE MATERIALIZED VIEW agg AS \(query)")
        guard let table = database.catalog.relation(named: "t"), let view = database.catalog.relation(named: "agg") else {
            throw SluiceError.internalError("benchmark relations missing")
        }
        let clock = ContinuousClock.now
        var start = 0
        while start < rows {
            var chunks: [Chunk] = []
            var batchEnd = min(rows, start + Self.batchRows)
            while start < batchEnd {
                let end = min(batchEnd, start + Chunk.preferredSize)
                chunks.append(Self.chunk(start ..< end, keys: keys))
                start = end
            }
            try database.tables.insert(chunks, into: table)
            batchEnd = start
        }
        if deleteTenth { _ = try await session.execute(script: "DELETE FROM t WHERE (id / 1000) % 10 = 0") }
        await database.flush()
        let elapsed = (ContinuousClock.now - clock).inSeconds
        let groups = try await session.execute(script: "SELECT count(*) FROM agg").chunks.first.map { chunk -> Int in
            if case .int64(let count) = chunk.columns[0].value(at: 0) { return Int(count) }
            return 0
        } ?? 0
        let profile = database.streams.operatorProfile(view: view.id)
        guard let aggregate = profile.first(where: { $0.name == "StreamHashAgg" }) else {
            throw SluiceError.internalError("the view has no aggregate operator")
        }
        return Figures(
            label: label, keys: keys, endToEndSeconds: elapsed, aggregateSeconds: Double(aggregate.nanoseconds) / 1e9,
            aggregateRows: aggregate.rowsIn, groups: groups, bytesPerGroup: Double(aggregate.stateBytes) / Double(max(groups, 1)),
            epochs: aggregate.epochs, rowsOut: aggregate.rowsOut)
    }

    /// Rows `range`: id = i, k = a scrambled i mod `keys`, v = a scrambled i; the same formulas
    /// feed DuckDB.
    static func chunk(_ range: Range<Int>, keys: Int) -> Chunk {
        var ids = [Int64]()
        var keyValues = [Int64]()
        var values = [Int64]()
        ids.reserveCapacity(range.count)
        keyValues.reserveCapacity(range.count)
        values.reserveCapacity(range.count)
        for i in range {
            let row = Int64(i)
            ids.append(row)
            keyValues.append((row &* 2_654_435_761) % Int64(keys))
            values.append((row &* 40503) % 1_000_003)
        }
        return Chunk(columns: [
            Column(type: .int64, storage: .int64(ids)), Column(type: .int64, storage: .int64(keyValues)),
            Column(type: .int64, storage: .int64(values)),
        ])
    }



    /// DuckDB's median time for the view's GROUP BY over the same rows, by key count.
    private func duckDBSeconds(keys: [Int]) throws -> [Int: Double] {
        let script = """
            import duckdb, time, sys
            n = int(sys.argv[1])
            con = duckdb.connect()
            con.execute("SET threads = 1")
            for keys in (\(keys.map(String.init).joined(separator: ", ")),):
                con.execute(f"CREATE OR REPLACE TABLE t AS SELECT i AS id, (i * 2654435761) % {keys} AS k, (i * 40503) % 1000003 AS v FROM range({n}) r(i)")
                times = []
                for _ in range(5):
                    t = time.perf_counter(); con.execute("SELECT count(*), sum(c), sum(s), sum(m) FROM (SELECT k, count(*) AS c, sum(v) AS s, max(v) AS m FROM t GROUP BY k)").fetchall(); times.append(time.perf_counter() - t)
                print(f"{keys}={sorted(times)[len(times) // 2]}")
            """
        var figures: [Int: Double] = [:]
        for (label, seconds) in try DuckDBReference.figures(script: script, arguments: [String(rows)]) ?? [:] {
            if let key = Int(label) { figures[key] = seconds }
        }
        return figures
    }
}
