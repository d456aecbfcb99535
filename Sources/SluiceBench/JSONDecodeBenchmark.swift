import Foundation
import SluiceCore
import SluiceFormats

/// `sluice bench json-decode`: N seed-000 balloon events as NDJSON in memory, decoded by
/// ``JSONRowDecoder`` into chunks of 1,024 rows on one thread; then DuckDB's `read_json` over the
/// same bytes in a temporary file, one thread, with the schema given so it does not sample.
/// Times are the best of three runs.
package struct JSONDecodeBenchmark {
    package var events: Int
    package var compareWithDuckDB: Bool

    package init(events: Int, compareWithDuckDB: Bool) {
        self.events = events
        self.compareWithDuckDB = compareWithDuckDB
    }

    /// The balloon game's source columns (seed 000).
    package static let columns: [(name: String, type: DataType)] = [
        ("player", .varchar), ("balloon_color", .varchar), ("score", .int32), ("page_id", .int32),
        ("favorite_color_bonus", .boolean), ("event_ts", .timestamptz),
    ]

    static let colors = ["red", "blue", "green", "yellow", "purple", "orange", "pink", "white"]

    /// `count` events, one JSON object per line, from a seeded generator: 1,000 players, eight
    /// colours, scores 0–1,000, page ids 1–50, a bonus one time in eight, timestamps a few
    /// milliseconds apart from 2024-05-01T12:00:00Z written as `"2024-05-01T12:34:56.789Z"`.
    package static func events(_ count: Int, seed: UInt64 = 0) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(count * 170)
        var milliseconds: Int64 = 1_714_564_800_000  // 2024-05-01T12:00:00Z
        for _ in 0 ..< count {
            milliseconds += Int64(random.next(below: 8))
            out.append(contentsOf: #"{"player": "player_"#.utf8)
            appendDecimal(random.next(below: 1000), to: &out)
            out.append(contentsOf: #"", "balloon_color": ""#.utf8)
            out.append(contentsOf: colors[random.next(below: colors.count)].utf8)
            out.append(contentsOf: #"", "score": "#.utf8)
            appendDecimal(random.next(below: 1001), to: &out)
            out.append(contentsOf: #", "page_id": "#.utf8)
            appendDecimal(1 + random.next(below: 50), to: &out)
            out.append(contentsOf: #", "favorite_color_bonus": "#.utf8)
            out.append(contentsOf: (random.next(below: 8) == 0 ? "true" : "false").utf8)
            out.append(contentsOf: #", "event_ts": ""#.utf8)
            appendTimestamp(milliseconds, to: &out)
            out.append(contentsOf: "\"}\n".utf8)
        }
        return out
    }

    private static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &out) }
        out.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    private static func appendPadded(_ value: Int, width: Int, to out: inout [UInt8]) {
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
        var rest = value
        for index in stride(from: width - 1, through: 0, by: -1) {
            digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        out.append(contentsOf: digits)
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since 1970 (UTC).
    static func appendTimestamp(_ milliseconds: Int64, to out: inout [UInt8]) {
        let (days, timeOfDay) = TemporalUnits.split(milliseconds * 1000)
        let date = CivilDate(daysSinceUnixEpoch: Int(days))
        let millisecondOfDay = Int(timeOfDay / 1000)
        appendPadded(date.year, width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendPadded(date.month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendPadded(date.day, width: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        appendPadded(millisecondOfDay / 3_600_000, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendPadded(millisecondOfDay / 60000 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendPadded(millisecondOfDay / 1000 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: "."))
        appendPadded(millisecondOfDay % 1000, width: 3, to: &out)
        out.append(UInt8(ascii: "Z"))
    }

    /// Decodes all of `ndjson` into chunks of up to 1,024 rows; returns rows, errors and a
    /// checksum of the scores (so the work cannot be optimized away).
    package static func decode(_ ndjson: UnsafeRawBufferPointer, decoder: inout JSONRowDecoder) -> (rows: Int, errors: Int, scoreSum: Int64) {
        var offset = 0
        var rows = 0
        var errors = 0
        var scoreSum: Int64 = 0
        while offset < ndjson.count {
            let (batch, next) = decoder.decodeLines(ndjson, from: offset, maxRows: Chunk.preferredSize)
            offset = next
            rows += batch.chunk.count
            errors += batch.errors.count
            if batch.chunk.columnCount > 2, case .int32(let scores) = batch.chunk.columns[2].storage {
                for score in scores { scoreSum &+= Int64(score) }
            }
        }
        return (rows, errors, scoreSum)
    }

    package func run() throws {
        let ndjson = Self.events(events)
        let megabytes = Double(ndjson.count) / 1_000_000
        report("sluice bench json-decode: \(events) balloon events, \(String(format: "%.1f", megabytes)) MB of NDJSON (\(ndjson.count / max(events, 1)) bytes an event)")
        try run(ndjson: ndjson)
    }

    /// The decoder alone over `ndjson`, then DuckDB over the same bytes.
    package func run(ndjson: [UInt8]) throws {
        let megabytes = Double(ndjson.count) / 1_000_000
        var decoder = JSONRowDecoder(columns: Self.columns)
        var best = Double.infinity
        var outcome = (rows: 0, errors: 0, scoreSum: Int64(0))
        for _ in 0 ..< 3 {
            let start = ContinuousClock.now
            outcome = ndjson.withUnsafeBytes { Self.decode($0, decoder: &decoder) }
            best = min(best, (ContinuousClock.now - start).inSeconds)
        }
        let ours = megabytes / best
        report(String(format: "  sluice JSONRowDecoder:  %7.3f s  %12.0f events/s  %7.1f MB/s  (%d rows, %d errors, score sum %lld)",
                     best, Double(events) / best, ours, outcome.rows, outcome.errors, outcome.scoreSum))
        guard compareWithDuckDB else { return }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-json-bench-\(getpid()).ndjson").path
        try Data(ndjson).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let duck = try duckDBSeconds(path: path) else { return }
        let theirs = megabytes / duck
        report(String(format: "  duckdb read_json:       %7.3f s  %12.0f events/s  %7.1f MB/s  (1 thread)  sluice/duckdb = %.2f",
                     duck, Double(events) / duck, theirs, ours / theirs))
    }


    /// DuckDB's best of three, one thread, with the explicit schema: the file read into a table,
    /// and scanned into aggregates over every column; the faster of the two.
    private func duckDBSeconds(path: String) throws -> Double? {
        let script = """
            import duckdb, time, sys
            con = duckdb.connect()
            con.execute("SET threads = 1")
            columns = "{'player': 'VARCHAR', 'balloon_color': 'VARCHAR', 'score': 'INTEGER', 'page_id': 'INTEGER', 'favorite_color_bonus': 'BOOLEAN', 'event_ts': 'TIMESTAMPTZ'}"
            source = f"read_json('{sys.argv[1]}', format = 'newline_delimited', columns = {columns})"
            queries = {
                "table": f"CREATE OR REPLACE TABLE t AS SELECT * FROM {source}",
                "scan": f"SELECT count(*), sum(score), sum(page_id), max(epoch_us(event_ts)), max(player), max(balloon_color), count(favorite_color_bonus) FROM {source}",
            }
            for label, query in queries.items():
                times = []
                for _ in range(3):
                    t = time.perf_counter(); con.execute(query).fetchall(); times.append(time.perf_counter() - t)
                print(f"{label}={min(times)}")
            print(f"rows={con.execute('SELECT count(*) FROM t').fetchone()[0]}")
            """
        guard let figures = try DuckDBReference.figures(script: script, arguments: [path]) else { return nil }
        if let rows = figures["rows"], Int(rows) != events { print("  duckdb: read \(Int(rows)) rows, expected \(events)") }
        guard let table = figures["table"], let scan = figures["scan"] else { return nil }
        report(String(format: "  duckdb: %.3f s into a table, %.3f s scanned into aggregates; the faster counts", table, scan))
        return min(table, scan)
    }
}
