import SluiceCommandLine
import Foundation
import SluiceConnectors
import SluiceCore
import SluiceGen
import SluicePGWire
import SluiceServer
import Synchronization

/// `sluice demo [balloon|users|payments|game-api|cricket]`: one command to a running pipeline. It starts the
/// server with every listener (SQL, Kafka, the Iceberg catalog, the dashboard), creates a seed's
/// source and views (and for the balloon game its Iceberg sinks) as the seed writes them,
/// produces the seed's events, and says what to open. Ctrl-C stops the generator, then the
/// server (a last checkpoint); a second run in the same data directory finds the pipeline there
/// and only starts the generator again.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a seed's pipeline end to end: events in, views updating, Iceberg snapshots landing, a live dashboard.",
        discussion: """
            balloon (default): seed 000's balloon game. Its source and five views go to five Iceberg tables in the \
            built-in catalog (warehouse balloon-game, database balloon_pops), read by its pyiceberg snippet.
            users: seed 001's user change events and the view of each user's latest state.
            payments: seed 004's payment charges, cleaned, with one-hour rolling fraud features per customer.
            game-api: seed 002's game events into topic events, filtered by a view, landed as Parquet files by event \
            type every 10 seconds in <data-dir>/game_events, and queried as hive_events.
            cricket: seed 003's cricket matches from three upstreams (ODI rows in a PostgreSQL the demo starts, read by CDC; \
            T20 documents as Debezium's MongoDB events on a topic; Test matches as YAML files in <data-dir>/cricket/test_matches), \
            split into the topics match_metadata, players and innings, and dumped into a PostgreSQL warehouse (database warehouse). \
            Without PostgreSQL installed (or with --no-postgres) the ODI matches and the warehouse are left out.
            """)

    @Argument(help: "The pipeline: balloon, users, payments, game-api or cricket.") var scenario: DemoScenario = .balloon
    @Option(help: "Directory for durable state (a second run resumes from it).") var dataDir = "./sluice-data"
    @Option(help: "Address for SQL (Postgres protocol).") var listen = "127.0.0.1:4566"
    @Option(help: "Address for the built-in Kafka-compatible broker.") var kafkaListen = "127.0.0.1:9092"
    @Option(help: "Address for the built-in Iceberg REST catalog.") var catalogListen = "127.0.0.1:8181"
    @Option(help: "Address for the dashboard, /metrics, /health and /ready.") var dashboardListen = "127.0.0.1:5691"
    @Option(help: "Address for webhook tables' requests.") var webhookListen = "127.0.0.1:4560"
    @Option(help: "Events a second from the generator (default: 50 balloon pops, 5 user changes, 20 charges, 2 cricket matches).") var rate: Double?
    @Option(help: "Milliseconds between barriers.") var barrierIntervalMs = 1000
    @Flag(help: "Print the pipeline's SQL, filled in for these addresses, and exit.") var printSQL = false
    @Flag(help: "cricket: do not start a PostgreSQL (no ODI upstream, no warehouse).") var noPostgres = false

    func validate() throws {
        if let rate { guard rate > 0, rate.isFinite else { throw ValidationError("--rate must be positive") } }
        guard barrierIntervalMs > 0 else { throw ValidationError("--barrier-interval-ms must be positive") }
    }

    func run() async throws {
        let (sqlHost, _) = try parseAddress(listen)
        let (kafkaHost, kafkaPort) = try parseAddress(kafkaListen)
        let (catalogHost, catalogPort) = try parseAddress(catalogListen)
        let (httpHost, httpPort) = try parseAddress(dashboardListen)
        let kafka = "\(kafkaHost):\(kafkaPort)"
        let absoluteData = dataDir.hasPrefix("/") ? dataDir : FileManager.default.currentDirectoryPath + "/" + dataDir
        let scripts = scenario.scripts(kafka: kafka, catalog: "http://\(catalogHost):\(catalogPort)", dataDirectory: absoluteData)
        if printSQL {
            for script in scripts { print(script) }
            return
        }
        if scenario == .cricket {
            try await CricketDemo(command: self, kafka: kafka, dataDirectory: absoluteData).run()
            return
        }
        let server = try await startServer()

        // A second run finds the pipeline in the data directory and leaves it as it is.
        let resuming = server.database.catalog.relation(named: scenario.firstRelation) != nil
        if !resuming {
            // A source that starts at the topic's latest offset needs the topic first.
            if let broker = server.broker, broker.topics.topic(scenario.topic) == nil { _ = try? broker.topics.create(scenario.topic, partitions: 1) }
            do {
                for script in scripts { try await Self.run(script, on: server.database) }
            } catch {
                try? await server.shutdown()
                throw fail("demo: the seed's SQL failed: \(error.message)")
            }
        }

        let stop = DemoStop()
        let scenario = self.scenario
        let rate = self.rate ?? scenario.defaultRate
        let generator = Thread {
            do {
                try scenario.generate(rate: rate, bootstrap: kafka, stopRequested: { stop.isRequested })
            } catch {
                FileHandle.standardError.write(Data("sluice demo: the generator stopped: \(error)\n".utf8))
            }
            stop.generatorDone()
        }
        generator.start()

        let banner = scenario.banner(
            sql: (sqlHost == "127.0.0.1" ? "localhost" : sqlHost, server.sqlServer.port), kafka: kafka,
            catalog: "http://\(catalogHost):\(catalogPort)", dashboard: "http://\(httpHost):\(server.httpPort ?? httpPort)/", rate: rate,
            resuming: resuming, dataDirectory: dataDir)
        FileHandle.standardOutput.write(Data(banner.utf8))
        await waitForTerminationSignal()
        FileHandle.standardError.write(Data("sluice demo: stopping\n".utf8))
        stop.request()
        await stop.waitForGenerator()
        try await server.shutdown()
        FileHandle.standardError.write(Data("sluice demo: stopped; `sluice demo \(scenario.rawValue)` again resumes from \(dataDir)\n".utf8))
    }

    /// Starts the server with every listener at the addresses given.
    func startServer() async throws -> SluiceServer {
        let (sqlHost, sqlPort) = try parseAddress(listen)
        let (kafkaHost, kafkaPort) = try parseAddress(kafkaListen)
        let (catalogHost, catalogPort) = try parseAddress(catalogListen)
        let (httpHost, httpPort) = try parseAddress(dashboardListen)
        var configuration = ServerConfiguration()
        configuration.connectors = { BuiltInConnectors(lakehouse: $0) }
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
        (configuration.webhook!.host, configuration.webhook!.port) = try parseAddress(webhookListen)
        MemoryTuning.apply(memoryLimit: ServerConfiguration.defaultMemoryLimit)
        do {
            return try await SluiceServer.start(configuration)
        } catch let error as SluiceError {
            throw fail("demo: \(error.message)")
        } catch {
            throw fail("demo: could not start: \(error)")
        }
    }

    /// Runs `script`'s statements in order in a session of their own.
    static func run(_ script: String, on database: Database) async throws(SluiceError) {
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        defer { session.terminate() }
        for statement in try await session.prepare(script, parameterTypes: []) {
            _ = try await session.execute(statement, parameters: [])
        }
    }
}

/// The seeds' pipelines `sluice demo` runs.
enum DemoScenario: String, ExpressibleByArgument, CaseIterable, Sendable {
    case balloon, users, payments
    case gameAPI = "game-api"
    case cricket

    var topic: String {
        switch self {
        case .balloon: "balloon_game_events"
        case .users: "user-events"
        case .payments: "payment_charges"
        case .gameAPI: "events"
        case .cricket: CricketSeed.mongoTopic
        }
    }

    /// The relation the pipeline's SQL creates first: a run that finds it resumes.
    var firstRelation: String {
        switch self {
        case .balloon: "balloon_game_events"
        case .users: "user_events"
        case .payments: "payment_charges"
        case .gameAPI: "game_api_events"
        case .cricket: "t20_matches"
        }
    }

    var defaultRate: Double {
        switch self {
        case .balloon: 50
        case .users: 5
        case .payments: 20
        case .gameAPI: 24
        case .cricket: 2
        }
    }

    /// The seed's statements, filled in for these addresses.
    func scripts(kafka: String, catalog: String, dataDirectory: String) -> [String] {
        switch self {
        case .balloon:
            // Seed 000's template values, as its pyiceberg snippet reads them.
            let values = [
                "balloon_game_kafka_topic": "balloon_game_events", "balloon_game_kafka_bootstrap_servers": kafka,
                "balloon_game_db": "balloon_pops", "plf_catalog_name": "balloon-game", "plf_polaris_catalog_uri": "\(catalog)/api/catalog",
                "principal_client_id": "root", "principal_client_secret": "secret",
                // The warehouse is on the local disk: the seed's MinIO settings are kept, unused.
                "plf_aws_endpoint_url": "http://127.0.0.1:9000", "plf_aws_region": "us-east-1",
            ]
            return [SeedTemplate.fill(BalloonSeed.source, values), SeedTemplate.fill(BalloonSeed.sink, values)]
        case .users:
            // The seed's producer and SQL hard-code localhost:9092.
            return [UsersSeed.initSQL.replacingOccurrences(of: "'localhost:9092'", with: "'\(kafka)'")]
        case .payments:
            return [
                PaymentsSeed.adapted(PaymentsSeed.source, kafka: kafka) + ";", PaymentsSeed.adapted(PaymentsSeed.cleaned, kafka: kafka) + ";",
                "CREATE MATERIALIZED VIEW payment_features AS\n" + PaymentsSeed.adapted(PaymentsSeed.features, kafka: kafka) + ";",
            ]
        case .gameAPI:
            return [GameAPISeed.filled(kafka: kafka, landing: "\(dataDirectory)/game_events")]
        case .cricket:
            // The demo starts its PostgreSQL on a free port; printed, it is taken to be on 5432.
            let postgres = CricketSeed.Database(host: "127.0.0.1", port: 5432, name: "dev", user: "root")
            var warehouse = postgres
            warehouse.name = "warehouse"
            return CricketSeed.statements(
                kafka: kafka, yamlRoot: CricketDemo.yamlRoot(dataDirectory), upstream: postgres, warehouse: warehouse
            ).map { $0 + ";" }
        }
    }

    /// Produces the seed's events to its topic at `rate` a second until `stopRequested`.
    func generate(rate: Double, bootstrap: String, stopRequested: @escaping () -> Bool) throws {
        var sink = try KafkaGenOutput(bootstrap: bootstrap, topic: topic, partitions: nil)
        let run = GenRun(name: rawValue, count: nil, duration: nil, rate: rate, quiet: true)
        let seed = UInt64.random(in: 1 ... UInt64(UInt32.max))
        switch self {
        case .balloon:
            var configuration = BalloonGenerator.Configuration()
            (configuration.seed, configuration.timeline, configuration.eventsPerSecond) = (seed, .wallClock, rate)
            var events = BalloonGenerator(configuration)
            try run.drive(&events, into: &sink, destination: topic, stopRequested: stopRequested)
        case .users:
            var configuration = UserCDCGenerator.Configuration()
            (configuration.seed, configuration.timeline, configuration.eventsPerSecond) = (seed, .wallClock, rate)
            // Ten users rather than the producer's three, so the view rarely empties.
            configuration.users = 10
            var events = UserCDCGenerator(configuration)
            try run.drive(&events, into: &sink, destination: topic, stopRequested: stopRequested)
        case .payments:
            var configuration = PaymentsGenerator.Configuration()
            (configuration.seed, configuration.timeline, configuration.eventsPerSecond) = (seed, .wallClock, rate)
            var events = PaymentsGenerator(configuration)
            try run.drive(&events, into: &sink, destination: topic, stopRequested: stopRequested)
        case .gameAPI:
            var configuration = GameAPIGenerator.Configuration()
            (configuration.seed, configuration.timeline, configuration.eventsPerSecond) = (seed, .wallClock, rate)
            var events = GameAPIGenerator(configuration)
            try run.drive(&events, into: &sink, destination: topic, stopRequested: stopRequested)
        case .cricket:
            // Three upstreams, not one topic: CricketDemo drives them.
            preconditionFailure("the cricket demo runs its own generator")
        }
    }

    func banner(
        sql: (String, Int), kafka: String, catalog: String, dashboard: String, rate: Double, resuming: Bool, dataDirectory: String
    ) -> String {
        let what: String
        let query: String
        var extra = ""
        switch self {
        case .balloon:
            what = "seed 000's balloon game: \(Self.number(rate)) pops a second into topic balloon_game_events,\n  five materialized views, five Iceberg tables in the built-in catalog"
            query = "SELECT * FROM mv_leaderboard ORDER BY total_score DESC;"
            extra = """
                  Iceberg     \(catalog)/api/catalog   warehouse balloon-game, credential root:secret
                              The sinks commit every 10 checkpoints (10 s). Seed 000's snippet, in Python:

                                from pyiceberg.catalog.rest import RestCatalog
                                catalog = RestCatalog(name="balloon-game", uri="\(catalog)/api/catalog",
                                    credential="root:secret", warehouse="balloon-game", scope="PRINCIPAL_ROLE:ALL")
                                print(catalog.load_table("balloon_pops.leaderboard").scan().to_arrow())

                """
        case .users:
            what = "seed 001's user changes: \(Self.number(rate)) inserts, updates and deletes a second into topic user-events,\n  and the view of each user's latest state"
            query = "SELECT * FROM latest_user_state ORDER BY id;"
        case .gameAPI:
            what = "seed 002's game API: \(Self.number(rate)) game events a second into topic events, filtered by a view,\n  landed as Parquet by event type every 10 s in \(dataDirectory)/game_events"
            query = "SELECT event_type, count(*) FROM hive_events GROUP BY event_type;"
        case .payments:
            what = "seed 004's payments: \(Self.number(rate)) charges a second into topic payment_charges, cleaned,\n  with one-hour rolling fraud features per customer"
            query = "SELECT * FROM payment_features ORDER BY total_amount_1h DESC LIMIT 10;"
        case .cricket:
            what = "seed 003's cricket matches"
            query = "SELECT format, count(*) FROM match_metadata GROUP BY format;"
        }
        return """

              Sluice is running \(what)\(resuming ? "\n  (resumed from \(dataDirectory))" : "").

              Dashboard   \(dashboard)
              SQL         psql -h \(sql.0) -p \(sql.1) -d dev -U root
                          \(query)
              Kafka       \(kafka)   (kcat -b \(kafka) -t \(topic) -C -o end)
            \(extra)
              Ctrl-C stops it cleanly; `sluice demo \(rawValue)` again resumes from the same data directory.


            """
    }

    private static func number(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(rate)
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
