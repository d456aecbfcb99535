import Hummingbird
import NIOCore
import SluiceCore
import Synchronization

/// The Iceberg REST catalog served over HTTP/1.1 with Hummingbird 2.
///
/// ``run()`` serves until its task is cancelled; ``start()`` runs it in the background and
/// returns the bound port (useful with port 0), ``stop()`` ends it. It uses Hummingbird's
/// shared event loop group, so it lives alongside other NIO servers in one process. Binds
/// 127.0.0.1 unless told otherwise.
package final class IcebergRESTServer: Sendable {
    package let handler: IcebergRESTHandler
    package let host: String
    package let requestedPort: Int
    private let background = Mutex<Task<Void, any Error>?>(nil)
    private let boundPort = Mutex<Int?>(nil)

    /// - Parameters:
    ///   - principals: client id → secret of who may get tokens; `root`/`secret` by default
    ///     (the seed configurations use it).
    ///   - defaultWarehouse: the warehouse for `/v1/config` without `warehouse` and unprefixed paths.
    ///   - s3Settings: vended to clients that ask for `vended-credentials` on S3 tables.
    package init(store: IcebergCatalogStore, host: String = "127.0.0.1", port: Int = 8181,
                 principals: [String: String] = ["root": "secret"], defaultWarehouse: String = "default",
                 s3Settings: IcebergS3Settings? = nil, tokenLifetimeSeconds: Int64 = 3600) throws(SluiceError) {
        let tokens = try IcebergTokenAuthority(rootDirectory: store.rootDirectory, principals: principals, lifetimeSeconds: tokenLifetimeSeconds)
        self.handler = IcebergRESTHandler(store: store, tokens: tokens, defaultWarehouse: defaultWarehouse, s3Settings: s3Settings)
        self.host = host
        self.requestedPort = port
    }

    /// The port the server listens on once it runs.
    package var port: Int? { boundPort.withLock { $0 } }

    /// Serves until the calling task is cancelled.
    package func run() async throws {
        try await run(onRunning: { _ in })
    }

    func run(onRunning: @escaping @Sendable (Int) -> Void) async throws {
        let application = Application(
            responder: IcebergHTTPResponder(handler: handler),
            configuration: ApplicationConfiguration(address: .hostname(host, port: requestedPort), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                self.boundPort.withLock { $0 = port }
                onRunning(port)
            })
        try await application.run()
    }

    /// Starts serving in the background; returns the bound port once the server listens.
    /// - Throws: when the server fails before listening (e.g. the port is taken).
    @discardableResult
    package func start() async throws -> Int {
        let (ready, continuation) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let task = Task {
            do {
                try await self.run(onRunning: { port in continuation.yield(.success(port)) })
                continuation.yield(.failure(SluiceError(.ioError, "the Iceberg REST server stopped")))
            } catch {
                continuation.yield(.failure(error))
                throw error
            }
        }
        background.withLock { $0 = task }
        for await result in ready { return try result.get() }
        throw SluiceError(.ioError, "the Iceberg REST server did not start")
    }

    /// Stops a server started with ``start()`` and waits for it to finish.
    package func stop() async {
        guard let task = background.withLock({ current -> Task<Void, any Error>? in
            defer { current = nil }
            return current
        }) else { return }
        task.cancel()
        _ = await task.result
    }
}

/// Adapts Hummingbird requests to ``IcebergRESTHandler``.
struct IcebergHTTPResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let handler: IcebergRESTHandler

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
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
