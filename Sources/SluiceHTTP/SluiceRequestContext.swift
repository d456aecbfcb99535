import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import SluiceNet

/// Who a request comes from, once ``AuthenticationMiddleware`` has checked it.
package struct HTTPUser: Sendable, Equatable {
    package var name: String
    package var superuser: Bool

    package init(name: String, superuser: Bool) {
        self.name = name
        self.superuser = superuser
    }
}

/// The request context of every Sluice HTTP server: Hummingbird's, plus the user the
/// authentication middleware found (nil on open routes and on servers without it).
package struct SluiceRequestContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    package var user: HTTPUser?

    package init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        user = nil
    }
}

/// Checks every request's credentials against ``HTTPAccess`` before its route runs, except on
/// the open paths (`/health` and `/ready` for probes); a request without valid ones gets
/// `challenge` (401 with a Basic challenge).
package struct AuthenticationMiddleware: RouterMiddleware {
    package typealias Context = SluiceRequestContext
    let access: HTTPAccess
    let openPaths: Set<String>
    let challenge: @Sendable () -> Response

    package init(_ access: HTTPAccess, openPaths: Set<String> = [], challenge: @escaping @Sendable () -> Response = { HTTPAccess.challenge }) {
        self.access = access
        self.openPaths = openPaths
        self.challenge = challenge
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if openPaths.contains(request.uri.path) { return try await next(request, context) }
        guard let user = await access.user(of: request) else { return challenge() }
        var context = context
        context.user = user
        return try await next(request, context)
    }
}

/// Lets only a superuser through: for the routes that show the whole pipeline.
package struct SuperuserMiddleware: RouterMiddleware {
    package typealias Context = SluiceRequestContext
    let refusal: @Sendable () -> Response

    package init(refusal: @escaping @Sendable () -> Response) {
        self.refusal = refusal
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.user?.superuser == true else { return refusal() }
        return try await next(request, context)
    }
}

extension Router where Context == SluiceRequestContext {
    /// Sends requests of every method to any path no other route takes to `handler`: for the
    /// servers whose protocol routes inside a framework-free handler (the Iceberg catalog, the
    /// schema registry).
    package func addFallback(_ handler: @escaping @Sendable (Request, Context) async throws -> Response) {
        for method: HTTPRequest.Method in [.get, .head, .post, .put, .delete, .patch, .options] {
            on("/", method: method, use: handler)
            on("**", method: method, use: handler)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 over TLS (SluiceNet's handler, over OpenSSL), from one server context.
    package static func tls(_ context: TLSContext) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in TLSChildChannel(base: HTTP1Channel(responder: responder), context: context) }
    }
}

/// A Hummingbird child channel with TLS in front of its own set-up.
private struct TLSChildChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let context: TLSContext

    var responder: HTTPChannelHandler.Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(TLSHandler(context: context))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
