import NIOCore
import SluiceCore
import SluiceHTTP
import SluiceLakehouse
import SluiceNet

/// The built-in schema registry (`--schema-registry-listen`, port 8081 as Confluent's): the
/// ``SchemaRegistryHandler`` served over HTTP in the background, so Kafka clients' Avro
/// serializers and deserializers work against Sluice alone.
package typealias SchemaRegistryServer = BackgroundHTTPServer

extension BackgroundHTTPServer {
    /// `access` decides who may use it, as for the dashboard: its listener's clients log in as
    /// the SQL port's would from their address (HTTP Basic with SQL users' passwords, which
    /// Confluent's clients send as `basic.auth.user.info`).
    package convenience init(host: String, port: Int, store: SchemaRegistryStore, access: HTTPAccess = .trusted, tls: TLSContext? = nil) {
        var router = HTTPRouterBuilder()
        router.add(middleware: AuthenticationMiddleware(access, challenge: SchemaRegistryResponder.unauthorized))
        // Confluent's API routes inside the framework-free handler.
        let responder = SchemaRegistryResponder(handler: SchemaRegistryHandler(store: store))
        router.addFallback { request, _ in responder.respond(to: request) }
        self.init(
            host: host, port: port, router: router.build(), name: "schema registry", tls: tls, maximumBodyBytes: SchemaRegistryHandler.maximumBodyBytes)
    }
}

/// Adapts HTTP requests to ``SchemaRegistryHandler``.
package struct SchemaRegistryResponder: Sendable {
    let handler: SchemaRegistryHandler

    /// Confluent's answer to a request without valid credentials, with the Basic challenge.
    @Sendable static func unauthorized() -> HTTPServerResponse {
        var response = Self.response(.init(status: 401, body: .object(["error_code": .int(40101), "message": .string("Unauthorized")])))
        response.headers.add(name: "www-authenticate", value: "Basic realm=\"sluice\", charset=\"UTF-8\"")
        return response
    }

    func respond(to request: HTTPServerRequest) -> HTTPServerResponse {
        if request.bodyTooLarge {
            return Self.response(.init(status: 413, body: .object(["error_code": .int(413), "message": .string("the request body is too large")])))
        }
        let reply = handler.handle(method: request.method.rawValue, path: request.path, query: request.query, body: request.body)
        return Self.response(reply)
    }

    static func response(_ reply: SchemaRegistryHandler.Reply) -> HTTPServerResponse {
        HTTPServerResponse(status: HTTPResponseStatus(statusCode: reply.status), contentType: "application/vnd.schemaregistry.v1+json", bytes: reply.body.bytes)
    }
}
