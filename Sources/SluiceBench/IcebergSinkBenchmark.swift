import Foundation
import SluiceConnectors
import SluiceCore
import SluiceLakehouse
import SluiceServer

/// `sluice bench iceberg-sink`: what an append-only Iceberg sink costs a pipeline, as
/// `sluice serve` runs it (checkpoints under a data directory, the built-in catalog in process,
/// the warehouse on local disk), each pipeline beside the same one into a blackhole sink:
/// - **from a view:** a sink created over a materialized view of N balloon rows, timed from
///   CREATE SINK until every row is committed to the table;
/// - **from Kafka:** N balloon events (JSON) in the built-in broker, read by a Kafka source into
///   a sink, timed from CREATE SINK until every event is committed.
/// The figure that matters is the ratio: the share of the pipeline's throughput the sink costs.
/// Barriers every 250 ms and a commit per checkpoint, so the time to the last commit measures
/// throughput, not the commit interval (a file per checkpoint; compaction is off).
package struct IcebergSinkBenchmark {
    package var rows: Int
    package var events: Int
    /// Kafka pipelines per sink, alternating blackhole and iceberg: on two cores one run's time
    /// moves by a quarter with what else the machine does, so the median of each is compared.
    package var runs: Int

    package init(rows: Int, events: Int, runs: Int = 3) {
        self.rows = rows
        self.events = events
        self.runs = max(1, runs)
    }

    package func run() async throws {
        report("sluice bench iceberg-sink: append-only sinks into a local warehouse (zstd Parquet), beside a blackhole sink")
        let viewRows = """
            INSERT INTO balloon SELECT 'player_' || (g % 5000), (ARRAY['red','blue','green','yellow','purple','orange'])[g % 6 + 1],
              g % 100 + 1, g % 50 + 1, g % 8 = 0, TIMESTAMPTZ '2024-05-01 12:00:00+00' + g * INTERVAL '1 millisecond'
            FROM generate_series(1, \(rows)) AS g
            """
        var figures: [String: Double] = [:]
        // (A blackhole over a view's rows does nothing at all: the view line stands alone.)
        for connector in ["iceberg"] {
            let (database, session, directory) = try await Self.open(named: "iceberg-sink-view-\(connector)")
            _ = try await session.execute(script: """
                CREATE TABLE balloon (player varchar, balloon_color varchar, score int, page_id int, favorite_color_bonus boolean,
                  event_ts timestamptz) APPEND ONLY;
                \(viewRows);
                CREATE MATERIALIZED VIEW pops AS SELECT * FROM balloon
                """)
            let start = ContinuousClock.now
            _ = try await session.execute(script: Self.sink(connector, from: "pops", table: "pops"))
            try await Self.waitForSink(database, rows: rows, committed: connector == "iceberg")
            let seconds = (ContinuousClock.now - start).inSeconds
            figures["view-\(connector)"] = Double(rows) / seconds
            report(String(format: "  view → %-9@ %7.2f s  %12.0f rows/s%@", connector as NSString, seconds, Double(rows) / seconds,
                         Self.files(database) as NSString))
            database.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let ndjson = JSONDecodeBenchmark.events(events)
        var kafkaSeconds: [String: [Double]] = [:]
        for _ in 0 ..< runs {
            for connector in ["blackhole", "iceberg"] {
                let broker = try await BenchBroker.start(named: "iceberg-sink-kafka-\(connector)")
                try KafkaJSONBenchmark.load(ndjson, topic: "balloon", port: broker.port)
                let (database, session, directory) = try await Self.open(named: "iceberg-sink-kafka-\(connector)")
                _ = try await session.execute(script: """
                    CREATE SOURCE balloon_game_events (player string, balloon_color string, score integer, page_id integer,
                      favorite_color_bonus boolean, event_ts timestamptz)
                    WITH (connector = 'kafka', topic = 'balloon', properties.bootstrap.server = '127.0.0.1:\(broker.port)',
                      scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON
                    """)
                let start = ContinuousClock.now
                _ = try await session.execute(script: Self.sink(connector, from: "balloon_game_events", table: "events"))
                try await Self.waitForSink(database, rows: events, committed: connector == "iceberg")
                let seconds = (ContinuousClock.now - start).inSeconds
                kafkaSeconds[connector, default: []].append(seconds)
                report(String(format: "  kafka → %-8@ %7.2f s  %12.0f events/s%@", connector as NSString, seconds, Double(events) / seconds,
                             Self.files(database) as NSString))
                database.stop()
                await broker.stop()
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
        for (connector, times) in kafkaSeconds.sorted(by: { $0.key < $1.key }) {
            let median = times.sorted()[times.count / 2]
            figures["kafka-\(connector)"] = Double(events) / median
            if runs > 1 {
                report(String(format: "  kafka → %-8@ median of %d: %7.2f s  %12.0f events/s", connector as NSString, times.count, median,
                             Double(events) / median))
            }
        }
        for pipeline in ["kafka"] {
            guard let base = figures["\(pipeline)-blackhole"], let sink = figures["\(pipeline)-iceberg"] else { continue }
            report(String(format: "  %@: the iceberg sink runs at %.0f%% of the blackhole pipeline's throughput (costs %.0f%%)",
                         pipeline as NSString, 100 * sink / base, 100 * (1 - sink / base)))
        }
    }

    static func sink(_ connector: String, from input: String, table: String) -> String {
        if connector == "blackhole" { return "CREATE SINK out FROM \(input) WITH (connector = 'blackhole')" }
        return """
            CREATE SINK out FROM \(input) WITH (connector = 'iceberg', type = 'append-only', force_append_only = 'true', database.name = 'bench',
              table.name = '\(table)', warehouse.path = 'bench', enable_compaction = 'false', commit_checkpoint_interval = '1')
            """
    }

    /// A database as `sluice serve` makes it over a new data directory, with the built-in
    /// catalog's store in process.
    static func open(named name: String) async throws -> (Database, SQLSession, String) {
        let directory = try benchDirectory(named: name)
        let store = try IcebergCatalogStore(
            rootDirectory: "\(directory)/catalog", warehouseRoot: "file://\(directory)/warehouse", fileIO: LocalFileIO())
        let database = try Database.withConnectors(
            dataDirectory: "\(directory)/data", barrierIntervalMilliseconds: 250, lakehouse: Lakehouse(store: store, s3: nil))
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        return (database, session, directory)
    }

    /// Polls `sluice_sinks` until the sink has committed (or, for a blackhole, taken) `rows`.
    static func waitForSink(_ database: Database, rows: Int, committed: Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(1800)
        while ContinuousClock.now < deadline {
            if let status = database.catalog.systemReader.sinks.first {
                if let error = status.lastError { throw SluiceError(.ioError, "the benchmark's sink failed: \(error)") }
                if (committed ? status.rows : status.rowsIn) >= rows { return }
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw SluiceError(.ioError, "the benchmark's sink did not finish in 30 minutes")
    }

    static func files(_ database: Database) -> String {
        guard let status = database.catalog.systemReader.sinks.first, status.commits > 0 else { return "" }
        return "  (\(status.files) files in \(status.commits) commits)"
    }
}
