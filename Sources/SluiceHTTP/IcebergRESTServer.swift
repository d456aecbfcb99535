import Hummingbird
import HummingbirdCore
import NIOCore
import SluiceCore
import SluiceLakehouse
import Synchronization

/// The Iceberg REST catalog served over HTTP/1.1 with Hummingbird 2, in the background
/// (``BackgroundHTTPServer``): ``start()`` returns the bound port, ``stop()`` ends it. Binds
/// 127.0.0.1 unless told otherwise.
package final class IcebergRESTServer: Sendable {
    package let handler: IcebergRESTHandler
    private let server: BackgroundHTTPServer<RouterResponder<SluiceRequestContext>>

    /// - Parameters:
    ///   - principals: client id → secret of who may get tokens; `root`/`secret` by default
    ///     (the seed configurations use it).
    ///   - defaultWarehouse: the warehouse for `/v1/config` without `warehouse` and unprefixed paths.
    ///   - s3Settings: vended to clients that ask for `vended-credentials` on S3 tables.
    package init(store: IcebergCatalogStore, host: String = "127.0.0.1", port: Int = 8181,
                 principals: [String: String] = ["root": "secret"], defaultWarehouse: String = "default",
                 s3Settings: IcebergS3Settings? = nil, tokenLifetimeSeconds: Int64 = 3600,
                 builder: HTTPServerBuilder = .http1()) throws(SluiceError) {
        let tokens = try IcebergTokenAuthority(rootDirectory: store.rootDirectory, principals: principals, lifetimeSeconds: tokenLifetimeSeconds)
        let handler = IcebergRESTHandler(store: store, tokens: tokens, defaultWarehouse: defaultWarehouse, s3Settings: s3Settings)
        self.handler = handler
        // The REST spec's routes (and its OAuth2 tokens) are the handler's own: every request
        // goes to it.
        let router = Router(context: SluiceRequestContext.self)
        let responder = IcebergHTTPResponder(handler: handler)
        router.addFallback { request, _ in try await responder.respond(to: request) }
        server = BackgroundHTTPServer(host: host, port: port, responder: router.buildResponder(), name: "Iceberg REST server", builder: builder)
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

/// Adapts Hummingbird requests to ``IcebergRESTHandler``.
struct IcebergHTTPResponder: Sendable {
    let handler: IcebergRESTHandler

    func respond(to request: Request) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: IcebergRESTHandler.maximumBodySize)
        } catch {
            return Self.response(.errorResponse(status: 413, type: "BadRequestException", message: "request body is too large"), isHead: false)
        }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let restRequest = IcebergRESTRequest(
            method: request.method.rawValue, path: request.uri.path, query: request.uri.query,
            headers: headers, body: Array(buffer: body))
        let response = await handler.handle(restRequest)
        return Self.response(response, isHead: request.method == .head)
    }

    static func response(_ response: IcebergRESTResponse, isHead: Bool) -> Response {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let fieldName = HTTPFields.Element.Name(name) { fields[fieldName] = value }
        }
        let body = isHead || response.body.isEmpty ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: response.body))
        return Response(status: HTTPResponse.Status(code: response.status), headers: fields, body: body)
    }
}
