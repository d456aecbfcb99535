import Hummingbird
import HummingbirdCore
import NIOCore
import SluiceCore
import SluiceHTTP
import SluiceLakehouse
import Synchronization

/// The server's HTTP app on port 5691 (`--dashboard-listen`): the live dashboard and its feed,
/// read-only SQL, Prometheus `/metrics` and the process managers' `/health` and `/ready`, served
/// in the background by a ``BackgroundHTTPServer`` (as the Iceberg catalog is).
///
/// One instance may serve a subset of the routes: `--metrics-listen` moves `/metrics` to a
/// second instance of its own. It binds 127.0.0.1 unless told otherwise.
package typealias HTTPApp = BackgroundHTTPServer<RouterResponder<SluiceRequestContext>>

extension BackgroundHTTPServer where Responder == RouterResponder<SluiceRequestContext> {
    package convenience init(
        host: String, port: Int, routes: HTTPAppResponder.Routes, feed: DashboardFeed, metrics: ServerMetrics, readiness: Readiness,
        access: HTTPAccess = .trusted, builder: HTTPServerBuilder = .http1()
    ) {
        let app = HTTPAppResponder(routes: routes, feed: feed, metrics: metrics, readiness: readiness)
        self.init(host: host, port: port, responder: app.router(access: access).buildResponder(), name: "HTTP server", builder: builder)
    }
}

/// Whether the server takes work: set once every listener is up, cleared when it stops.
package final class Readiness: Sendable {
    private let state = Atomic<Bool>(false)
    package init() {}
    package var isReady: Bool { state.load(ordering: .acquiring) }
    package func set(_ ready: Bool) { state.store(ready, ordering: .releasing) }
}

/// The HTTP app's routes, on Hummingbird's router: the authentication middleware first (every
/// route but `/health` and `/ready`), a superuser's for the routes that show everything.
package struct HTTPAppResponder: Sendable {
    /// What an instance answers.
    package struct Routes: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// `/`, its assets, `/events`, `/api/state` and `/api/query`.
        package static let dashboard = Routes(rawValue: 1)
        package static let metrics = Routes(rawValue: 2)
        /// `/health` and `/ready`.
        package static let health = Routes(rawValue: 4)
        package static let all: Routes = [.dashboard, .metrics, .health]
    }

    let routes: Routes
    let feed: DashboardFeed
    let metrics: ServerMetrics
    let readiness: Readiness

    func router(access: HTTPAccess) -> Router<SluiceRequestContext> {
        let router = Router(context: SluiceRequestContext.self)
        router.add(middleware: AuthenticationMiddleware(access, openPaths: ["/health", "/ready"]))
        // The graph, every view's rows and the metrics show everything: a superuser's.
        let whole = router.group().add(middleware: SuperuserMiddleware { Self.text("only a superuser may see the whole pipeline\n", status: .forbidden) })
        if routes.contains(.health) {
            let readiness = readiness
            for method: HTTPRequest.Method in [.get, .head] {
                router.on("/health", method: method) { _, _ in Self.text("ok\n") }
                router.on("/ready", method: method) { _, _ in
                    readiness.isReady ? Self.text("ready\n") : Self.text("starting or stopping\n", status: .serviceUnavailable)
                }
            }
        }
        if routes.contains(.metrics) {
            let metrics = metrics
            whole.get("/metrics") { _, _ in Self.bytes(metrics.exposition(), type: "text/plain; version=0.0.4; charset=utf-8") }
        }
        if routes.contains(.dashboard) {
            let feed = feed
            whole.get("/events") { _, _ in Self.eventStream(feed) }
            whole.get("/api/state") { _, _ in Self.bytes(await feed.snapshot(), type: "application/json") }
            // The SQL box runs as the user who logged in, with that user's privileges.
            router.post("/api/query") { request, context in
                var request = request
                guard let body = try? await request.collectBody(upTo: DashboardQuery.maximumStatementBytes) else {
                    return Self.bytes(DashboardQuery.failure(SluiceError(.programLimitExceeded, "the statement is too long")), type: "application/json", status: .contentTooLarge)
                }
                let sql = String(decoding: body.readableBytesView, as: UTF8.self)
                return Self.bytes(await feed.queries.run(sql, as: context.user?.name ?? "root"), type: "application/json")
            }
            for path: RouterPath in ["/", "**"] {
                router.get(path) { request, _ in
                    guard let asset = DashboardAssets.asset(at: request.uri.path) else { return Self.text("not found\n", status: .notFound) }
                    return Self.bytes(asset.bytes, type: asset.contentType, cache: false)
                }
            }
        }
        return router
    }

    /// Server-sent events: the dashboard's state as it changes, one `data:` line each time,
    /// until the browser goes away.
    private static func eventStream(_ feed: DashboardFeed) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            // The browser reconnects after a second if the server goes away.
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            for await snapshot in feed.subscribe() {
                var buffer = ByteBuffer()
                buffer.writeString("data: ")
                buffer.writeBytes(snapshot)
                buffer.writeString("\n\n")
                try await writer.write(buffer)
            }
            try await writer.finish(nil)
        })
    }

    static func text(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        bytes(Array(text.utf8), type: "text/plain; charset=utf-8", status: status)
    }

    static func bytes(_ bytes: [UInt8], type: String, status: HTTPResponse.Status = .ok, cache: Bool = false) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = cache ? "max-age=3600" : "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
