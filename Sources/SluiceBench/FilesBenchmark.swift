import Foundation
import Glibc
import SluiceCore
import SluiceFormats
import SluiceServer

/// `sluice bench files`: file sources and sinks beside DuckDB with one thread, on the same files.
/// - **Parquet source → view:** N balloon rows (``ParquetBenchmark``'s data) in four zstd Parquet
///   files; a `posix_fs` source over the folder and a view `count(*), sum(score), max(event_ts)`
///   over it, timed from CREATE MATERIALIZED VIEW until the view counts every row. DuckDB runs the
///   same aggregate over `read_parquet` of the folder.
/// - **view → file sink:** the same rows in an APPEND ONLY table; a file sink of each encoding
///   (Parquet zstd, CSV, JSON lines), timed from CREATE SINK until its last file is committed.
///   DuckDB writes the same rows from a table in memory with `COPY … TO` in that format.
/// Sluice's times include the pipeline's own steps (checkpoint barriers every 100 ms, the commit
/// after the file is finished); DuckDB's are the statement alone. Goal: ≥ 1× DuckDB on each.
package struct FilesBenchmark {
    package var rows: Int
    package var runs: Int
    /// The pipelines to run (`source`, `parquet`, `csv`, `json`); empty: all.
    package var only: Set<String>

    package init(rows: Int, runs: Int, only: Set<String> = []) {
        self.rows = rows
        self.runs = max(1, runs)
        self.only = only
    }

    private func runs(_ pipeline: String) -> Bool { only.isEmpty || only.contains(pipeline) }

    package func run() async throws {
        let directory = try benchDirectory(named: "files")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = "\(directory)/input"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        let chunks = ParquetBenchmark.chunks(rows)
        let perFile = (chunks.count + 3) / 4
        for file in 0 ..< 4 {
            let part = Array(chunks.dropFirst(file * perFile).prefix(perFile))
            guard !part.isEmpty else { continue }
            _ = try ParquetBenchmark.write(part, to: "\(input)/part-\(file).parquet", options: ParquetBenchmark.options(.zstd, zstdLevel: 3))
        }
        report("sluice bench files: \(rows) balloon rows (player, balloon_color, score, page_id, favorite_color_bonus, event_ts), medians of \(runs) runs")
        // DuckDB's figure for each pipeline is taken just before Sluice's, so both meet the
        // machine in the same state; its files go, and the disk is idle, before Sluice's runs
        // (their writeback would otherwise run beside them).
        func reference(_ figure: String) throws -> Double? {
            defer {
                try? FileManager.default.removeItem(atPath: "\(directory)/duckdb-out")
                sync()
            }
            return try DuckDBReference.figures(script: Self.duckdbScript, arguments: [input, "\(directory)/duckdb-out", figure])?[figure]
        }

        if only.contains("reader") {
            // Diagnostic, asked for by name only: the Parquet reader alone on one thread, the
            // files in memory, decoding the two columns the view reads into chunks as the
            // source does.
            let files = (0 ..< 4).map { Array(FileManager.default.contents(atPath: "\(input)/part-\($0).parquet") ?? Data()) }
            var times: [Double] = []
            for _ in 0 ..< runs {
                let start = ContinuousClock.now
                for bytes in files {
                    let reader = try ParquetReader(input: ParquetBytesInput(bytes))
                    for group in reader.rowGroups.indices {
                        try reader.readRowGroup(group, columns: [2, 5], chunkRows: Chunk.preferredSize) { _ in true }
                    }
                }
                times.append((ContinuousClock.now - start).inSeconds)
            }
            line("parquet reader alone", seconds: median(times), duckdb: nil)
        }
        if runs("source") {
            let duckdb = try reference("read_parquet")
            var sourceTimes: [Double] = []
            for run in 0 ..< runs {
                sourceTimes.append(try await sourceToView(input: input, directory: "\(directory)/source-\(run)"))
            }
            line("parquet source → view", seconds: median(sourceTimes), duckdb: duckdb)
        }

        for encode in ["PARQUET", "CSV", "JSON"] where runs(encode.lowercased()) {
            let duckdb = try reference("copy_\(encode.lowercased())")
            var times: [Double] = []
            for run in 0 ..< runs {
                times.append(try await viewToSink(encode: encode, input: input, directory: "\(directory)/sink-\(encode)-\(run)"))
            }
            line("view → \(encode.lowercased()) file sink", seconds: median(times), duckdb: duckdb)
        }
    }

    private func line(_ label: String, seconds: Double, duckdb: Double?) {
        var text = String(format: "  %-28@ %7.3f s  %12.0f rows/s", label as NSString, seconds, Double(rows) / seconds)
        if let duckdb {
            text += String(format: "   duckdb (1 thread) %7.3f s  %12.0f rows/s   sluice %.2fx", duckdb, Double(rows) / duckdb, duckdb / seconds)
        }
        report(text)
    }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// Seconds from CREATE MATERIALIZED VIEW over a file source until it counts every row.
    private func sourceToView(input: String, directory: String) async throws -> Double {
        // Each run's files go when it ends, as DuckDB's runs overwrite theirs: the next run
        // does not share the disk with their writeback.
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (database, session) = try Self.open(directory)
        defer { database.stop() }
        _ = try await session.execute(script: """
            CREATE SOURCE balloon (player varchar, balloon_color varchar, score int, page_id int, favorite_color_bonus boolean, event_ts timestamptz)
            WITH (connector = 'posix_fs', posix_fs.root = '\(input)', match_pattern = '*.parquet') FORMAT PLAIN ENCODE PARQUET
            """)
        let start = ContinuousClock.now
        _ = try await session.execute(script: "CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(score) AS s, max(event_ts) AS last FROM balloon")
        // Looked at again after each commit (a view changes only then), not polled.
        let runtime = database.streams.runtime
        while true {
            let seen = runtime.committedEpoch
            let result = try await session.execute(script: "SELECT n FROM totals")
            if case .int64(let counted)? = result.chunks.first.map({ $0.columns[0].value(at: 0) }), counted == Int64(rows) { break }
            await runtime.waitForCommit(seen + 1)
        }
        return (ContinuousClock.now - start).inSeconds
    }

    /// Seconds from CREATE SINK of `encode` files over a table of the rows until they are committed.
    private func viewToSink(encode: String, input: String, directory: String) async throws -> Double {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (database, session) = try Self.open(directory)
        defer { database.stop() }
        // The rows, loaded from the input files through the engine's insert path.
        _ = try await session.execute(script: """
            CREATE TABLE balloon (player varchar, balloon_color varchar, score int, page_id int, favorite_color_bonus boolean, event_ts timestamptz)
              APPEND ONLY;
            CREATE SOURCE files (player varchar, balloon_color varchar, score int, page_id int, favorite_color_bonus boolean, event_ts timestamptz)
            WITH (connector = 'posix_fs', posix_fs.root = '\(input)', match_pattern = '*.parquet') FORMAT PLAIN ENCODE PARQUET;
            INSERT INTO balloon SELECT * FROM files
            """)
        // The table durable first: DuckDB's COPY reads a table that is already there.
        try await database.checkpoint()
        let start = ContinuousClock.now
        _ = try await session.execute(script: """
            CREATE SINK out FROM balloon WITH (connector = 'fs', fs.path = '\(directory)/out', type = 'append-only',
              max_row_count = '\(rows)', rollover_seconds = '3600') FORMAT PLAIN ENCODE \(encode)
            """)
        try await IcebergSinkBenchmark.waitForSink(database, rows: rows, committed: true)
        return (ContinuousClock.now - start).inSeconds
    }

    static func open(_ directory: String) throws -> (Database, SQLSession) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let database = try Database.withConnectors(dataDirectory: "\(directory)/data", barrierIntervalMilliseconds: 100)
        return (database, SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:]))
    }

    /// DuckDB with one thread, one figure (its third argument): the aggregate over the Parquet
    /// folder, or COPY of the rows (from a table in memory) to Parquet (zstd), CSV or JSON lines.
    static let duckdbScript = #"""
    import sys, time, os, duckdb
    folder, out, figure = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    con = duckdb.connect()
    con.execute("SET threads = 1")
    def best(sql, runs=3):
        times = []
        for _ in range(runs):
            start = time.perf_counter(); con.execute(sql).fetchall(); times.append(time.perf_counter() - start)
        return sorted(times)[len(times) // 2]
    if figure == "read_parquet":
        print("read_parquet=%f" % best(f"SELECT count(*), sum(score), max(event_ts) FROM read_parquet('{folder}/*.parquet')"))
    else:
        con.execute(f"CREATE TABLE balloon AS SELECT * FROM read_parquet('{folder}/*.parquet')")
        copy = {"copy_parquet": "(FORMAT parquet, COMPRESSION zstd)", "copy_csv": "(FORMAT csv, HEADER)", "copy_json": "(FORMAT json)"}[figure]
        print("%s=%f" % (figure, best(f"COPY balloon TO '{out}/b.{figure[5:]}' {copy}")))
    """#
}
