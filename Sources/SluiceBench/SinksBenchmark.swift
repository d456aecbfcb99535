import Foundation
import SluiceCore
import SluicePostgresClient
import SluiceServer

/// `sluice bench sinks`: what an exactly-once sink costs a pipeline, as `sluice serve` runs it.
/// N balloon events (JSON) in the built-in broker, read by a Kafka source into a sink, timed
/// from CREATE SINK until every event is committed (for every sink, the blackhole too: the
/// checkpoint that took the last event is durable):
/// - **blackhole**: the pipeline's own cost (reading and decoding the events), the base line;
/// - **kafka**: `FORMAT PLAIN ENCODE JSON` into another topic of the same broker (in process, on
///   loopback), one Kafka transaction per checkpoint, committed when the checkpoint is durable;
/// - **kafka-lz4**: the same with `properties.compression.type = 'lz4'`;
/// - **postgres**: `connector = 'jdbc'`, append-only, into a table of a PostgreSQL started here
///   (fsync on), one PostgreSQL transaction per checkpoint, whose COPY takes the rows while the
///   epoch runs (two lanes by turns) and which commits once the checkpoint is durable;
/// - **COPY FROM**: the same rows, read back from that table as COPY text, loaded again with one
///   `COPY … FROM STDIN` over libpq (the ceiling of loading them into PostgreSQL).
/// Barriers every 250 ms: each time ends at the barrier after the last event, so the default is
/// 5 M events, where that wait is at most an eighth of a run (at 2 M it was a quarter). Goals:
/// the Kafka sink's pipeline at ≥ 0.7× the blackhole's events/s, and the Postgres sink's at
/// ≥ 0.7× COPY FROM's.
package struct SinksBenchmark {
    package var events: Int
    package var runs: Int

    /// The pipelines to run (`blackhole`, `kafka`, `postgres`, `copy`); all when empty.
    package var only: [String]

    package init(events: Int, runs: Int, only: [String] = []) {
        self.events = events
        self.runs = max(1, runs)
        self.only = only
    }

    package func run() async throws {
        report("sluice bench sinks: \(events) balloon events from a Kafka topic into each sink, medians of \(runs) runs")
        let ndjson = JSONDecodeBenchmark.events(events)
        guard let binaries = PostgresReference.binaryDirectory() else {
            throw SluiceError(.featureNotSupported, "sluice bench sinks needs PostgreSQL's server (the postgresql package)")
        }
        let postgres = try PostgresReference.start(binaries: binaries, progress: BenchProgress.detail)
        defer { postgres.stop() }
        let connectors = ["blackhole", "kafka", "kafka-lz4", "postgres", "COPY FROM"].filter { connector in
            only.isEmpty || only.contains(connector == "COPY FROM" ? "copy" : connector)
        }
        var times: [String: [Double]] = [:]
        // Alternating, so that what else the machine does weighs on both alike.
        for _ in 0 ..< runs {
            for connector in connectors {
                let seconds = connector == "COPY FROM" ? try copyFrom(postgres) : try await time(connector, ndjson, postgres: postgres)
                times[connector, default: []].append(seconds)
            }
        }
        var medians: [String: Double] = [:]
        for connector in connectors {
            let median = times[connector]!.sorted()[runs / 2]
            medians[connector] = median
            let label = connector == "COPY FROM" ? "COPY FROM  " : "kafka → \(connector)"
            report(String(format: "  %-18@ %7.3f s  %12.0f events/s", label as NSString, median, Double(events) / median))
        }
        if let base = medians["blackhole"], let kafka = medians["kafka"] {
            report(String(format: "  the exactly-once kafka sink's pipeline runs at %.2fx the blackhole's events/s", base / kafka))
        }
        if let base = medians["blackhole"], let kafka = medians["kafka-lz4"] {
            report(String(format: "  with compression.type = 'lz4', at %.2fx", base / kafka))
        }
        if let copy = medians["COPY FROM"], let sink = medians["postgres"] {
            report(String(format: "  the exactly-once postgres sink's pipeline runs at %.2fx COPY FROM's rows/s", copy / sink))
        }
    }

    private static let balloonTable = """
        (player text, balloon_color text, score integer, page_id integer, favorite_color_bonus boolean, event_ts timestamptz)
        """

    /// Seconds to load the rows the postgres sink wrote, as COPY text, into a new table with one
    /// `COPY … FROM STDIN`.
    private func copyFrom(_ postgres: PostgresReference) throws -> Double {
        let connection = try PostgresConnection(postgres.settings())
        defer { connection.close() }
        var text: [UInt8] = []
        try connection.copyOut("COPY balloon TO STDOUT") { row throws(SluiceError) in text.append(contentsOf: row) }
        try connection.execute("DROP TABLE IF EXISTS balloon_copy; CREATE TABLE balloon_copy \(Self.balloonTable)")
        let start = ContinuousClock.now
        let rows = try connection.copyIn("COPY balloon_copy FROM STDIN") { writer throws(SluiceError) in
            try text.withUnsafeBytes { bytes in
                Result { () throws(SluiceError) in
                    for start in stride(from: 0, to: bytes.count, by: 1 << 20) {
                        try writer.send(UnsafeRawBufferPointer(rebasing: bytes[start ..< min(bytes.count, start + (1 << 20))]))
                    }
                }
            }.get()
        }
        let seconds = (ContinuousClock.now - start).inSeconds
        guard rows == events else { throw SluiceError(.internalError, "COPY FROM loaded \(rows) rows, not \(events)") }
        return seconds
    }

    /// Seconds from CREATE SINK until the sink committed every event.
    private func time(_ connector: String, _ ndjson: [UInt8], postgres: PostgresReference) async throws -> Double {
        let broker = try await BenchBroker.start(named: "sinks-\(connector)")
        try KafkaJSONBenchmark.load(ndjson, topic: "balloon", port: broker.port)
        let (database, session, directory) = try await IcebergSinkBenchmark.open(named: "sinks-\(connector)")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try await session.execute(script: """
            CREATE SOURCE balloon_game_events (player string, balloon_color string, score integer, page_id integer,
              favorite_color_bonus boolean, event_ts timestamptz)
            WITH (connector = 'kafka', topic = 'balloon', properties.bootstrap.server = '127.0.0.1:\(broker.port)',
              scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON
            """)
        let sink = switch connector {
        case "kafka-lz4":
            """
            CREATE SINK out FROM balloon_game_events WITH (connector = 'kafka', properties.bootstrap.server = '127.0.0.1:\(broker.port)',
              topic = 'balloon-out', properties.compression.type = 'lz4') FORMAT PLAIN ENCODE JSON
            """
        case "kafka":
            """
            CREATE SINK out FROM balloon_game_events WITH (connector = 'kafka', properties.bootstrap.server = '127.0.0.1:\(broker.port)',
              topic = 'balloon-out') FORMAT PLAIN ENCODE JSON
            """
        case "postgres":
            """
            CREATE SINK out FROM balloon_game_events WITH (connector = 'jdbc', table.name = 'balloon', type = 'append-only',
              jdbc.url = 'jdbc:postgresql://127.0.0.1:\(postgres.port)/dev?user=root')
            """
        default: "CREATE SINK out FROM balloon_game_events WITH (connector = 'blackhole')"
        }
        if connector == "postgres" {
            let connection = try PostgresConnection(postgres.settings())
            try connection.execute("DROP TABLE IF EXISTS balloon; CREATE TABLE balloon \(Self.balloonTable)")
            connection.close()
        }
        let start = ContinuousClock.now
        _ = try await session.execute(script: sink)
        try await IcebergSinkBenchmark.waitForSink(database, rows: events, committed: true)
        let seconds = (ContinuousClock.now - start).inSeconds
        database.stop()
        await broker.stop()
        return seconds
    }
}
