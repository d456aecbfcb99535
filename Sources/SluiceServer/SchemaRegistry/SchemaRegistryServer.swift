import Hummingbird
import HummingbirdCore
import NIOCore
import SluiceCore
import SluiceHTTP
import SluiceLakehouse

/// The built-in schema registry (`--schema-registry-listen`, port 8081 as Confluent's): the
/// ``SchemaRegistryHandler`` served over HTTP in the background, so Kafka clients' Avro
/// serializers and deserializers work against Sluice alone.
package typealias SchemaRegistryServer = BackgroundHTTPServer<SchemaRegistryResponder>

extension BackgroundHTTPServer where Responder == SchemaRegistryResponder {
    /// `access` decides who may use it, as for the dashboard: its listener's clients log in as
    /// the SQL port's would from their address (HTTP Basic with SQL users' passwords, which
    /// Confluent's clients send as `basic.auth.user.info`).
    package convenience init(host: String, port: Int, store: SchemaRegistryStore, access: HTTPAccess = .trusted, builder: HTTPServerBuilder = .http1()) {
        self.init(
            host: host, port: port, responder: SchemaRegistryResponder(handler: SchemaRegistryHandler(store: store), access: access),
            name: "schema registry", builder: builder)
    }
}

/// Adapts Hummingbird's requests to ``SchemaRegistryHandler``.
package struct SchemaRegistryResponder: HTTPResponder {
    package typealias Context = BasicRequestContext

    let handler: SchemaRegistryHandler
    let access: HTTPAccess

    package func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        guard await access.user(of: request) != nil else {
            // Confluent's answer to a request without valid credentials, with the Basic challenge.
            var response = Self.response(.init(status: 401, body: .object(["error_code": .int(40101), "message": .string("Unauthorized")])))
            response.headers[.wwwAuthenticate] = "Basic realm=\"sluice\", charset=\"UTF-8\""
            return response
        }
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
