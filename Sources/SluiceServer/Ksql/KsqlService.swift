import NIOCore
import SluiceBroker
import SluiceCore
import SluiceHTTP
import SluiceNet
import SluicePGWire
import SluicePlanner
import SluiceSQL
import Synchronization

/// Where the ksqlDB door listens (`--ksql-listen`, ksqlDB's port 8088).
package struct KsqlConfiguration: Sendable {
    package var host = "127.0.0.1"
    package var port = 8088

    package init() {}
}

/// The ksqlDB door: ksqlDB's REST API (`/info`, `/healthcheck`, `/ksql`, `/query`,
/// `/query-stream`, `/close-query`) over the one database, so ksqlDB's clients
/// (`ksql-python`, the ksqlDB CLI's REST calls, …) run their statements on Sluice.
package typealias KsqlServer = BackgroundHTTPServer

extension BackgroundHTTPServer {
    package convenience init(host: String, port: Int, ksql service: KsqlService, access: HTTPAccess = .trusted, tls: TLSContext? = nil) {
        var router = HTTPRouterBuilder()
        router.add(middleware: AuthenticationMiddleware(access, challenge: { KsqlService.json(KsqlJSON.genericError("Unauthorized", code: 40100), status: 401) }))
        router.add(middleware: BodyLimitMiddleware { KsqlService.json(KsqlJSON.genericError("The request body is larger than 16 MiB", code: 41300), status: 413) })
        router.get("/info") { _, _ in service.info() }
        router.get("/healthcheck") { _, _ in service.healthcheck() }
        router.post("/ksql") { request, _ in await service.ksql(request) }
        router.post("/query") { request, _ in await service.query(request, api: .classic) }
        router.post("/query-stream") { request, _ in await service.query(request, api: .stream) }
        router.post("/close-query") { request, _ in service.closeQuery(request) }
        router.post("/inserts-stream") { request, _ in service.insertsStream(request) }
        router.addFallback { request, _ in
            KsqlService.json(KsqlJSON.genericError("Not found: \(request.method) \(request.path)", code: KsqlJSON.ErrorCode.notFound), status: 404)
        }
        self.init(host: host, port: port, router: router.build(), name: "ksqlDB REST API", tls: tls, maximumBodyBytes: 16 << 20)
    }
}

/// The ksqlDB door's requests, over one database and the built-in broker.
package final class KsqlService: Sendable {
    let database: Database
    let broker: KafkaBroker?
    /// The built-in broker's address, for the sources and sinks the door makes.
    let bootstrap: String?
    /// The built-in schema registry's URL, for `VALUE_FORMAT = 'AVRO'`.
    let schemaRegistryURL: String?
    let threads = SessionThreads()
    let pushQueries = KsqlPushQueries()
    private let commandNumber = Atomic<Int>(0)
    private let queryNumber = Atomic<Int>(0)

    package init(database: Database, broker: KafkaBroker?, bootstrap: String?, schemaRegistryURL: String?) {
        self.database = database
        self.broker = broker
        self.bootstrap = bootstrap
        self.schemaRegistryURL = schemaRegistryURL
    }

    func nextCommandNumber() -> Int { commandNumber.add(1, ordering: .relaxed).newValue }
    func nextQueryNumber() -> Int { queryNumber.add(1, ordering: .relaxed).newValue }

    // MARK: Server information

    /// ksqlDB's `KsqlServerInfo`.
    func info() -> HTTPServerResponse {
        Self.json(.object([
            "KsqlServerInfo": .object([
                "version": .string("0.29.0"), "kafkaClusterId": .string("sluice"), "ksqlServiceId": .string("default_"),
                "serverStatus": .string("RUNNING"),
            ]),
        ]))
    }

    func healthcheck() -> HTTPServerResponse {
        let healthy: JSONDocument = .object(["isHealthy": .bool(true)])
        return Self.json(.object([
            "isHealthy": .bool(true),
            "details": .object(["metastore": healthy, "kafka": healthy, "commandRunner": healthy]),
            "ksqlServiceId": .string("default_"),
        ]))
    }

    // MARK: POST /ksql

    func ksql(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let body: KsqlRequestBody
        do {
            body = try KsqlRequestBody(request.body, textKey: "ksql", propertiesKey: "streamsProperties")
        } catch {
            return Self.json(KsqlJSON.genericError(error.message), status: 400)
        }
        let statements: [KsqlStatement]
        do {
            statements = try SQLParser.parseKsql(body.text)
        } catch {
            return Self.json(KsqlJSON.statementError(KsqlJSON.message(of: error), statement: body.text), status: 400)
        }
        return await withTaskExecutorPreference(threads) { () async -> HTTPServerResponse in
            let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
            defer { session.terminate() }
            var runner = KsqlStatementRunner(service: self, session: session, properties: body.properties)
            var entities: [JSONDocument] = []
            for statement in statements {
                switch statement.kind {
                case .select, .print:
                    return Self.json(
                        KsqlJSON.statementError(
                            KsqlStatementRunner.queryEndpointMessage, statement: statement.sourceText, code: KsqlJSON.ErrorCode.queryEndpoint, entities: entities),
                        status: 400)
                default:
                    break
                }
                do {
                    if let entity = try await runner.run(statement) { entities.append(entity) }
                } catch {
                    return Self.json(KsqlJSON.statementError(KsqlJSON.message(of: SluiceError.from(error)), statement: statement.sourceText, entities: entities), status: 400)
                }
            }
            return Self.json(.array(entities))
        }
    }

    // MARK: POST /close-query

    func closeQuery(_ request: HTTPServerRequest) -> HTTPServerResponse {
        guard let document = try? JSONDocument.parse(request.body), let id = document["queryId"]?.stringValue else {
            return Self.json(KsqlJSON.genericError("Invalid JSON in request: expected {\"queryId\": …}"), status: 400)
        }
        guard pushQueries.close(id) else {
            return Self.json(KsqlJSON.genericError("No query with id \(id)"), status: 400)
        }
        return HTTPServerResponse(status: .ok, contentType: "application/json", bytes: [])
    }

    // MARK: Topics of the built-in broker

    /// Makes sure `topic` exists: creates it with `partitions` when given (as ksqlDB does when
    /// a CREATE has PARTITIONS), else refuses a missing topic for a `creating` stream or table.
    func ensureTopic(_ topic: String, partitions: Int?, creating: String?) throws(SluiceError) {
        guard let broker else { return }
        if broker.topics.topic(topic) != nil { return }
        guard let partitions else {
            throw SluiceError(
                .undefinedObject,
                "Topic '\(topic)' does not exist. If you want to create a new topic for the \(creating ?? "stream") please re-run the statement providing the required 'PARTITIONS' configuration in the WITH clause (and optionally 'REPLICAS'). For example: CREATE STREAM FOO (ID INT, VALUE STRING) WITH (KAFKA_TOPIC='\(topic)', PARTITIONS=2, REPLICAS=1, FORMAT='JSON');")
        }
        do {
            _ = try broker.topics.create(topic, partitions: partitions)
        } catch {
            if broker.topics.topic(topic) == nil { throw SluiceError(.invalidParameterValue, "could not create topic \(topic): \(error)") }
        }
    }

    func deleteTopic(_ topic: String) {
        try? broker?.topics.delete(topic)
    }

    func partitions(of topic: String) -> Int {
        broker?.topics.topic(topic)?.partitions ?? 0
    }

    /// The broker's topics but its internal ones and the push queries' own.
    func topicList() -> [(name: String, partitions: Int)] {
        guard let broker else { return [] }
        return broker.topics.names.sorted().filter { !$0.hasPrefix("_") && !$0.hasPrefix("__") }.map { ($0, broker.topics.topic($0)?.partitions ?? 0) }
    }

    static func json(_ document: JSONDocument, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(status: HTTPResponseStatus(statusCode: status), contentType: "application/json", bytes: document.bytes)
    }
}

/// A request's body: `{"ksql": "…", "streamsProperties": {…}}` (`/ksql`, `/query`) or
/// `{"sql": "…", "properties": {…}}` (`/query-stream`).
struct KsqlRequestBody {
    var text: String
    var properties: [String: String] = [:]

    init(_ bytes: [UInt8], textKey: String, propertiesKey: String) throws(SluiceError) {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(bytes)
        } catch {
            throw SluiceError(.invalidParameterValue, "Invalid JSON in request: \(error.message)")
        }
        guard let text = document[textKey]?.stringValue else {
            throw SluiceError(.invalidParameterValue, "Invalid JSON in request: the field \"\(textKey)\" (a string of statements) is missing")
        }
        self.text = text
        if case .object(let members)? = document[propertiesKey] ?? document["streamsProperties"] {
            for member in members {
                switch member.value {
                case .string(let value): properties[member.key] = value
                case .int(let value): properties[member.key] = String(value)
                case .bool(let value): properties[member.key] = String(value)
                case .double(let value): properties[member.key] = String(value)
                default: break
                }
            }
        }
    }
}

extension KsqlService {
    /// Drops what push queries left behind when the server stopped under them (their sinks,
    /// private sources and topics live only as long as their connection): run once at start,
    /// before the door takes requests, so a new push query's names are free.
    package func dropLeftoverPushQueries() async {
        let prefix = KsqlPushQueries.namePrefix
        let leftovers = database.catalog.visibleRelations(to: database.catalog.role(named: "root"))
            .filter { $0.schema == "public" && $0.name.hasPrefix(prefix) }
        await withTaskExecutorPreference(threads) { () async -> Void in
            let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
            defer { session.terminate() }
            // Sinks first: a private source is read by its query's sink.
            for relation in leftovers.sorted(by: { ($0.kind == .sink ? 0 : 1) < ($1.kind == .sink ? 0 : 1) }) {
                let type: ObjectType = relation.kind == .sink ? .sink : .source
                var drop = Statement(.drop(Drop(objectType: type, ifExists: true, names: [ObjectName(relation.name)])))
                drop.sourceText = drop.description
                _ = try? await session.execute(drop)
            }
        }
        for topic in broker?.topics.names ?? [] where topic.hasPrefix("_" + prefix) { deleteTopic(topic) }
    }
}
