import Hummingbird
import HummingbirdCore
import NIOCore
import SluiceCore
import SluiceHTTP
import SluiceLakehouse

/// The built-in schema registry (`--schema-registry-listen`, port 8081 as Confluent's): the
/// ``SchemaRegistryHandler`` served over HTTP in the background, so Kafka clients' Avro
/// serializers and deserializers work against Sluice alone.
package typealias SchemaRegistryServer = BackgroundHTTPServer<RouterResponder<SluiceRequestContext>>

extension BackgroundHTTPServer where Responder == RouterResponder<SluiceRequestContext> {
    /// `access` decides who may use it, as for the dashboard: its listener's clients log in as
    /// the SQL port's would from their address (HTTP Basic with SQL users' passwords, which
    /// Confluent's clients send as `basic.auth.user.info`).
    package convenience init(host: String, port: Int, store: SchemaRegistryStore, access: HTTPAccess = .trusted, builder: HTTPServerBuilder = .http1()) {
        let router = Router(context: SluiceRequestContext.self)
        router.add(middleware: AuthenticationMiddleware(access, challenge: SchemaRegistryResponder.unauthorized))
        // Confluent's API routes inside the framework-free handler.
        let responder = SchemaRegistryResponder(handler: SchemaRegistryHandler(store: store))
        router.addFallback { request, _ in await responder.respond(to: request) }
        self.init(host: host, port: port, responder: router.buildResponder(), name: "schema registry", builder: builder)
    }
}

/// Adapts Hummingbird's requests to ``SchemaRegistryHandler``.
package struct SchemaRegistryResponder: Sendable {
    let handler: SchemaRegistryHandler

    /// Confluent's answer to a request without valid credentials, with the Basic challenge.
    @Sendable static func unauthorized() -> Response {
        var response = Self.response(.init(status: 401, body: .object(["error_code": .int(40101), "message": .string("Unauthorized")])))
        response.headers[.wwwAuthenticate] = "Basic realm=\"sluice\", charset=\"UTF-8\""
        return response
    }

    func respond(to request: Request) async -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: SchemaRegistryHandler.maximumBodyBytes)
        } catch {
            return Self.response(.init(status: 413, body: .object(["error_code": .int(413), "message": .string("the request body is too large")])))
        }
        let reply = handler.handle(method: request.method.rawValue, path: request.uri.path, query: request.uri.query, body: Array(buffer: body))
        return Self.response(reply)
    }

    static func response(_ reply: SchemaRegistryHandler.Reply) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/vnd.schemaregistry.v1+json"
        return Response(status: HTTPResponse.Status(code: reply.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body.bytes)))
    }
}
