import Foundation
import SluiceCore
import SluiceGen
import SluiceKafkaClient
import SluicePostgresClient
import SluiceServer
import Synchronization

/// `sluice demo cricket`: seed 003's pipeline with its upstreams live. A throwaway PostgreSQL
/// (Debian's binaries, `wal_level = logical`) holds the upstream table `odi_matches` in
/// database `dev` and the warehouse in database `warehouse`; the server reads the ODI rows by
/// CDC, the T20 documents from Debezium-shaped MongoDB events on a topic, and the Test matches
/// from YAML files; views split them into three streams, Kafka sinks write the streams to three
/// topics, and upsert sinks dump each topic into the warehouse. A generator adds matches to the
/// three upstreams in turn, each as one transaction, message or file, and now and then repeats a
/// T20 event and uploads a YAML file again, as the seed's sources may; the warehouse keeps one
/// row per key. The PostgreSQL lives as long as the demo, so a second run starts afresh.
struct CricketDemo {
    let command: Demo
    let kafka: String
    let dataDirectory: String

    /// Where the Test matches' YAML files land.
    static func yamlRoot(_ dataDirectory: String) -> String { "\(dataDirectory)/cricket/test_matches" }

    func run() async throws {
        let postgres = try startPostgres()
        let server: SluiceServer
        do {
            server = try await command.startServer()
        } catch {
            postgres?.stop()
            throw error
        }
        guard server.database.catalog.relation(named: DemoScenario.cricket.firstRelation) == nil else {
            try? await server.shutdown()
            postgres?.stop()
            throw fail("demo: \(command.dataDir) already holds a cricket pipeline, whose PostgreSQL is gone; give another --data-dir")
        }
        let yamlRoot = Self.yamlRoot(dataDirectory)
        do {
            try FileManager.default.createDirectory(atPath: yamlRoot, withIntermediateDirectories: true)
            if let broker = server.broker, broker.topics.topic(CricketSeed.mongoTopic) == nil {
                _ = try? broker.topics.create(CricketSeed.mongoTopic, partitions: 1)
            }
            let upstream = postgres.map { CricketSeed.Database(host: "127.0.0.1", port: $0.port, name: "dev", user: "root") }
            let warehouse = postgres.map { CricketSeed.Database(host: "127.0.0.1", port: $0.port, name: "warehouse", user: "root") }
            for statement in CricketSeed.statements(kafka: kafka, yamlRoot: yamlRoot, upstream: upstream, warehouse: warehouse) {
                try await Demo.run(statement, on: server.database)
            }
        } catch {
            try? await server.shutdown()
            postgres?.stop()
            throw fail("demo: the cricket pipeline failed: \((error as? SluiceError)?.message ?? "\(error)")")
        }

        let rate = command.rate ?? DemoScenario.cricket.defaultRate
        let stop = CricketStop()
        let postgresPort = postgres?.port
        let generator = Thread { [kafka] in
            do {
                var upstreams = try CricketUpstreams(kafka: kafka, postgresPort: postgresPort, yamlRoot: yamlRoot)
                try upstreams.generate(rate: rate, stopRequested: { stop.isRequested })
            } catch {
                FileHandle.standardError.write(Data("sluice demo: the generator stopped: \(error)\n".utf8))
            }
            stop.finished()
        }
        generator.start()
        FileHandle.standardOutput.write(Data(banner(server: server, postgresPort: postgres?.port, rate: rate).utf8))
        await waitForTerminationSignal()
        FileHandle.standardError.write(Data("sluice demo: stopping\n".utf8))
        stop.request()
        while !stop.isFinished { try? await Task.sleep(for: .milliseconds(20)) }
        try await server.shutdown()
        postgres?.stop()
        FileHandle.standardError.write(Data("sluice demo: stopped\n".utf8))
    }

    /// A PostgreSQL with the upstream table in `dev` and the warehouse's tables in `warehouse`;
    /// nil with `--no-postgres` or when PostgreSQL is not installed.
    private func startPostgres() throws -> PostgresReference? {
        guard !command.noPostgres else { return nil }
        guard let binaries = PostgresReference.binaryDirectory() else {
            FileHandle.standardError.write(Data("sluice demo: PostgreSQL is not installed (apt install postgresql); going on without the ODI upstream and the warehouse\n".utf8))
            return nil
        }
        let postgres = try PostgresReference.start(binaries: binaries, settings: ["wal_level=logical", "max_replication_slots=16", "max_wal_senders=16"])
        do throws(SluiceError) {
            let upstream = try PostgresConnection(postgres.settings())
            defer { upstream.close() }
            _ = try upstream.execute(CricketSeed.upstreamTable)
            _ = try upstream.execute("CREATE DATABASE warehouse")
            let warehouse = try PostgresConnection(postgres.settings(database: "warehouse"))
            defer { warehouse.close() }
            for table in CricketSeed.warehouseTables { _ = try warehouse.execute(table) }
        } catch {
            postgres.stop()
            throw fail("demo: preparing PostgreSQL failed: \(error.message)")
        }
        return postgres
    }

    private func banner(server: SluiceServer, postgresPort: Int?, rate: Double) -> String {
        let (sqlHost, _) = (try? parseAddress(command.listen)) ?? ("127.0.0.1", 4566)
        let (httpHost, httpPort) = (try? parseAddress(command.dashboardListen)) ?? ("127.0.0.1", 5691)
        let host = sqlHost == "127.0.0.1" ? "localhost" : sqlHost
        let postgres = postgresPort.map { port in
            """
              Upstream    psql -h 127.0.0.1 -p \(port) -d dev -U root        (table odi_matches, read by CDC)
              Warehouse   psql -h 127.0.0.1 -p \(port) -d warehouse -U root  (match_metadata, players, innings)
                          postgresql://root@127.0.0.1:\(port)/warehouse


            """
        } ?? "  (no PostgreSQL: no ODI matches, no warehouse)\n\n"
        return """

              Sluice is running seed 003's cricket pipeline: \(rate == rate.rounded() ? String(Int(rate)) : String(rate)) matches a second
              into three upstreams (ODI rows in PostgreSQL, T20 documents as Debezium MongoDB events on topic
              \(CricketSeed.mongoTopic), Test matches as YAML files in \(Self.yamlRoot(dataDirectory))),
              split into topics match_metadata, players and innings, and dumped into the warehouse.

              Dashboard   http://\(httpHost):\(server.httpPort ?? httpPort)/
              SQL         psql -h \(host) -p \(server.sqlServer.port) -d dev -U root
                          SELECT format, count(*) FROM match_metadata GROUP BY format;
              Kafka       \(kafka)   (kcat -b \(kafka) -t innings -C -o end)
            \(postgres)  Ctrl-C stops it cleanly (and removes the demo's PostgreSQL).


            """
    }
}

/// The generator thread's stop request and its end.
private final class CricketStop: Sendable {
    private let requested = Atomic<Bool>(false)
    private let done = Atomic<Bool>(false)

    var isRequested: Bool { requested.load(ordering: .relaxed) }
    var isFinished: Bool { done.load(ordering: .acquiring) }
    func request() { requested.store(true, ordering: .relaxed) }
    func finished() { done.store(true, ordering: .releasing) }
}
