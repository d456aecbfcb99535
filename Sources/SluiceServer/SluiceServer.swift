import Foundation
import NIOCore
import NIOPosix
import SluiceAuth
import SluiceBroker
import SluiceCore
import SluiceDataflow
import SluiceHTTP
import SluiceLakehouse
import SluiceLakehouseClients
import SluiceNet
import SluicePGWire
import SluiceState

/// Configuration of `sluice serve`.
package struct ServerConfiguration: Sendable {
    package var sqlHost = "127.0.0.1"
    package var sqlPort = 4566
    package var dataDirectory: String? = "./sluice-data"
    /// How SQL clients prove who they are: clients on a loopback address, and the others. The
    /// users are the catalog's roles (`root`, a superuser without a password, from the start).
    package var loopbackAuthentication = PGAuthMethod.auto
    package var otherAuthentication = PGAuthMethod.scram
    /// Milliseconds between barriers (RisingWave's `barrier_interval_ms`).
    package var barrierIntervalMilliseconds = 1000
    /// Barriers per state checkpoint (RisingWave's `checkpoint_frequency`).
    package var checkpointFrequency = 1
    /// Bytes of state pages kept in memory (`--memory-limit`); nil: ``defaultMemoryLimit``.
    package var memoryLimit: Int?
    /// The memory limit without `--memory-limit`: half of the machine's memory.
    package static var defaultMemoryLimit: Int { StateMemory.defaultLimit }
    /// The built-in Kafka-compatible broker; nil to run without it. Its data directory is
    /// `<dataDirectory>/broker` unless set.
    package var broker: BrokerConfiguration? = BrokerConfiguration()
    /// The built-in Iceberg REST catalog; nil to run without it (sinks can still name an
    /// outside catalog by `catalog.uri`).
    package var catalog: CatalogConfiguration? = CatalogConfiguration()
    /// The HTTP app (dashboard, `/metrics`, `/health`, `/ready`); nil to run without it. `sluice
    /// serve` puts it on 127.0.0.1:5691.
    package var http: HTTPConfiguration?
    /// TLS on every port (`--tls-cert`, `--tls-key`); nil: none.
    package var tls: TLSSettings?
    /// The webhook listener (`--webhook-listen`, RisingWave's port 4560); nil to run without it.
    package var webhook: WebhookConfiguration? = WebhookConfiguration()
    /// The built-in schema registry (`--schema-registry-listen`, Confluent's port 8081); nil to
    /// run without it (`sluice serve` runs it).
    package var schemaRegistry: SchemaRegistryConfiguration?
    /// Flink's SQL Gateway REST API (`--flink-gateway-listen`, Flink's port 8083); nil to run
    /// without it (`sluice serve` runs it).
    package var flinkGateway: FrontDoorAddress?
    /// `--host-alias name:port=host:port`: addresses in connectors' options reached elsewhere.
    package var hostAliases: [(from: String, to: String)] = []
    /// Trino's client protocol (`--trino-listen`, Trino's port 8080); nil to run without it
    /// (`sluice serve` runs it).
    package var trino: TrinoConfiguration?
    /// The ksqlDB door (`--ksql-listen`, ksqlDB's port 8088); nil to run without it.
    package var ksql: KsqlConfiguration?
    /// The connectors of its sources and sinks, over the server's lakehouse (the built-in
    /// Iceberg catalog and S3 settings): Sluice's own are `BuiltInConnectors`, given by what
    /// starts the server (`sluice serve`); none by default.
    package var connectors: @Sendable (Lakehouse) -> any ConnectorKit = { _ in NoConnectors() }

    package init() {}
}

/// No connector at all: a CREATE naming one is refused (0A000).
package struct NoConnectors: ConnectorKit {
    package init() {}

    package func makeSource(_ description: SourceDescription, validate: Bool) throws(SluiceError) -> any SourceConnector {
        throw SluiceError(.featureNotSupported, "connector \"\(description.options["connector"] ?? "")\" is not available")
    }

    package func makeSink(_ description: SinkDescription, validate: Bool) throws(SluiceError) -> any StreamSink {
        throw SluiceError(.featureNotSupported, "sink connector \"\(description.options["connector"] ?? "")\" is not available")
    }
}

/// Where the built-in schema registry listens.
package struct SchemaRegistryConfiguration: Sendable {
    package var host = "127.0.0.1"
    package var port = 8081

    package init() {}
}

/// Where one of the other engines' front doors listens.
package struct FrontDoorAddress: Sendable {
    package var host: String
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

/// Where webhook requests are taken, and how large a body may be.
package struct WebhookConfiguration: Sendable {
    package var host = "127.0.0.1"
    package var port = 4560
    package var maximumBodyBytes = 16 << 20

    package init() {}
}

/// Where the HTTP app listens (`--dashboard-listen`, `--metrics-listen`).
package struct HTTPConfiguration: Sendable {
    package var host = "127.0.0.1"
    package var port = 5691
    /// A second address for `/metrics` alone; nil: the dashboard's port serves it.
    package var metricsAddress: (host: String, port: Int)?

    package init() {}
}

/// The built-in Iceberg REST catalog (`sluice serve --catalog-*`) and its warehouses.
package struct CatalogConfiguration: Sendable {
    package var host = "127.0.0.1"
    package var port = 8181
    /// The principals it issues tokens to (OAuth2 client credentials): Polaris's bootstrap
    /// `root:secret` unless set.
    package var principals: [(id: String, secret: String)] = [("root", "secret")]
    /// Whether a warehouse a client names is created on first use.
    package var autoCreateWarehouses = true
    /// Where warehouses live (`file://…`, `/…` or `s3://bucket/prefix`); nil: `<data-dir>/warehouse`.
    package var warehouseRoot: String?
    package var s3Endpoint: String?
    package var s3Region: String?
    /// Path-style S3 addressing; nil: path style with a custom endpoint, virtual hosts without.
    package var s3PathStyle: Bool?

    package init() {}
}

/// The running server: the SQL endpoint over one shared database.
package final class SluiceServer: Sendable {
    package let database: Database
    package let sqlServer: PGServer
    package let broker: KafkaBroker?
    /// The built-in Iceberg REST catalog, when it runs.
    package let catalogServer: IcebergRESTServer?
    package let catalogPort: Int?
    /// The HTTP app, and a second one for `/metrics` when it has an address of its own.
    package let http: [HTTPApp]
    package let feed: DashboardFeed?
    package let readiness: Readiness
    /// The webhook listener, when it runs.
    package let webhook: WebhookServer?
    /// The schema registry, when it runs.
    package let schemaRegistry: SchemaRegistryServer?
    /// Flink's SQL gateway API and its sessions, when it runs.
    package let flinkGateway: (server: FlinkGatewayServer, gateway: FlinkGateway)?
    /// The Trino door, when it runs.
    package let trino: TrinoServer?
    /// The ksqlDB door, when it runs.
    package let ksql: KsqlServer?

    private init(
        database: Database, sqlServer: PGServer, broker: KafkaBroker?, catalogServer: IcebergRESTServer?, catalogPort: Int?,
        http: [HTTPApp], feed: DashboardFeed?, readiness: Readiness, webhook: WebhookServer?, schemaRegistry: SchemaRegistryServer?,
        flinkGateway: (server: FlinkGatewayServer, gateway: FlinkGateway)?, trino: TrinoServer?, ksql: KsqlServer?
    ) {
        self.flinkGateway = flinkGateway
        self.trino = trino
        self.ksql = ksql
        self.webhook = webhook
        self.schemaRegistry = schemaRegistry
        self.database = database
        self.sqlServer = sqlServer
        self.broker = broker
        self.catalogServer = catalogServer
        self.catalogPort = catalogPort
        self.http = http
        self.feed = feed
        self.readiness = readiness
    }

    /// The port the dashboard answers on, when it runs.
    package var httpPort: Int? { http.first?.port }

    package static func start(_ configuration: ServerConfiguration) async throws -> SluiceServer {
        // Private before anything is written into it (the broker's logs come first).
        if let dataDirectory = configuration.dataDirectory { try DataDirectory.prepare(dataDirectory) }
        let tls = try configuration.tls.map { (settings) throws(SluiceError) in try ServerTLS(settings) }
        let httpTLS = tls?.context
        var broker: KafkaBroker?
        if var brokerConfiguration = configuration.broker {
            if let dataDirectory = configuration.dataDirectory { brokerConfiguration.dataDirectory = "\(dataDirectory)/broker" }
            // Kafka clients log in as SQL clients do from their address: SASL (PLAIN or
            // SCRAM-SHA-256, with the SQL users' passwords) where SQL needs a password, optional
            // where SQL trusts a role without one (a client that gives none is anonymous, and a
            // wrong password fails). The users come once the catalog is open.
            brokerConfiguration.authentication.loopback = configuration.loopbackAuthentication.admitsPasswordless ? .optional : .required
            brokerConfiguration.authentication.other = configuration.otherAuthentication.admitsPasswordless ? .optional : .required
            if let tls {
                let handler = { @Sendable () throws -> any ChannelHandler in tls.handler() }
                brokerConfiguration.tlsHandlerFactory = handler
            } else if brokerConfiguration.listeners.contains(where: \.tls) {
                throw SluiceError(.invalidParameterValue, "the broker's SSL listener needs --tls-cert and --tls-key")
            }
            let started = try KafkaBroker(configuration: brokerConfiguration)
            try await started.start()
            broker = started
        }
        let (lakehouse, catalogServer) = try Self.makeLakehouse(configuration, tls: httpTLS)
        // Before the database recovers: its Avro sources and sinks ask the registry as they start.
        var schemaRegistry: SchemaRegistryServer?
        // Its clients log in as the SQL port's would from their address; the users are known
        // once the catalog is open (until then only trusted clients get in).
        let registryUsers = LateUserDirectory()
        if let settings = configuration.schemaRegistry {
            let store = try SchemaRegistryStore(dataDirectory: configuration.dataDirectory)
            let method = Self.isLoopbackHost(settings.host) ? configuration.loopbackAuthentication : configuration.otherAuthentication
            let server = SchemaRegistryServer(
                host: settings.host, port: settings.port, store: store, access: HTTPAccess.for(method, users: registryUsers),
                tls: httpTLS)
            try await server.start()
            schemaRegistry = server
        }
        let recoveryStart = ContinuousClock.now
        let database = try Database(
            dataDirectory: configuration.dataDirectory, barrierIntervalMilliseconds: configuration.barrierIntervalMilliseconds,
            checkpointFrequency: configuration.checkpointFrequency, memoryLimit: configuration.memoryLimit ?? StateMemory.defaultLimit,
            connectors: configuration.connectors(lakehouse),
            hostAliases: HostAliases(
                aliases: configuration.hostAliases, brokerAddress: configuration.broker.map { "\($0.host):\($0.port)" },
                catalogAddress: configuration.catalog.map { "\($0.host):\($0.port)" }))
        broker?.users = CatalogUsers(catalog: database.catalog)
        registryUsers.set(CatalogUsers(catalog: database.catalog))
        if let recovery = database.recovery {
            // Before the SQL port opens: whoever can connect can read how recovery went.
            let seconds = (ContinuousClock.now - recoveryStart).inSeconds
            FileHandle.standardError.write(Data("sluice: recovered in \(String(format: "%.3f", seconds)) s: \(recovery.summary)\n".utf8))
        }
        let recoverySeconds = (ContinuousClock.now - recoveryStart).inSeconds
        var catalogPort: Int?
        if let catalogServer { catalogPort = try await catalogServer.start() }
        let readiness = Readiness()
        var http: [HTTPApp] = []
        var feed: DashboardFeed?
        var serverMetrics: ServerMetrics?
        if let settings = configuration.http {
            let metrics = ServerMetrics(database: database, broker: broker, recoverySeconds: recoverySeconds)
            serverMetrics = metrics
            let dashboard = DashboardFeed(database: database)
            feed = dashboard
            var routes = HTTPAppResponder.Routes.all
            // A listener's clients log in as the SQL port's would from its address: a loopback
            // listener has only loopback clients.
            let users = CatalogUsers(catalog: database.catalog)
            func access(_ host: String) -> HTTPAccess {
                let method = Self.isLoopbackHost(host) ? configuration.loopbackAuthentication : configuration.otherAuthentication
                let access = HTTPAccess.for(method, users: users)
                if access.users != nil { metrics.attach(access) }
                return access
            }
            if let address = settings.metricsAddress {
                routes.remove(.metrics)
                http.append(HTTPApp(
                    host: address.host, port: address.port, routes: .metrics, feed: dashboard, metrics: metrics, readiness: readiness,
                    access: access(address.host), tls: httpTLS))
            }
            http.insert(
                HTTPApp(
                    host: settings.host, port: settings.port, routes: routes, feed: dashboard, metrics: metrics, readiness: readiness,
                    access: access(settings.host), tls: httpTLS),
                at: 0)
            for app in http { try await app.start() }
        }
        // Before the SQL port opens: whoever sees it listening can use the ksqlDB door too.
        var ksql: KsqlServer?
        if let settings = configuration.ksql {
            let bootstrap = broker.map { "\($0.configuration.host):\($0.port)" }
            let registry = schemaRegistry.flatMap { server in server.port.map { "http://\(server.host):\($0)" } }
            let service = KsqlService(database: database, broker: broker, bootstrap: bootstrap, schemaRegistryURL: registry)
            await service.dropLeftoverPushQueries()
            let method = Self.isLoopbackHost(settings.host) ? configuration.loopbackAuthentication : configuration.otherAuthentication
            let server = KsqlServer(
                host: settings.host, port: settings.port, ksql: service, access: HTTPAccess.for(method, users: CatalogUsers(catalog: database.catalog)),
                tls: httpTLS)
            try await server.start()
            ksql = server
        }
        // The front doors listen before the SQL port opens: whoever sees the server ready finds them.
        var flinkGateway: (server: FlinkGatewayServer, gateway: FlinkGateway)?
        if let address = configuration.flinkGateway {
            let gateway = FlinkGateway(database: database)
            let method = Self.isLoopbackHost(address.host) ? configuration.loopbackAuthentication : configuration.otherAuthentication
            let server = FlinkGatewayServer(
                host: address.host, port: address.port, gateway: gateway,
                access: HTTPAccess.for(method, users: CatalogUsers(catalog: database.catalog)), tls: httpTLS)
            try await server.start()
            flinkGateway = (server, gateway)
        }
        var trino: TrinoServer?
        if let settings = configuration.trino {
            // Its clients log in as the SQL port's would from its address (HTTP Basic).
            let method = Self.isLoopbackHost(settings.host) ? configuration.loopbackAuthentication : configuration.otherAuthentication
            let server = TrinoServer(configuration: settings, database: database, iceberg: lakehouse.store, authentication: method, tls: httpTLS)
            try await server.start()
            trino = server
        }
        var sqlConfiguration = PGServerConfiguration(
            host: configuration.sqlHost, port: configuration.sqlPort,
            authentication: PGAuthentication(
                loopback: configuration.loopbackAuthentication, other: configuration.otherAuthentication,
                users: CatalogUsers(catalog: database.catalog)))
        sqlConfiguration.tls = tls?.sql
        let sqlServer = try await PGServer.start(configuration: sqlConfiguration, backend: SQLBackend(database: database))
        serverMetrics?.attach(sqlServer)
        var webhook: WebhookServer?
        if let settings = configuration.webhook {
            let server = WebhookServer(
                host: settings.host, port: settings.port, database: database, maximumBodyBytes: settings.maximumBodyBytes, tls: httpTLS)
            try await server.start()
            webhook = server
        }
        readiness.set(true)
        return SluiceServer(
            database: database, sqlServer: sqlServer, broker: broker, catalogServer: catalogServer, catalogPort: catalogPort, http: http,
            feed: feed, readiness: readiness, webhook: webhook, schemaRegistry: schemaRegistry, flinkGateway: flinkGateway, trino: trino, ksql: ksql)
    }

    /// The built-in catalog's store and REST server, over `<data-dir>/catalog` and the warehouse
    /// root (`<data-dir>/warehouse` unless set); none without a data directory or with
    /// `--no-catalog`.
    static func makeLakehouse(_ configuration: ServerConfiguration, tls: TLSContext? = nil) throws(SluiceError) -> (Lakehouse, IcebergRESTServer?) {
        let buffer = Lakehouse.bufferBytes(memoryLimit: configuration.memoryLimit ?? StateMemory.defaultLimit)
        guard let catalog = configuration.catalog, let dataDirectory = configuration.dataDirectory else {
            return (Lakehouse(store: nil, s3: nil, upsertBufferBytes: buffer), nil)
        }
        let absolute = dataDirectory.hasPrefix("/") ? dataDirectory : FileManager.default.currentDirectoryPath + "/" + dataDirectory
        let root = catalog.warehouseRoot ?? "file://\(absolute)/warehouse"
        let pathStyle = catalog.s3PathStyle.map { $0 ? S3Addressing.pathStyle : .virtualHost }
        let fileIO: any FileIO
        var s3: S3Config?
        var vended: IcebergS3Settings?
        if try FileIOs.scheme(of: root) == .s3 {
            let config = try S3Config.fromEnvironment(endpoint: catalog.s3Endpoint, region: catalog.s3Region, addressing: pathStyle)
            let io = try S3FileIO(config: config)
            if let bucket = try? S3Location(parsing: root).bucket { try io.ensureBucket(bucket) }
            fileIO = io
            s3 = config
            vended = IcebergS3Settings(
                endpoint: config.endpoint, accessKeyID: config.accessKeyID, secretAccessKey: config.secretAccessKey, region: config.region,
                pathStyleAccess: config.addressing == .pathStyle)
        } else {
            fileIO = LocalFileIO()
            // Sinks may still write tables on S3 (another catalog's): the server's settings, if any.
            s3 = try? S3Config.fromEnvironment(endpoint: catalog.s3Endpoint, region: catalog.s3Region, addressing: pathStyle)
        }
        let store = try IcebergCatalogStore(
            rootDirectory: "\(absolute)/catalog", warehouseRoot: root, fileIO: fileIO, autoCreateWarehouses: catalog.autoCreateWarehouses)
        var principals: [String: String] = [:]
        for principal in catalog.principals { principals[principal.id] = principal.secret }
        let server = try IcebergRESTServer(
            store: store, host: catalog.host, port: catalog.port, principals: principals, s3Settings: vended, tls: tls)
        return (Lakehouse(store: store, s3: s3, upsertBufferBytes: buffer), server)
    }

    /// Whether `host` (an address or `localhost`) is a loopback one.
    package static func isLoopbackHost(_ host: String) -> Bool {
        if host == "localhost" { return true }
        guard let address = try? SocketAddress(ipAddress: host, port: 0) else { return false }
        return PGServer.isLoopback(address)
    }

    /// Stops accepting connections, writes a last checkpoint and stops.
    package func shutdown() async throws {
        readiness.set(false)
        feed?.stop()
        for app in http { await app.stop() }
        await webhook?.stop()
        await ksql?.stop()
        await schemaRegistry?.stop()
        if let flinkGateway {
            await flinkGateway.server.stop()
            flinkGateway.gateway.closeAll()
        }
        await trino?.stop()
        await catalogServer?.stop()
        try await sqlServer.shutdown()
        await broker?.shutdown()
        try await database.shutdown()
    }
}
