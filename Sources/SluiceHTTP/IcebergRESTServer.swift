import NIOCore
import SluiceCore
import SluiceLakehouse
import SluiceNet
import Synchronization

/// The Iceberg REST catalog served over HTTP/1.1, in the background
/// (``BackgroundHTTPServer``): ``start()`` returns the bound port, ``stop()`` ends it. Binds
/// 127.0.0.1 unless told otherwise.
package final class IcebergRESTServer: Sendable {
    package let handler: IcebergRESTHandler
    private let server: BackgroundHTTPServer

    /// - Parameters:
    ///   - principals: client id → secret of who may get tokens; `root`/`secret` by default
    ///     (the seed configurations use it).
    ///   - defaultWarehouse: the warehouse for `/v1/config` without `warehouse` and unprefixed paths.
    ///   - s3Settings: vended to clients that ask for `vended-credentials` on S3 tables.
    package init(store: IcebergCatalogStore, host: String = "127.0.0.1", port: Int = 8181,
                 principals: [String: String] = ["root": "secret"], defaultWarehouse: String = "default",
                 s3Settings: IcebergS3Settings? = nil, tokenLifetimeSeconds: Int64 = 3600,
                 tls: TLSContext? = nil) throws(SluiceError) {
        let tokens = try IcebergTokenAuthority(rootDirectory: store.rootDirectory, principals: principals, lifetimeSeconds: tokenLifetimeSeconds)
        let handler = IcebergRESTHandler(store: store, tokens: tokens, defaultWarehouse: defaultWarehouse, s3Settings: s3Settings)
        self.handler = handler
        // The REST spec's routes (and its OAuth2 tokens) are the handler's own: every request
        // goes to it.
        var router = HTTPRouterBuilder()
        let responder = IcebergHTTPResponder(handler: handler)
        router.addFallback { request, _ in await responder.respond(to: request) }
        server = BackgroundHTTPServer(
            host: host, port: port, router: router.build(), name: "Iceberg REST server", tls: tls,
            maximumBodyBytes: IcebergRESTHandler.maximumBodySize)
    }

    package var host: String { server.host }
    package var requestedPort: Int { server.requestedPort }

    /// The port the server listens on once it runs.
    package var port: Int? { server.port }

    /// Starts serving in the background; returns the bound port once the server listens.
    /// - Throws: when the server fails before listening (e.g. the port is taken).
    @discardableResult
    package func start() async throws -> Int {
        try await server.start()
    }

    /// Stops a server started with ``start()`` and waits for it to finish.
    package func stop() async {
        await server.stop()
    }
}

/// Adapts HTTP requests to ``IcebergRESTHandler``.
struct IcebergHTTPResponder: Sendable {
    let handler: IcebergRESTHandler

    func respond(to request: HTTPServerRequest) async -> HTTPServerResponse {
        if request.bodyTooLarge {
            return Self.response(.errorResponse(status: 413, type: "BadRequestException", message: "request body is too large"), isHead: false)
        }
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.lowercased()] = value }
        let restRequest = IcebergRESTRequest(
            method: request.method.rawValue, path: request.path, query: request.query, headers: headers, body: request.body)
        let response = await handler.handle(restRequest)
        return Self.response(response, isHead: request.method == .HEAD)
    }

    static func response(_ response: IcebergRESTResponse, isHead: Bool) -> HTTPServerResponse {
        var headers = HTTPHeaders()
        for (name, value) in response.headers { headers.add(name: name, value: value) }
        return HTTPServerResponse(status: HTTPResponseStatus(statusCode: response.status), headers: headers, body: .bytes(isHead ? [] : response.body))
    }
}
