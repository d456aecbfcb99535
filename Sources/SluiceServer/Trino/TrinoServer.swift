import SluiceCore
import SluiceHTTP
import SluiceLakehouse
import SluiceNet
import SluicePGWire
import Synchronization

/// Where the Trino door listens (`--trino-listen`, Trino's port 8080) and how it names the
/// Iceberg catalog's tables.
package struct TrinoConfiguration: Sendable {
    package var host = "127.0.0.1"
    package var port = 8080
    /// `--trino-iceberg-warehouse`: the warehouse Trino's `iceberg` catalog reads; nil: whichever
    /// warehouse holds a schema (an error when two do).
    package var icebergWarehouse: String?
    /// A query no client asks about for this long is cancelled and dropped (Trino's
    /// `query.client.timeout`, 5 minutes).
    package var abandonedAfter: Duration = .seconds(300)

    package init() {}
}

/// Trino's client REST protocol over our SQL sessions, so `trino`/`presto` command lines and
/// their Python, JDBC and Go clients query Sluice: `POST /v1/statement` takes a statement and
/// answers a QueryResults whose `nextUri` pages the rows (`GET`) or cancels the query
/// (`DELETE`). Statements run through ``SQLSession`` as on the Postgres port, with Trino's
/// catalogs mapped onto ours (``TrinoCatalogs``) and Trino's SHOW, DESCRIBE and USE answered
/// here (``TrinoStatement``).
package final class TrinoServer: Sendable {
    private let http: BackgroundHTTPServer
    private let queries: TrinoQueries
    private let sweeper = Mutex<Task<Void, Never>?>(nil)

    /// `authentication` is how the SQL port logs in clients from the listener's address:
    /// `access` follows it for HTTP Basic, and it says whom `X-Trino-User` may name without a
    /// password (anyone under `trust`, a role without one under `auto`).
    package init(
        configuration: TrinoConfiguration, database: Database, iceberg: IcebergCatalogStore?, authentication: PGAuthMethod, tls: TLSContext?
    ) {
        let queries = TrinoQueries(abandonedAfter: configuration.abandonedAfter)
        self.queries = queries
        let users = CatalogUsers(catalog: database.catalog)
        let access = HTTPAccess.for(authentication, users: users)
        let responder = TrinoResponder(
            database: database, queries: queries, scheme: tls == nil ? "http" : "https", users: users, authentication: authentication,
            catalogs: TrinoCatalogs(catalog: database.catalog, store: iceberg, icebergWarehouse: configuration.icebergWarehouse))
        var router = HTTPRouterBuilder()
        router.add(middleware: AuthenticationMiddleware(access, openPaths: ["/v1/info"], challenge: TrinoResponder.unauthorized))
        router.post("/v1/statement") { request, context in await responder.post(request, context) }
        router.get("/v1/statement/executing/:id/:slug/:token") { request, context in await responder.get(request, context) }
        router.on("/v1/statement/executing/:id/:slug/:token", method: .DELETE) { request, context in responder.delete(request, context) }
        router.get("/v1/query/:id") { request, context in responder.info(request, context) }
        router.get("/v1/info") { _, _ in TrinoResponder.json(Array(#"{"nodeVersion":{"version":"sluice"},"environment":"sluice","coordinator":true,"starting":false}"#.utf8)) }
        router.addFallback { _, _ in TrinoResponder.problem(.notFound, "not found") }
        http = BackgroundHTTPServer(
            host: configuration.host, port: configuration.port, router: router.build(), name: "Trino server", tls: tls,
            maximumBodyBytes: 1 << 20)
    }

    /// The port it listens on once it runs.
    package var port: Int? { http.port }

    /// The queries kept now (run or being paged).
    package var runningQueries: Int { queries.count }

    @discardableResult
    package func start() async throws -> Int {
        let port = try await http.start()
        let queries = queries
        sweeper.withLock { $0 = Task { await queries.sweepUntilCancelled() } }
        return port
    }

    package func stop() async {
        sweeper.withLock { $0?.cancel() }
        await http.stop()
        queries.removeAll()
    }
}
