import SluiceNet

/// What a route knows of a request besides the request: who sent it (once
/// ``AuthenticationMiddleware`` has checked) and the path's parameters (`:name` segments).
package struct HTTPRequestContext: Sendable {
    package var user: HTTPUser?
    package var parameters: [String: String] = [:]

    package init(user: HTTPUser? = nil) {
        self.user = user
    }
}

/// A route's work.
package typealias HTTPRouteHandler = @Sendable (HTTPServerRequest, HTTPRequestContext) async throws -> HTTPServerResponse

/// Runs before a route: answers itself, or passes the request (and a context it may change) on.
package protocol HTTPMiddleware: Sendable {
    func handle(_ request: HTTPServerRequest, context: HTTPRequestContext, next: HTTPRouteHandler) async throws -> HTTPServerResponse
}

/// Routes requests by method and path to handlers, through middleware: the router's own for
/// every route, and a group's for the routes added through it.
///
/// A path pattern is `/`-separated segments: a literal, `:name` (one segment, found in the
/// context's `parameters`), or `**` (the rest of the path, any length). A request takes the
/// route whose pattern has the most literal segments first, then parameters, before wildcards;
/// with none, the fallback (every method), else 404.
package final class HTTPRouter: Sendable {
    private struct Route: Sendable {
        let method: HTTPMethod
        let segments: [Segment]
        let handler: HTTPRouteHandler
        /// Literal segments count most, then parameters; a wildcard nothing.
        var rank: (Int, Int) {
            (segments.count { if case .literal = $0 { true } else { false } }, segments.count { if case .parameter = $0 { true } else { false } })
        }
    }

    private enum Segment: Sendable {
        case literal(String)
        case parameter(String)
        case rest
    }

    private let routes: [Route]
    private let fallback: HTTPRouteHandler?

    fileprivate init(builder: HTTPRouterBuilder) {
        routes = builder.routes.map { Route(method: $0.method, segments: Self.segments(of: $0.pattern), handler: $0.handler) }
            .sorted { $0.rank > $1.rank }
        fallback = builder.fallback
    }

    private static func segments(of pattern: String) -> [Segment] {
        pattern.split(separator: "/").map { part in
            if part == "**" { return .rest }
            if part.hasPrefix(":") { return .parameter(String(part.dropFirst())) }
            return .literal(String(part))
        }
    }

    /// The route's answer to `request`.
    package func respond(to request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let parts = request.path.split(separator: "/")
        for route in routes where route.method == request.method {
            if let parameters = Self.match(route.segments, parts) {
                var context = HTTPRequestContext()
                context.parameters = parameters
                return try await route.handler(request, context)
            }
        }
        if let fallback { return try await fallback(request, HTTPRequestContext()) }
        return .text("not found\n", status: .notFound)
    }

    private static func match(_ segments: [Segment], _ parts: [Substring]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest:
                return parameters
            case .literal(let text):
                guard index < parts.count, parts[index] == text else { return nil }
            case .parameter(let name):
                guard index < parts.count else { return nil }
                parameters[name] = String(parts[index])
            }
        }
        return segments.count == parts.count ? parameters : nil
    }
}

/// Collects routes and middleware, then makes the ``HTTPRouter``.
package struct HTTPRouterBuilder {
    fileprivate var routes: [(method: HTTPMethod, pattern: String, handler: HTTPRouteHandler)] = []
    fileprivate var fallback: HTTPRouteHandler?
    /// Applied to every route added after it, and to the fallback.
    private var middleware: [any HTTPMiddleware] = []

    package init() {}

    /// Runs `middleware` before every route added later (and the fallback).
    package mutating func add(middleware: any HTTPMiddleware) {
        self.middleware.append(middleware)
    }

    /// Adds the routes `body` adds, with `middleware` run after the router's own.
    package mutating func group(_ middleware: any HTTPMiddleware, _ body: (inout HTTPRouterBuilder) -> Void) {
        let saved = self.middleware
        self.middleware.append(middleware)
        body(&self)
        self.middleware = saved
    }

    package mutating func on(_ pattern: String, method: HTTPMethod, use handler: @escaping HTTPRouteHandler) {
        routes.append((method, pattern, Self.wrapped(handler, in: middleware)))
    }

    package mutating func get(_ pattern: String, use handler: @escaping HTTPRouteHandler) {
        on(pattern, method: .GET, use: handler)
    }

    package mutating func post(_ pattern: String, use handler: @escaping HTTPRouteHandler) {
        on(pattern, method: .POST, use: handler)
    }

    /// Sends a request no route takes, of any method, to `handler`: for the servers whose
    /// protocol routes inside a framework-free handler (the Iceberg catalog, the schema registry).
    package mutating func addFallback(_ handler: @escaping HTTPRouteHandler) {
        fallback = Self.wrapped(handler, in: middleware)
    }

    package func build() -> HTTPRouter {
        HTTPRouter(builder: self)
    }

    private static func wrapped(_ handler: @escaping HTTPRouteHandler, in middleware: [any HTTPMiddleware]) -> HTTPRouteHandler {
        var wrapped = handler
        for layer in middleware.reversed() {
            let next = wrapped
            wrapped = { request, context in try await layer.handle(request, context: context, next: next) }
        }
        return wrapped
    }
}
