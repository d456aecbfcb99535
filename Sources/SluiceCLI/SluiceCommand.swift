import Foundation
import NIOCore
import SluiceBroker
import SluiceCommandLine
import SluiceConnectors
import SluiceCore
import SluicePGWire
import SluiceServer
import SluiceState
import Synchronization

/// The command line: `sluice` and its subcommands. The executable adds `sluice bench`
/// (``benchmarks``), which the command line does not import, so that the two compile side by
/// side.
package struct Sluice: AsyncParsableCommand {
    package static var configuration: CommandConfiguration {
        CommandConfiguration(
            abstract: "A streaming SQL database in one binary.",
            subcommands: [Serve.self, Demo.self, SQLClient.self, Broker.self, Topic.self, Produce.self, Consume.self, Gen.self]
                + benchmarks.withLock { $0 } + [Fuzz.self])
    }

    /// The `bench` command, set by the executable before ``main()``.
    package static let benchmarks = Mutex<[any ParsableCommand.Type]>([])

    package init() {}
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve SQL over the Postgres wire protocol (psql -h localhost -p 4566 -d dev -U root).")

    @Option(help: "Address for the SQL (Postgres protocol) endpoint.")
    var listen = "127.0.0.1:4566"

    @Option(help: "Milliseconds between barriers: how often materialized views show new writes.")
    var barrierIntervalMs = 1000

    @Option(help: ArgumentHelp(
        "Barriers per checkpoint (RisingWave's checkpoint_frequency).",
        discussion: "Every Nth barrier writes what each table, view and operator changed since the last checkpoint, with the sources' positions, under <data-dir>/state; after a crash the server restarts from the last one and replays the write-ahead log after it. Table writes are durable when acknowledged either way (the log)."))
    var checkpointFrequency = 1

    @Option(help: ArgumentHelp(
        "Bytes of state kept in memory, such as 512MB or 4GiB (default: half of the machine's memory).",
        discussion: "It bounds the server's resident memory: the state's pages (views, join sides, aggregates' groups and ordered state) may take what the rest of the process does not, and never less than half the limit. Past that, the coldest pages are written to <data-dir>/spill and read back when next used, and an epoch ends early once its changes pass a 32nd of the limit, so a view larger than memory keeps running near the limit."))
    var memoryLimit: String?

    @Option(help: "Directory for durable state.")
    var dataDir = "./sluice-data"

    @Option(help: ArgumentHelp(
        "How SQL clients on other addresses than loopback log in: trust, password or scram.",
        discussion: "Users are the catalog's roles (CREATE USER name WITH PASSWORD '…'). With trust, a role logs in without a password; auto trusts only the roles that have none; password takes it in clear text (use it with TLS only); scram is SCRAM-SHA-256."))
    var auth: AuthMethodArgument = .scram

    @Option(help: ArgumentHelp(
        "How SQL clients on a loopback address log in: auto, trust, password or scram.",
        discussion: "auto (the default) lets a role without a password in without one (root, until it is given one) and asks a role with a password for it, by SCRAM-SHA-256; trust lets anyone in as any role. Kafka clients, the dashboard and the schema registry on loopback follow the same rule."))
    var authLoopback: AuthMethodArgument = .auto

    @Flag(help: "Allow --auth trust on an address other than loopback: anyone who reaches the port is whoever they say.")
    var insecureTrust = false

    @Option(help: ArgumentHelp(
        "A PEM file with the server's TLS certificate (and its chain), for every port.",
        discussion: "With --tls-key, the SQL port answers SSLRequest (psql's sslmode=require or verify-full) and refuses clients on other addresses than loopback that do not use TLS; the dashboard, /metrics and the Iceberg catalog serve HTTPS only; the broker opens an SSL listener (--kafka-ssl-listen)."))
    var tlsCert: String?

    @Option(help: "The PEM file of the TLS certificate's private key.")
    var tlsKey: String?

    @Flag(help: "Refuse SQL clients on loopback that do not use TLS too.")
    var requireTLSOnLoopback = false

    @Option(help: "Address of the broker's SSL listener, with --tls-cert (default: --kafka-listen's host, port 9093).")
    var kafkaSSLListen: String?

    @Option(help: "Address for the built-in Kafka-compatible broker.")
    var kafkaListen = "127.0.0.1:9092"

    @Flag(help: "Run without the built-in broker.")
    var noBroker = false

    @OptionGroup(title: "Built-in broker")
    var broker: BrokerOptions

    @OptionGroup(title: "Iceberg REST catalog and warehouse")
    var lakehouse: LakehouseOptions

    @OptionGroup(title: "Dashboard and metrics")
    var http: HTTPOptions

    @OptionGroup(title: "Other engines' front doors")
    var frontDoors: FrontDoorOptions
    @OptionGroup(title: "Trino protocol")
    var trino: TrinoOptions
    @OptionGroup(title: "ksqlDB REST API")
    var ksql: KsqlOptions

    func run() async throws {
        var configuration = ServerConfiguration()
        configuration.connectors = { BuiltInConnectors(lakehouse: $0) }
        try http.apply(to: &configuration)
        try frontDoors.apply(to: &configuration)
        try trino.apply(to: &configuration)
        try ksql.apply(to: &configuration)
        if noBroker {
            configuration.broker = nil
        } else {
            let (kafkaHost, kafkaPort) = try parseAddress(kafkaListen)
            configuration.broker?.host = kafkaHost
            configuration.broker?.port = kafkaPort
            if tlsCert != nil {
                let (sslHost, sslPort) = try kafkaSSLListen.map(parseAddress) ?? (kafkaHost, 9093)
                configuration.broker?.listeners.append(BrokerListener(name: "SSL", host: sslHost, port: sslPort, tls: true))
            } else if kafkaSSLListen != nil {
                throw ValidationError("--kafka-ssl-listen needs --tls-cert and --tls-key")
            }
            if configuration.broker != nil { try broker.apply(to: &configuration.broker!) }
        }
        try lakehouse.apply(to: &configuration)
        let (host, port) = try parseAddress(listen)
        configuration.sqlHost = host
        configuration.sqlPort = port
        configuration.loopbackAuthentication = authLoopback.method
        configuration.otherAuthentication = auth.method
        if auth.method.admitsPasswordless, !SluiceServer.isLoopbackHost(host), !insecureTrust {
            throw ValidationError("refusing --auth \(auth.rawValue) on \(host), which other machines can reach: anyone could log in as a user without a password. Use --auth scram (the default) with CREATE USER … WITH PASSWORD, or --insecure-trust if that is what you want.")
        }
        switch (tlsCert, tlsKey) {
        case (let certificate?, let key?):
            var settings = TLSSettings(certificatePath: certificate, keyPath: key)
            settings.requiredOnLoopback = requireTLSOnLoopback
            configuration.tls = settings
        case (nil, nil):
            if requireTLSOnLoopback { throw ValidationError("--require-tls-on-loopback needs --tls-cert and --tls-key") }
            if !SluiceServer.isLoopbackHost(host) {
                FileHandle.standardError.write(Data("sluice: warning: serving SQL on \(host) without TLS: SCRAM keeps passwords safe, but queries and rows cross the network in clear; give --tls-cert and --tls-key\n".utf8))
            }
        default:
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        configuration.dataDirectory = dataDir
        guard barrierIntervalMs > 0 else { throw ValidationError("--barrier-interval-ms must be positive") }
        configuration.barrierIntervalMilliseconds = barrierIntervalMs
        guard checkpointFrequency > 0 else { throw ValidationError("--checkpoint-frequency must be positive") }
        configuration.checkpointFrequency = checkpointFrequency
        if let memoryLimit {
            guard let bytes = StateMemory.parseSize(memoryLimit), bytes > 0 else {
                throw ValidationError("--memory-limit must be a size such as 512MB or 4GiB, not \"\(memoryLimit)\"")
            }
            configuration.memoryLimit = bytes
        }
        let memoryLimit = configuration.memoryLimit ?? StateMemory.defaultLimit
        MemoryTuning.apply(memoryLimit: memoryLimit)
        let server: SluiceServer
        do {
            server = try await SluiceServer.start(configuration)
        } catch let error as SluiceError {
            FileHandle.standardError.write(Data("sluice: \(error.message)\n".utf8))
            throw ExitCode(1)
        } catch {
            FileHandle.standardError.write(Data("sluice: could not start: \(error)\n".utf8))
            throw ExitCode(1)
        }
        var kafka = ""
        if let broker = server.broker {
            kafka = ", Kafka on \(broker.configuration.host):\(broker.port)"
            if let ssl = broker.configuration.listeners.first(where: \.tls), let port = broker.port(of: ssl.name) { kafka += " (SSL on \(ssl.host):\(port))" }
        }
        if let port = server.catalogPort, let catalog = configuration.catalog { kafka += ", Iceberg REST catalog on \(catalog.host):\(port)" }
        if let port = server.httpPort, let settings = configuration.http { kafka += ", dashboard on http://\(settings.host):\(port)/" }
        if let port = server.trino?.port, let settings = configuration.trino { kafka += ", Trino protocol on \(settings.host):\(port)" }
        FileHandle.standardError.write(Data("sluice: serving SQL on \(host):\(server.sqlServer.port)\(kafka) (data in \(dataDir), memory limit \(memoryLimit >> 20) MiB)\n".utf8))
        await waitForTerminationSignal()
        FileHandle.standardError.write(Data("sluice: shutting down\n".utf8))
        try await server.shutdown()
    }
}

struct Broker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the built-in Kafka-compatible broker alone.")

    @Option(help: "Address to serve the Kafka protocol on.")
    var listen = "127.0.0.1:9092"

    @Option(help: "Directory for the topics' logs.")
    var dataDir = "./sluice-data/broker"

    @OptionGroup
    var options: BrokerOptions

    func run() async throws {
        MemoryTuning.apply()
        var configuration = BrokerConfiguration()
        (configuration.host, configuration.port) = try parseAddress(listen)
        configuration.dataDirectory = dataDir
        try options.apply(to: &configuration)
        let broker: KafkaBroker
        do {
            broker = try KafkaBroker(configuration: configuration)
            try await broker.start()
        } catch {
            FileHandle.standardError.write(Data("sluice: could not start the broker: \(error)\n".utf8))
            throw ExitCode(1)
        }
        FileHandle.standardError.write(Data("sluice: serving Kafka on \(configuration.host):\(broker.port) (data in \(dataDir))\n".utf8))
        await waitForTerminationSignal()
        FileHandle.standardError.write(Data("sluice: shutting down\n".utf8))
        await broker.shutdown()
    }
}

/// Parses `host:port`.
func parseAddress(_ text: String) throws -> (String, Int) {
    guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0 ... 65535).contains(port) else {
        throw ValidationError("expected HOST:PORT, got \(text)")
    }
    return (String(text[..<colon]), port)
}

/// Returns when the process receives SIGINT or SIGTERM.
func waitForTerminationSignal() async {
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    let sources = [SIGINT, SIGTERM].map { DispatchSource.makeSignalSource(signal: $0, queue: .main) }
    // The sources must outlive the wait: an optimized build would otherwise release them (and
    // the continuation their handlers hold) as soon as they are set up, leaving both signals
    // ignored.
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumed = LockedFlag()
        for source in sources {
            source.setEventHandler {
                if resumed.set() { continuation.resume() }
            }
            source.resume()
        }
    }
    withExtendedLifetime(sources) {}
}

/// A flag that can be set once, from any thread.
final class LockedFlag: Sendable {
    private let isSet = Atomic<Bool>(false)

    /// Sets the flag; true the first time only.
    func set() -> Bool {
        isSet.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
    }
}

/// `--auth` and `--auth-loopback`.
enum AuthMethodArgument: String, ExpressibleByArgument, CaseIterable {
    case auto, trust, password, scram

    var method: PGAuthMethod {
        switch self {
        case .auto: .auto
        case .trust: .trust
        case .password: .password
        case .scram: .scram
        }
    }
}
