import Foundation
import SluiceAuth
import SluiceConnectors
import SluiceCore
import SluiceBroker
import SluiceKafkaClient
import SluiceServer

/// `sluice bench security`: what security costs.
/// - TLS on the SQL port: `COPY table TO STDOUT` of N rows through psql, in clear and over TLS
///   (sslmode=require), a certificate made by `openssl` for the run.
/// - SCRAM-SHA-256: the server's work per password login (one PBKDF2 of 4096 rounds).
/// - Privileges: binding a query as a granted user beside binding it as the superuser.
/// - The broker: records produced and fetched by librdkafka, logged in with SCRAM-SHA-256, over
///   SASL_PLAINTEXT and over SASL_SSL (``BrokerSecurityFigures``).
/// Goal: privileges cost binding nothing measurable, and TLS leaves the SQL port and fetches
/// within 10% of their throughput in clear.
package struct SecurityBenchmark {
    package var rows: Int
    package var records: Int
    package var runs: Int

    package init(rows: Int, records: Int, runs: Int) {
        self.rows = rows
        self.records = records
        self.runs = runs
    }

    package func run() async throws {
        report("sluice bench security: TLS, SCRAM and privileges; medians of \(runs) runs")
        let directory = try benchDirectory(named: "security")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificate = try Self.makeCertificate(in: directory)

        var configuration = ServerConfiguration()

        configuration.connectors = { BuiltInConnectors(lakehouse: $0) }
        configuration.sqlPort = 0
        configuration.dataDirectory = "\(directory)/data"
        configuration.catalog = nil
        configuration.http = nil
        configuration.broker?.port = 0
        configuration.tls = TLSSettings(certificatePath: certificate.certificate, keyPath: certificate.key)
        configuration.loopbackAuthentication = .scram
        configuration.broker?.listeners.append(BrokerListener(name: "SSL", host: "127.0.0.1", port: 0, tls: true))
        let server = try await SluiceServer.start(configuration)
        defer { Task { try? await server.shutdown() } }
        let root = SQLSession(database: server.database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await root.execute(script: """
            ALTER USER root WITH PASSWORD 'bench-root';
            CREATE USER reader WITH PASSWORD 'bench-reader';
            CREATE TABLE wide AS SELECT g AS id, g % 1000 AS bucket, 'row number ' || g AS label, g * 0.5 AS amount FROM generate_series(1, \(rows)) AS g;
            GRANT SELECT ON wide TO reader;
            """)
        try await sqlFigures(port: server.sqlServer.port)
        scramFigures()
        try await bindFigures(database: server.database)
        if let broker = server.broker {
            try await BrokerSecurityFigures(records: records, runs: runs, certificateAuthority: certificate.certificate)
                .run(plainPort: broker.port, sslPort: broker.port(of: "SSL") ?? 0)
        }
        try await server.shutdown()
    }

    /// `COPY wide TO STDOUT` through psql, plain and over TLS.
    private func sqlFigures(port: Int) async throws {
        var plain: [Double] = []
        var encrypted: [Double] = []
        var bytes = 0
        for run in 0 ..< runs * 2 {
            let tls = run % 2 == 1
            BenchProgress.detail("COPY \(rows) rows \(tls ? "over TLS" : "in clear")")
            let start = ContinuousClock.now
            bytes = try Self.psqlCopy(port: port, sslmode: tls ? "require" : "disable")
            let seconds = (ContinuousClock.now - start).inSeconds
            if tls { encrypted.append(seconds) } else { plain.append(seconds) }
        }
        let plainMedian = plain.sorted()[plain.count / 2]
        let tlsMedian = encrypted.sorted()[encrypted.count / 2]
        let megabytes = Double(bytes) / 1_000_000
        report(String(format: "  SQL COPY TO STDOUT, %d rows (%.0f MB) through psql", rows, megabytes))
        report(String(format: "    in clear  %7.2f s  %8.1f MB/s  %10.0f rows/s", plainMedian, megabytes / plainMedian, Double(rows) / plainMedian))
        report(String(format: "    TLS       %7.2f s  %8.1f MB/s  %10.0f rows/s", tlsMedian, megabytes / tlsMedian, Double(rows) / tlsMedian))
        report(String(format: "    TLS costs %.1f%% of the SQL port's throughput", (tlsMedian / plainMedian - 1) * 100))
    }

    /// The server's side of a SCRAM login: deriving a verifier's keys from a password.
    private func scramFigures() {
        let salt = [UInt8](repeating: 7, count: 16)
        var times: [Double] = []
        for round in 0 ..< 21 {
            let start = ContinuousClock.now
            let verifier = SCRAMVerifier(password: "password \(round)", salt: salt)
            times.append((ContinuousClock.now - start).inSeconds)
            precondition(verifier.storedKey.count == 32)
        }
        let median = times.sorted()[10]
        report(String(format: "  SCRAM-SHA-256 with %d iterations: %.2f ms per derivation (%.0f a second on one core)",
                      SCRAMVerifier.defaultIterations, median * 1000, 1 / median))
    }

    /// Preparing (parsing and binding) one query many times as `root` (a superuser: no check)
    /// and as `reader` (its grant looked up for each relation the query reads).
    private func bindFigures(database: Database) async throws {
        let sql = "SELECT bucket, sum(amount) FROM wide WHERE id > 10 GROUP BY bucket"
        var figures: [String: Double] = [:]
        for user in ["root", "reader"] {
            let session = SQLSession(database: database, user: user, databaseName: "dev", parameters: [:])
            defer { session.terminate() }
            var times: [Double] = []
            // A warm-up round first, so that neither user pays for the first binds.
            for round in 0 ... runs {
                let start = ContinuousClock.now
                for _ in 0 ..< 5_000 { _ = try await session.prepare(sql, parameterTypes: []) }
                if round == 0 { continue }
                times.append((ContinuousClock.now - start).inSeconds / 5_000)
            }
            figures[user] = times.sorted()[times.count / 2]
        }
        report(String(format: "  preparing a GROUP BY query: %.1f µs as a superuser, %.1f µs as a granted user (privileges cost %.1f%%)",
                      figures["root"]! * 1e6, figures["reader"]! * 1e6, (figures["reader"]! / figures["root"]! - 1) * 100))
    }

    /// Runs psql's COPY to /dev/null-like counting; returns the bytes it wrote.
    private static func psqlCopy(port: Int, sslmode: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "host=localhost port=\(port) dbname=dev user=reader sslmode=\(sslmode)", "-X", "-q", "-c", "COPY wide TO STDOUT"]
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = "bench-reader"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var bytes = 0
        let handle = pipe.fileHandleForReading
        while true {
            let data = handle.readData(ofLength: 1 << 20)
            if data.isEmpty { break }
            bytes += data.count
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw SluiceError(.ioError, "psql failed (is the postgresql-client package installed?)") }
        return bytes
    }

    /// A self-signed certificate for `localhost`, made by the openssl command.
    static func makeCertificate(in directory: String) throws -> (certificate: String, key: String) {
        let certificate = "\(directory)/server.pem"
        let key = "\(directory)/server.key"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw SluiceError(.ioError, "openssl could not make a certificate") }
        return (certificate, key)
    }
}

/// The broker's part of `sluice bench security`: N records of 100 bytes produced and then
/// fetched by librdkafka with SASL/SCRAM-SHA-256, on the plain listener and on the SSL one.
struct BrokerSecurityFigures {
    let records: Int
    let runs: Int
    let certificateAuthority: String

    func run(plainPort: Int, sslPort: Int) async throws {
        var plain: [(produce: Double, fetch: Double)] = []
        var secure: [(produce: Double, fetch: Double)] = []
        for run in 0 ..< runs * 2 {
            let tls = run % 2 == 1
            BenchProgress.detail("Kafka \(records) records \(tls ? "over SASL_SSL" : "in clear")")
            // Both log in with SCRAM (loopback asks for passwords here): the difference is TLS.
            var properties = ["security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "SCRAM-SHA-256", "sasl.username": "root", "sasl.password": "bench-root"]
            if tls {
                properties["security.protocol"] = "SASL_SSL"
                properties["ssl.ca.location"] = certificateAuthority
            }
            let bootstrap = "localhost:\(tls ? sslPort : plainPort)"
            let figures = try produceAndFetch(bootstrap: bootstrap, topic: "bench_\(run)", properties: properties)
            if tls { secure.append(figures) } else { plain.append(figures) }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let megabytes = Double(records * 100) / 1_000_000
        report(String(format: "  Kafka, %d records of 100 bytes (%.0f MB), librdkafka", records, megabytes))
        for (label, figures) in [("SASL_PLAINTEXT", plain), ("SASL_SSL      ", secure)] {
            let produce = median(figures.map(\.produce))
            let fetch = median(figures.map(\.fetch))
            report(String(format: "    %@  produce %6.2f s %10.0f records/s   fetch %6.2f s %10.0f records/s", label as NSString,
                          produce, Double(records) / produce, fetch, Double(records) / fetch))
        }
        let produceCost = median(secure.map(\.produce)) / median(plain.map(\.produce)) - 1
        let fetchCost = median(secure.map(\.fetch)) / median(plain.map(\.fetch)) - 1
        report(String(format: "    TLS costs %.1f%% of produce throughput and %.1f%% of fetch throughput", produceCost * 100, fetchCost * 100))
    }

    private func produceAndFetch(bootstrap: String, topic: String, properties: [String: String]) throws -> (produce: Double, fetch: Double) {
        let value = [UInt8](repeating: 0x61, count: 100)
        let producer = try KafkaProducer(bootstrapServers: bootstrap, properties: properties.merging(["linger.ms": "5", "acks": "1"]) { a, _ in a })
        let start = ContinuousClock.now
        for _ in 0 ..< records {
            while true {
                do {
                    try producer.produce(topic: topic, partition: 0, key: nil, value: value)
                    break
                } catch {
                    // The local queue is full: serve delivery reports, then try again.
                    _ = producer.poll(timeout: .milliseconds(1))
                }
            }
        }
        try producer.flush(timeout: .seconds(300))
        let produced = (ContinuousClock.now - start).inSeconds
        try? producer.close()

        let consumer = try KafkaConsumer(bootstrapServers: bootstrap, properties: properties)
        defer { consumer.close() }
        try consumer.assign([KafkaAssignment(topic: topic, partition: 0, offset: .earliest)])
        let fetchStart = ContinuousClock.now
        var fetched = 0
        while fetched < records {
            consumer.poll(timeout: .milliseconds(100)) { batch in fetched += batch.count }
            if (ContinuousClock.now - fetchStart) > .seconds(300) { throw SluiceError(.ioError, "fetched \(fetched) of \(records) records") }
        }
        return (produced, (ContinuousClock.now - fetchStart).inSeconds)
    }
}
