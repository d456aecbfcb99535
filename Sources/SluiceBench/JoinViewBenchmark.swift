import Foundation
import SluiceCore
import SluicePGWire
import SluiceServer

/// Part of `sluice bench mv`: the join view `SELECT a.id, a.v, b.w FROM a JOIN b ON a.k = b.k`
/// over N rows on each side, each row of `a` matching one row of `b`. `a` is inserted first
/// (its rows go into the join's left state, nothing is emitted), then `b` (each row probes the
/// left state and emits one joined row). Timed end to end (until FLUSH returns with every row
/// in the view) and inside the join operator; DuckDB (one thread) runs the same join as a batch
/// query over the same rows for scale.
struct JoinViewBenchmark {
    var rows: Int
    var compareWithDuckDB: Bool

    static let viewQuery = "SELECT a.id, a.v, b.w FROM a JOIN b ON a.k = b.k"

    func run() async throws {
        let database = try Database(dataDirectory: nil)
        defer { database.stop() }
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await session.execute(script: "CREATE TABLE a (id bigint, k bigint, v bigint); CREATE TABLE b (id bigint, k bigint, w bigint)")
        _ = try await session.execute(script: "CREATE MATERIALIZED VIEW joined AS \(Self.viewQuery)")
        guard let left = database.catalog.relation(named: "a"), let right = database.catalog.relation(named: "b"),
            let view = database.catalog.relation(named: "joined")
        else {
            throw SluiceError.internalError("benchmark relations missing")
        }
        let clock = ContinuousClock.now
        for (table, isLeft) in [(left, true), (right, false)] {
            var start = 0
            while start < rows {
                var chunks: [Chunk] = []
                let batchEnd = min(rows, start + MaterializedViewBenchmark.batchRows)
                while start < batchEnd {
                    let end = min(batchEnd, start + Chunk.preferredSize)
                    chunks.append(Self.chunk(start ..< end, rows: rows, left: isLeft))
                    start = end
                }
                try database.tables.insert(chunks, into: table)
            }
        }
        await database.flush()
        let elapsed = (ContinuousClock.now - clock).inSeconds
        let joined = try await session.execute(script: "SELECT count(*) FROM joined").chunks.first.map { chunk -> Int in
            if case .int64(let count) = chunk.columns[0].value(at: 0) { return Int(count) }
            return 0
        } ?? 0
        guard joined == rows else { throw SluiceError.internalError("the join view holds \(joined) rows, not \(rows)") }
        guard let join = database.streams.operatorProfile(view: view.id).first(where: { $0.name == "StreamHashJoin" }) else {
            throw SluiceError.internalError("the view has no join operator")
        }
        let joinSeconds = Double(join.nanoseconds) / 1e9
        report(String(
            format: "  join %d x %d rows        end-to-end %6.2f s %12.0f rows/s | join operator %12.0f rows/s | %.0f bytes of state/row",
            rows, rows, elapsed, Double(2 * rows) / elapsed, Double(join.rowsIn) / joinSeconds, Double(join.stateBytes) / Double(2 * rows)))
        guard compareWithDuckDB, let seconds = try duckDBSeconds() else { return }
        let duckRate = Double(2 * rows) / seconds
        report(String(
            format: "  duckdb join             batch hash join %6.3f s %12.0f rows/s (1 thread) | join operator / duckdb = %.2f",
            seconds, duckRate, Double(join.rowsIn) / joinSeconds / duckRate))
    }

    /// Rows `range` of `a` (k = id) or `b` (k = a scrambled permutation of the ids, so each `b`
    /// row meets its `a` row at a random place in the left state); the same formulas feed DuckDB.
    static func chunk(_ range: Range<Int>, rows: Int, left: Bool) -> Chunk {
        let ids = range.map { Int64($0) }
        // 2654435761 is odd and, with rows a power of two or not, i * p mod n is a permutation
        // whenever gcd(p, n) = 1; p is prime and larger than any n used here.
        let keys = left ? ids : ids.map { Int64((UInt64($0) &* 2_654_435_761) % UInt64(rows)) }
        let values = ids.map { ($0 &* 40503) % 1_000_003 }
        return Chunk(columns: [
            Column(type: .int64, storage: .int64(ids)), Column(type: .int64, storage: .int64(keys)),
            Column(type: .int64, storage: .int64(values)),
        ])
    }

    private func duckDBSeconds() throws -> Double? {
        let script = """
            import duckdb, time, sys
            n = int(sys.argv[1])
            con = duckdb.connect()
            con.execute("SET threads = 1")
            con.execute(f"CREATE TABLE a AS SELECT i AS id, i AS k, (i * 40503) % 1000003 AS v FROM range({n}) r(i)")
            con.execute(f"CREATE TABLE b AS SELECT i AS id, (i * 2654435761) % {n} AS k, (i * 40503) % 1000003 AS w FROM range({n}) r(i)")
            times = []
            for _ in range(5):
                t = time.perf_counter(); r = con.execute("SELECT count(*), sum(a.v), sum(b.w) FROM a JOIN b ON a.k = b.k").fetchall(); times.append(time.perf_counter() - t)
            assert r[0][0] == n, r
            print(f"join={sorted(times)[len(times) // 2]}")
            """
        return try DuckDBReference.figures(script: script, arguments: [String(rows)])?["join"]
    }
}
