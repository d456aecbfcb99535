import Foundation
import SluiceCommandLine
import SluiceBench
import SluiceServer
import SluiceState

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run a benchmark and print its figures.", subcommands: [ScanAgg.self, TPCH.self, IndexBench.self, Spill.self, MaterializedView.self, CheckpointBench.self, BrokerBench.self, JSONDecode.self, KafkaJSON.self, MemoryChild.self, NexmarkBench.self, ParquetBench.self, IcebergSinkBench.self, DashboardBench.self, SecurityBench.self, CopyBench.self, MemoryBench.self, FilesBench.self, WebhookBench.self, SinksBench.self, DedupBench.self, CDCBench.self, FrontDoorsBench.self])
}

struct NexmarkBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nexmark",
        abstract: "Nexmark's queries as materialized views over pre-generated JSON events in the built-in broker: events/s per query.")

    @Option(help: "Only these queries, comma-separated (q0,q1,…; all when not given).")
    var queries: String?

    @Option(help: "Events to load (the full stream: persons, auctions and bids).")
    var events = 1_000_000

    @Option(help: "Events a second on the generator's simulated clock (windows close as its time passes).")
    var simulatedRate = 10_000.0

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        BenchProgress.enable(quiet: output.quiet)
        let names = (queries ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        try await NexmarkViewBenchmark(events: events, only: names, eventsPerSecond: simulatedRate).run()
    }
}

struct ScanAgg: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan-agg", abstract: "GROUP BY and filtered count over N rows, with DuckDB's figures beside ours.")

    @Option(help: "Rows to load.")
    var rows = 10_000_000

    @Flag(help: "Skip the DuckDB comparison.")
    var noDuckdb = false

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        BenchProgress.enable(quiet: output.quiet)
        try await ScanAggBenchmark(rows: rows, compareWithDuckDB: !noDuckdb).run()
    }
}

struct TPCH: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tpch", abstract: "TPC-H's 22 queries, Sluice beside DuckDB with one thread, with their ratios and geometric mean.")

    @Option(help: "TPC-H scale factor (1 is 6 million lineitem rows).")
    var sf = 1.0

    @Option(help: "Runs per query; the median is reported.")
    var repetitions = 3

    @Option(help: "Only these queries, comma-separated (all 22 when not given).")
    var queries: String?

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        BenchProgress.enable(quiet: output.quiet)
        let numbers = (queries ?? "").split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        try await TPCHBenchmark(scaleFactor: sf, repetitions: repetitions, queries: numbers).run()
    }
}

struct IndexBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index", abstract: "CREATE INDEX on a table and on a materialized view, lookups through it and through a scan, and its cost to writes; DuckDB's ART index beside.")

    @Option(help: "Rows in the table.")
    var rows = 5_000_000

    @Option(help: "Lookups of each kind; the median is reported.")
    var lookups = 1_000

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        BenchProgress.enable(quiet: output.quiet)
        try await IndexBenchmark(rows: rows, lookups: lookups).run()
    }
}

struct Spill: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A GROUP BY, a sort and a join past a 256 MB query memory limit (spilling), in memory, and in DuckDB with the same limit.")

    @Option(help: "Rows generated for the GROUP BY and the sort (the join's sides are two fifths of it).")
    var rows = 50_000_000

    @Option(help: "Runs per query; the median is reported.")
    var repetitions = 1

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        BenchProgress.enable(quiet: output.quiet)
        try await SpillBenchmark(rows: rows, repetitions: repetitions).run()
    }
}

extension MaterializedViewBenchmark.Scenario: ExpressibleByArgument {}

struct MaterializedView: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mv",
        abstract: "Rows through an incrementally maintained GROUP BY view, end to end and in the aggregate operator, beside DuckDB's batch GROUP BY.")

    @Option(help: "Rows to insert per scenario.")
    var rows = 10_000_000

    @Option(help: "Nexmark events for the q0, q1 and q2 views over the built-in broker (0 skips them).")
    var nexmarkEvents = 3_000_000

    @Flag(help: "Skip the DuckDB comparison.")
    var noDuckdb = false

    @Option(help: "Run one aggregate scenario alone: '1k', '1M', '1k-deleted' or 'general' (no join, no Nexmark).")
    var only: MaterializedViewBenchmark.Scenario?

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        try await MaterializedViewBenchmark(rows: rows, compareWithDuckDB: !noDuckdb, nexmarkEvents: nexmarkEvents, only: only).run()
    }
}

struct CheckpointBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkpoint",
        abstract: "Writes with and without the write-ahead log's fsync, one-row statements under group commit, views' state checkpointed at every barrier against none, a table checkpoint, and recovery.")

    @Option(help: "Rows to insert per write scenario.")
    var rows = 5_000_000

    @Option(help: "MiB of table state to checkpoint and recover.")
    var stateMib = 1024

    @Option(help: "Nexmark events through views for the views' state checkpoints (0: skip them).")
    var nexmarkEvents = 3_000_000

    @Option(help: "Datagen rows for the larger-than-memory runs, each in a process of its own (0: skip them).")
    var memoryRows = 6_000_000

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        try await CheckpointBenchmark(rows: rows, stateBytes: stateMib << 20, nexmarkEvents: nexmarkEvents).run()
        if memoryRows > 0 {
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            try MemoryLimitBenchmark(rows: memoryRows, executable: executable).run()
        }
    }
}

/// One run of the larger-than-memory benchmark, in a process of its own (`bench checkpoint` starts it).
struct MemoryChild: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory-child", abstract: "One run of checkpoint's larger-than-memory part (started by it).", shouldDisplay: false)

    @Option(help: "Datagen rows.")
    var rows = 6_000_000

    @Option(help: "Bytes of state pages kept in memory (none: no limit).")
    var memoryLimit: Int?

    func run() async throws {
        try await MemoryLimitBenchmark.runChild(rows: rows, memoryLimit: memoryLimit)
    }
}

struct BrokerBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broker",
        abstract: "Produce and consume N records through the built-in broker in another process, beside the disk's sequential write speed.")

    @Option(help: "Records to produce and consume.")
    var records = 5_000_000

    @OptionGroup var output: BenchOutputOptions

    func run() throws {
        BenchProgress.enable(quiet: output.quiet)
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        try BrokerBenchmark(records: records, executable: executable).run()
    }
}

struct JSONDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "json-decode",
        abstract: "Decode N balloon events of NDJSON into chunks with the JSON row decoder, beside DuckDB's read_json on one thread.")

    @Option(help: "Events to generate and decode.")
    var events = 2_000_000

    @Flag(help: "Skip the DuckDB comparison.")
    var noDuckdb = false

    @OptionGroup var output: BenchOutputOptions

    func run() throws {
        BenchProgress.enable(quiet: output.quiet)
        try JSONDecodeBenchmark(events: events, compareWithDuckDB: !noDuckdb).run()
    }
}

struct KafkaJSON: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kafka-json",
        abstract: "Read N balloon events from the built-in broker through a Kafka source into seed 000's leaderboard view; then the JSON decoder alone, beside DuckDB's read_json.")

    @Option(help: "Events to load and read.")
    var events = 10_000_000

    @Flag(help: "Skip the DuckDB comparison.")
    var noDuckdb = false

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        try await KafkaJSONBenchmark(events: events, compareWithDuckDB: !noDuckdb).run()
    }
}

struct DedupBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dedup",
        abstract: "Read N payment events (a fifth repeats) from the built-in broker through a Kafka source into a view, with dedup.key and without.")

    @Option(help: "Events to load and read.")
    var events = 2_000_000

    @Option(help: "Runs of each pipeline; the median is reported.")
    var runs = 3

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        try await DedupBenchmark(events: events, runs: runs).run()
    }
}

extension ParquetBenchmark.Codec: ExpressibleByArgument {}

struct ParquetBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parquet",
        abstract: "Write N balloon rows to a Parquet file with Sluice's writer, beside pyarrow's write_table and DuckDB's COPY on one thread, same codec and level.")
    @Option(help: "Rows to generate and write.") var rows = 10_000_000
    @Option(help: "Page compression: zstd, snappy, gzip or none.") var codec: ParquetBenchmark.Codec = .zstd
    @Option(help: "ZSTD level for all three writers (1 is Arrow's default; DuckDB's is 3).") var zstdLevel = 1
    @Option(help: "Writes per engine; the median is reported.") var runs = 3
    @Flag(help: "Skip the pyarrow and DuckDB comparison.") var noReferences = false
    @OptionGroup var output: BenchOutputOptions

    func run() throws {
        BenchProgress.enable(quiet: output.quiet)
        try ParquetBenchmark(rows: rows, codec: codec, zstdLevel: zstdLevel, runs: runs, compareWithReferences: !noReferences).run()
    }
}

struct IcebergSinkBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iceberg-sink",
        abstract: "Rows/s through an append-only Iceberg sink into the local warehouse, from a view and from a Kafka source end to end, beside the same pipelines into a blackhole sink.")
    @Option(help: "Rows from the view.") var rows = 5_000_000
    @Option(help: "Events through the Kafka source (enough that the last commit's wait, a barrier interval, is not the figure).") var events = 10_000_000
    @Option(help: "Kafka pipelines per sink, alternating; the median is reported.") var runs = 3
    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        try await IcebergSinkBenchmark(rows: rows, events: events, runs: runs).run()
    }
}

/// What every `sluice bench` takes: `--quiet` drops the progress line a terminal shows.
struct BenchOutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "No progress line on a terminal (figures only).") var quiet = false

    /// The progress line, and the allocator tuned as `sluice serve` tunes it: for a benchmark
    /// that runs the server's pipelines.
    func prepareAsServer() {
        BenchProgress.enable(quiet: quiet)
        MemoryTuning.apply()
    }
}

struct DashboardBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "Seed 000's source and five views over N events, alone and watched by the dashboard and a /metrics scraper; the snapshot's and the scrape's own time.")

    @Option(help: "Balloon events to load and read.")
    var events = 2_000_000

    @Option(help: "Runs of each kind; medians are reported.")
    var runs = 3

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        BenchProgress.enable(quiet: output.quiet)
        try await DashboardBenchmark(events: events, runs: max(1, runs)).run()
    }
}

struct SecurityBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "security",
        abstract: "What security costs: the SQL port and the broker in clear and over TLS (SASL/SCRAM for Kafka), a SCRAM login's work, and privilege checks.")

    @Option(help: "Rows of the table COPY sends through psql.")
    var rows = 2_000_000

    @Option(help: "Kafka records of 100 bytes to produce and fetch.")
    var records = 1_000_000

    @Option(help: "Runs of each kind; medians are reported.")
    var runs = 3

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        BenchProgress.enable(quiet: output.quiet)
        try await SecurityBenchmark(rows: rows, records: records, runs: max(1, runs)).run()
    }
}

extension CopyBenchmark.Format: ExpressibleByArgument {}

struct CopyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "COPY FROM of one generated file into Sluice and into a PostgreSQL server started for the run, durable commits in both; times and their ratio.")

    @Option(help: "Rows of the generated file.")
    var rows = 3_000_000

    @Option(help: "Loads per engine and format; medians are reported.")
    var runs = 3

    @Option(help: "Only this format, text or csv (both when not given).")
    var format: CopyBenchmark.Format?

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        try await CopyBenchmark(rows: rows, runs: max(1, runs), formats: format.map { [$0] } ?? CopyBenchmark.Format.allCases).run()
    }
}

/// `sluice bench memory` (``MemoryBenchmark``): each statement in a fresh `sluice serve` under `--limit` and without one.
struct MemoryBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Bulk loads, view backfills, large queries, UPDATE and DELETE on far more data than --memory-limit, each alone in a fresh sluice serve: peak RSS against the limit, and throughput beside the same statement without a limit.")

    @Option(help: "Rows of the table (a multiple of 6).")
    var rows = 6_000_000

    @Option(help: "The servers' --memory-limit, such as 300MB or 1GiB.")
    var limit = "300MB"

    @Option(help: "Only these cases, comma-separated: insert, copy, mv, view-on-view, join-view, distinct, top-n, window, update, delete (all when not given).")
    var cases: String?

    @Flag(help: "Skip the runs without a limit (no throughput ratio).")
    var noUnlimited = false

    @OptionGroup var output: BenchOutputOptions

    func run() throws {
        BenchProgress.enable(quiet: output.quiet)
        guard rows >= 6, rows % 6 == 0 else { throw ValidationError("--rows must be a positive multiple of 6, not \(rows)") }
        guard let bytes = StateMemory.parseSize(limit), bytes > 0 else {
            throw ValidationError("--limit must be a size such as 300MB or 1GiB, not \"\(limit)\"")
        }
        var selected = MemoryBenchmark.Case.allCases
        if let cases {
            selected = try cases.split(separator: ",").map { name in
                let trimmed = name.trimmingCharacters(in: .whitespaces)
                guard let benchCase = MemoryBenchmark.Case(rawValue: trimmed) else {
                    throw ValidationError("no case \"\(trimmed)\"; the cases are \(MemoryBenchmark.Case.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return benchCase
            }
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        try MemoryBenchmark(rows: rows, memoryLimit: bytes, cases: selected, comparesWithoutLimit: !noUnlimited, executable: executable).run()
    }
}

/// `sluice bench files` (``FilesBenchmark``): a Parquet file source into a view, and a view into
/// Parquet, CSV and JSON file sinks, beside DuckDB with one thread on the same files.
struct FilesBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files", abstract: "File sources and sinks (Parquet, CSV, JSON) beside DuckDB with one thread: rows/s and ratios.")

    @Option(help: "Rows of the generated files.")
    var rows = 2_000_000

    @Option(help: "Runs per pipeline; medians are reported.")
    var runs = 3

    @Option(help: "Only these pipelines (source, parquet, csv, json; reader: the Parquet reader alone, asked for by name only); all by default.")
    var only: [String] = []

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        let known: Set<String> = ["source", "parquet", "csv", "json", "reader"]
        if let unknown = only.first(where: { !known.contains($0.lowercased()) }) {
            throw ValidationError("unknown pipeline '\(unknown)'; the pipelines are source, parquet, csv, json and reader")
        }
        try await FilesBenchmark(rows: rows, runs: runs, only: Set(only.map { $0.lowercased() })).run()
    }
}

/// `sluice bench webhook` (``WebhookBenchmark``): events/s a webhook table accepts with durable
/// replies, one and 32 clients, NDJSON batches of 1 and 1,000, and reply times at half the rate.
struct WebhookBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook", abstract: "Webhook ingest with durable replies: events/s by clients and batch size, p50/p99 replies, beside psql INSERTs.")

    @Option(help: "Seconds each case runs.")
    var seconds = 5.0

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        try await WebhookBenchmark(seconds: seconds).run()
    }
}

/// `sluice bench sinks` (``SinksBenchmark``): rows/s into an exactly-once Kafka sink beside a
/// blackhole sink.
struct SinksBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sinks", abstract: "Exactly-once sinks (Kafka) beside a blackhole sink: rows/s and the ratio.")

    @Option(help: "Events in the topic the pipelines read (enough that waiting for the last 250-ms barrier is a small part of each time).")
    var events = 5_000_000

    @Option(help: "Runs per sink; medians are reported.")
    var runs = 3

    @Option(name: .customLong("sink"), help: "Only these (blackhole, kafka, kafka-lz4, postgres, copy); all by default.")
    var sinks: [String] = []

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        try await SinksBenchmark(events: events, runs: runs, only: sinks).run()
    }
}

/// `sluice bench cdc` (``CDCBenchmark``): rows/s from a PostgreSQL table through CDC into a view,
/// beside COPY TO STDOUT.
struct CDCBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cdc", abstract: "Postgres CDC (snapshot and stream) into a view beside COPY TO STDOUT: rows/s and the ratio.")

    @Option(help: "Rows in the PostgreSQL table (and again in the streamed insert).")
    var rows = 1_000_000

    @Option(help: "Runs; medians are reported.")
    var runs = 3

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        try await CDCBenchmark(rows: rows, runs: runs).run()
    }
}

/// `sluice bench front-doors` (``FrontDoorsBenchmark``): result rows/s through each front door
/// beside the Postgres wire, and a trivial statement's round trip through each.
struct FrontDoorsBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "front-doors", abstract: "The same GROUP BY result's rows/s through the Postgres wire and each front door, and a trivial statement's round trip.")

    @Option(help: "Result rows (groups of the GROUP BY).")
    var groups = 200_000

    @Option(help: "Runs of the query per door (the best is reported).")
    var runs = 3

    @Option(help: "Trivial statements timed per door.")
    var statements = 500

    @OptionGroup var output: BenchOutputOptions

    func run() async throws {
        output.prepareAsServer()
        try await FrontDoorsBenchmark(groups: groups, runs: runs, statements: statements).run()
    }
}
