import ArgumentParser
import Foundation
import SluiceCore
import SluiceGen
import SluicePGWire
import SluiceServer
import Synchronization

/// `sluice demo [balloon]`: one command to a running pipeline. It starts the server with every
/// listener (SQL, Kafka, the Iceberg catalog, the dashboard), creates seed 000's source, views
/// and Iceberg sinks as the seed writes them, produces the seed's events, and says what to open.
/// Ctrl-C stops the generator, then the server (a last checkpoint); a second run in the same
/// data directory finds the pipeline there and only starts the generator again.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a seed's pipeline end to end: events in, views updating, Iceberg snapshots landing, a live dashboard.",
        discussion: """
            balloon (default): seed 000's balloon game. Its source and five views go to five Iceberg tables in the \
            built-in catalog (warehouse balloon-game, database balloon_pops), read by its pyiceberg snippet.
            """)

    enum Scenario: String, ExpressibleByArgument, CaseIterable {
        case balloon
    }

    @Argument(help: "The pipeline: balloon.") var scenario: Scenario = .balloon
    @Option(help: "Directory for durable state (a second run resumes from it).") var dataDir = "./sluice-data"
    @Option(help: "Address for SQL (Postgres protocol).") var listen = "127.0.0.1:4566"
    @Option(help: "Address for the built-in Kafka-compatible broker.") var kafkaListen = "127.0.0.1:9092"
    @Option(help: "Address for the built-in Iceberg REST catalog.") var catalogListen = "127.0.0.1:8181"
    @Option(help: "Address for the dashboard, /metrics, /health and /ready.") var dashboardListen = "127.0.0.1:5691"
    @Option(help: "Events a second from the generator.") var rate: Double = 50
    @Option(help: "Number of players.") var players = 10
    @Option(help: "Milliseconds between barriers.") var barrierIntervalMs = 1000
    @Option(help: "Checkpoints per Iceberg commit (the seed's sinks leave RisingWave's default of 10).")
    var commitCheckpointInterval: Int?
    @Flag(help: "Print the pipeline's SQL, filled in for these addresses, and exit.") var printSQL = false

    func validate() throws {
        guard rate > 0, rate.isFinite else { throw ValidationError("--rate must be positive") }
        guard players > 0 else { throw ValidationError("--players must be positive") }
        guard barrierIntervalMs > 0 else { throw ValidationError("--barrier-interval-ms must be positive") }
    }

    func run() async throws {
        let (sqlHost, sqlPort) = try parseAddress(listen)
        let (kafkaHost, kafkaPort) = try parseAddress(kafkaListen)
        let (catalogHost, catalogPort) = try parseAddress(catalogListen)
        let (httpHost, httpPort) = try parseAddress(dashboardListen)
        let script = Self.balloonSQL(kafka: "\(kafkaHost):\(kafkaPort)", catalog: "http://\(catalogHost):\(catalogPort)")
        if printSQL {
            print(script.source)
            print(script.sink)
            return
        }

        var configuration = ServerConfiguration()
        configuration.sqlHost = sqlHost
        configuration.sqlPort = sqlPort
        configuration.dataDirectory = dataDir
        configuration.barrierIntervalMilliseconds = barrierIntervalMs
        configuration.broker?.host = kafkaHost
        configuration.broker?.port = kafkaPort
        configuration.catalog?.host = catalogHost
        configuration.catalog?.port = catalogPort
        var http = HTTPConfiguration()
        (http.host, http.port) = (httpHost, httpPort)
        configuration.http = http
        MemoryTuning.apply(memoryLimit: ServerConfiguration.defaultMemoryLimit)
        let server: SluiceServer
        do {
            server = try await SluiceServer.start(configuration)
        } catch let error as SluiceError {
            throw fail("demo: \(error.message)")
        } catch {
            throw fail("demo: could not start: \(error)")
        }

        // The source starts at the topic's latest offset: the topic exists first.
        let topic = "balloon_game_events"
        if let broker = server.broker, broker.topics.topic(topic) == nil { _ = try? broker.topics.create(topic, partitions: 1) }
        do {
            try await Self.run(script.source, on: server.database)
            try await Self.run(script.sink, on: server.database, commitInterval: commitCheckpointInterval)
        } catch {
            try? await server.shutdown()
            throw fail("demo: the seed's SQL failed: \(error.message)")
        }

        let stop = DemoStop()
        let generator = Thread { [rate, players] in
            var settings = BalloonGenerator.Configuration()
            settings.seed = UInt64(UInt32.random(in: 1 ... .max))
            settings.players = players
            settings.timeline = .wallClock
            settings.eventsPerSecond = rate
            var events = BalloonGenerator(settings)
            do {
                var sink = try KafkaGenOutput(bootstrap: "\(kafkaHost):\(kafkaPort)", topic: topic, partitions: nil)
                let run = GenRun(name: "balloon", count: nil, duration: nil, rate: rate, quiet: true)
                try run.drive(&events, into: &sink, destination: topic, stopRequested: { stop.isRequested })
            } catch {
                FileHandle.standardError.write(Data("sluice demo: the generator stopped: \(error)\n".utf8))
            }
            stop.generatorDone()
        }
        generator.start()

        let banner = Self.banner(
            sql: (sqlHost, server.sqlServer.port), kafka: "\(kafkaHost):\(kafkaPort)", catalog: "http://\(catalogHost):\(catalogPort)",
            dashboard: "http://\(httpHost):\(server.httpPort ?? httpPort)/", rate: rate)
        FileHandle.standardOutput.write(Data(banner.utf8))
        await waitForTerminationSignal()
        FileHandle.standardError.write(Data("sluice demo: stopping\n".utf8))
        stop.request()
        await stop.waitForGenerator()
        try await server.shutdown()
        FileHandle.standardError.write(Data("sluice demo: stopped; `sluice demo` again resumes from \(dataDir)\n".utf8))
    }

    /// Seed 000's SQL with its template values filled as its pyiceberg snippet reads them.
    static func balloonSQL(kafka: String, catalog: String) -> (source: String, sink: String) {
        let values = [
            "balloon_game_kafka_topic": "balloon_game_events", "balloon_game_kafka_bootstrap_servers": kafka,
            "balloon_game_db": "balloon_pops", "plf_catalog_name": "balloon-game", "plf_polaris_catalog_uri": "\(catalog)/api/catalog",
            "principal_client_id": "root", "principal_client_secret": "secret",
            // The warehouse is on the local disk: the seed's MinIO settings are kept, unused.
            "plf_aws_endpoint_url": "http://127.0.0.1:9000", "plf_aws_region": "us-east-1",
        ]
        return (fill(BalloonSeed.source, values), fill(BalloonSeed.sink, values))
    }

    /// Fills Jinja's `{{ name }}` and `{{ name | default("x") }}`, as Ansible does for the seed.
    static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                out += rest[open.lowerBound...]
                return out
            }
            let body = rest[open.upperBound..<close.lowerBound]
            let parts = body.split(separator: "|", maxSplits: 1)
            let name = parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            var value = values[name]
            if value == nil, parts.count == 2, let quote = parts[1].firstIndex(of: "\""), let end = parts[1].lastIndex(of: "\""), quote < end {
                value = String(parts[1][parts[1].index(after: quote)..<end])
            }
            out += value ?? String(rest[open.lowerBound..<close.upperBound])
            rest = rest[close.upperBound...]
        }
        out += rest
        return out
    }

    /// Runs `script`'s statements in order in a session of their own. With `commitInterval`,
    /// each CREATE SINK is given it (the seed's statements do not set one).
    static func run(_ script: String, on database: Database, commitInterval: Int? = nil) async throws(SluiceError) {
        var script = script
        if let commitInterval {
            script = script.replacingOccurrences(of: "connector='iceberg',", with: "connector='iceberg', commit_checkpoint_interval = '\(commitInterval)',")
        }
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        defer { session.terminate() }
        for statement in try await session.prepare(script, parameterTypes: []) {
            _ = try await session.execute(statement, parameters: [])
        }
    }

    static func banner(sql: (String, Int), kafka: String, catalog: String, dashboard: String, rate: Double) -> String {
        """

          Sluice is running seed 000's balloon game: \(Int(rate)) pops a second into Kafka topic balloon_game_events,
          five materialized views, five Iceberg tables in the built-in catalog.

          Dashboard   \(dashboard)
          SQL         psql -h \(sql.0 == "127.0.0.1" ? "localhost" : sql.0) -p \(sql.1) -d dev -U root
                      SELECT * FROM mv_leaderboard ORDER BY total_score DESC;
          Kafka       \(kafka)   (kcat -b \(kafka) -t balloon_game_events -C -o end)
          Iceberg     \(catalog)/api/catalog   warehouse balloon-game, credential root:secret
                      Sinks commit every 10 checkpoints (10 s). In Python, seed 000's snippet:

                        from pyiceberg.catalog.rest import RestCatalog
                        catalog = RestCatalog(name="balloon-game", uri="\(catalog)/api/catalog",
                            credential="root:secret", warehouse="balloon-game", scope="PRINCIPAL_ROLE:ALL")
                        print(catalog.load_table("balloon_pops.leaderboard").scan().to_arrow())

          Ctrl-C stops it cleanly; `sluice demo` again resumes from the same data directory.

        """
    }
}

/// The demo's stop request, and the generator thread's end.
private final class DemoStop: Sendable {
    private let requested = Atomic<Bool>(false)
    private let done = Mutex<(finished: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    var isRequested: Bool { requested.load(ordering: .relaxed) }
    func request() { requested.store(true, ordering: .relaxed) }

    func generatorDone() {
        let waiter = done.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func waitForGenerator() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = done.withLock { state -> Bool in
                if state.finished { return true }
                state.waiter = continuation
                return false
            }
            if finished { continuation.resume() }
        }
    }
}
