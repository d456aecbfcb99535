import NIOCore
import SluiceCore
import SluiceHTTP
import SluiceLakehouse
import SluiceNet
import Synchronization

/// The server's HTTP app on port 5691 (`--dashboard-listen`): the live dashboard and its feed,
/// read-only SQL, Prometheus `/metrics` and the process managers' `/health` and `/ready`, served
/// in the background by a ``BackgroundHTTPServer`` (as the Iceberg catalog is).
///
/// One instance may serve a subset of the routes: `--metrics-listen` moves `/metrics` to a
/// second instance of its own. It binds 127.0.0.1 unless told otherwise.
package typealias HTTPApp = BackgroundHTTPServer

extension BackgroundHTTPServer {
    package convenience init(
        host: String, port: Int, routes: HTTPAppResponder.Routes, feed: DashboardFeed, metrics: ServerMetrics, readiness: Readiness,
        access: HTTPAccess = .trusted, tls: TLSContext? = nil
    ) {
        let app = HTTPAppResponder(routes: routes, feed: feed, metrics: metrics, readiness: readiness)
        self.init(
            host: host, port: port, router: app.router(access: access), name: "HTTP server", tls: tls,
            maximumBodyBytes: DashboardQuery.maximumStatementBytes)
    }
}

/// Whether the server takes work: set once every listener is up, cleared when it stops.
package final class Readiness: Sendable {
    private let state = Atomic<Bool>(false)
    package init() {}
    package var isReady: Bool { state.load(ordering: .acquiring) }
    package func set(_ ready: Bool) { state.store(ready, ordering: .releasing) }
}

/// The HTTP app's routes, on an ``HTTPRouter``: the authentication middleware first (every
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

    func router(access: HTTPAccess) -> HTTPRouter {
        var router = HTTPRouterBuilder()
        router.add(middleware: AuthenticationMiddleware(access, openPaths: ["/health", "/ready"]))
        if routes.contains(.health) {
            let readiness = readiness
            for method: HTTPMethod in [.GET, .HEAD] {
                router.on("/health", method: method) { _, _ in Self.text("ok\n") }
                router.on("/ready", method: method) { _, _ in
                    readiness.isReady ? Self.text("ready\n") : Self.text("starting or stopping\n", status: .serviceUnavailable)
                }
            }
        }
        // The graph, every view's rows and the metrics show everything: a superuser's.
        let (routes, metrics, feed) = (routes, metrics, feed)
        router.group(SuperuserMiddleware { Self.text("only a superuser may see the whole pipeline\n", status: .forbidden) }) { whole in
            if routes.contains(.metrics) {
                whole.get("/metrics") { _, _ in Self.bytes(metrics.exposition(), type: "text/plain; version=0.0.4; charset=utf-8") }
            }
            if routes.contains(.dashboard) {
                whole.get("/events") { _, _ in Self.eventStream(feed) }
                whole.get("/api/state") { _, _ in Self.bytes(await feed.snapshot(), type: "application/json") }
            }
        }
        if routes.contains(.dashboard) {
            // The SQL box runs as the user who logged in, with that user's privileges.
            router.post("/api/query") { request, context in
                guard !request.bodyTooLarge else {
                    return Self.bytes(
                        DashboardQuery.failure(SluiceError(.programLimitExceeded, "the statement is too long")), type: "application/json",
                        status: .payloadTooLarge)
                }
                let sql = String(decoding: request.body, as: UTF8.self)
                return Self.bytes(await feed.queries.run(sql, as: context.user?.name ?? "root"), type: "application/json")
            }
            for path in ["/", "**"] {
                router.get(path) { request, _ in
                    guard let asset = DashboardAssets.asset(at: request.path) else { return Self.text("not found\n", status: .notFound) }
                    return Self.bytes(asset.bytes, type: asset.contentType, cache: false)
                }
            }
        }
        return router.build()
    }

    /// Server-sent events: the dashboard's state as it changes, one `data:` line each time,
    /// until the browser goes away.
    private static func eventStream(_ feed: DashboardFeed) -> HTTPServerResponse {
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "text/event-stream")
        headers.add(name: "cache-control", value: "no-store")
        return HTTPServerResponse(status: .ok, headers: headers, body: .stream { writer in
            // The browser reconnects after a second if the server goes away.
            try await writer.write(Array("retry: 1000\n\n".utf8))
            for await snapshot in feed.subscribe() {
                try await writer.write(Array("data: ".utf8) + snapshot + Array("\n\n".utf8))
            }
        })
    }

    static func text(_ text: String, status: HTTPResponseStatus = .ok) -> HTTPServerResponse {
        bytes(Array(text.utf8), type: "text/plain; charset=utf-8", status: status)
    }

    static func bytes(_ bytes: [UInt8], type: String, status: HTTPResponseStatus = .ok, cache: Bool = false) -> HTTPServerResponse {
        var headers = HTTPHeaders()
        headers.add(name: "cache-control", value: cache ? "max-age=3600" : "no-store")
        return HTTPServerResponse(status: status, contentType: type, bytes: bytes, headers: headers)
    }
}
