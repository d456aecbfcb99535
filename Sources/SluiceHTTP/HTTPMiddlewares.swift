/// Who a request comes from, once ``AuthenticationMiddleware`` has checked it.
package struct HTTPUser: Sendable, Equatable {
    package var name: String
    package var superuser: Bool

    package init(name: String, superuser: Bool) {
        self.name = name
        self.superuser = superuser
    }
}

/// Checks every request's credentials against ``HTTPAccess`` before its route runs, except on
/// the open paths (`/health` and `/ready` for probes); a request without valid ones gets
/// `challenge` (401 with a Basic challenge).
package struct AuthenticationMiddleware: HTTPMiddleware {
    let access: HTTPAccess
    let openPaths: Set<String>
    let challenge: @Sendable () -> HTTPServerResponse

    package init(
        _ access: HTTPAccess, openPaths: Set<String> = [], challenge: @escaping @Sendable () -> HTTPServerResponse = { HTTPAccess.challenge }
    ) {
        self.access = access
        self.openPaths = openPaths
        self.challenge = challenge
    }

    package func handle(_ request: HTTPServerRequest, context: HTTPRequestContext, next: HTTPRouteHandler) async throws -> HTTPServerResponse {
        if openPaths.contains(request.path) { return try await next(request, context) }
        guard let user = await access.user(of: request) else { return challenge() }
        var context = context
        context.user = user
        return try await next(request, context)
    }
}

/// Lets only a superuser through: for the routes that show the whole pipeline.
package struct SuperuserMiddleware: HTTPMiddleware {
    let refusal: @Sendable () -> HTTPServerResponse

    package init(refusal: @escaping @Sendable () -> HTTPServerResponse) {
        self.refusal = refusal
    }

    package func handle(_ request: HTTPServerRequest, context: HTTPRequestContext, next: HTTPRouteHandler) async throws -> HTTPServerResponse {
        guard context.user?.superuser == true else { return refusal() }
        return try await next(request, context)
    }
}

/// Answers a request whose body was longer than the server reads with `refusal` (a 413 in the
/// protocol's own shape) before any route sees the truncated body.
package struct BodyLimitMiddleware: HTTPMiddleware {
    let refusal: @Sendable () -> HTTPServerResponse

    package init(refusal: @escaping @Sendable () -> HTTPServerResponse) {
        self.refusal = refusal
    }

    package func handle(_ request: HTTPServerRequest, context: HTTPRequestContext, next: HTTPRouteHandler) async throws -> HTTPServerResponse {
        if request.bodyTooLarge { return refusal() }
        return try await next(request, context)
    }
}
