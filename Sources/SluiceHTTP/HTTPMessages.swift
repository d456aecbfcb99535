import SluiceNet

/// A request as a route sees it: its head, and its body read whole up to the server's bound.
package struct HTTPServerRequest: Sendable {
    package var method: HTTPMethod
    /// The path as sent (not percent-decoded), without the query.
    package var path: String
    /// The query as sent, without its `?`; nil when there is none.
    package var query: String?
    package var headers: HTTPHeaders
    /// The body, or its first ``HTTPServer/maximumBodyBytes`` bytes when ``bodyTooLarge``.
    package var body: [UInt8]
    /// Whether the body was longer than the server reads: the route answers 413 (it is not
    /// read further, and the connection closes after the answer).
    package var bodyTooLarge: Bool

    package init(
        method: HTTPMethod, uri: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], bodyTooLarge: Bool = false
    ) {
        self.method = method
        if let mark = uri.firstIndex(of: "?") {
            path = String(uri[..<mark])
            query = String(uri[uri.index(after: mark)...])
        } else {
            path = uri
            query = nil
        }
        if path.isEmpty { path = "/" }
        self.headers = headers
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }
}

/// An answer: a status, headers, and a body of bytes or one written as it comes (server-sent
/// events), sent chunked.
package struct HTTPServerResponse: Sendable {
    package var status: HTTPResponseStatus
    package var headers: HTTPHeaders
    package var body: Body

    package enum Body: Sendable {
        case bytes([UInt8])
        /// Written by the closure, chunk by chunk, until it returns or a write fails (the client
        /// went away).
        case stream(@Sendable (HTTPBodyWriter) async throws -> Void)
    }

    package init(status: HTTPResponseStatus, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A body of `bytes` with its content type.
    package init(status: HTTPResponseStatus, contentType: String, bytes: [UInt8], headers: HTTPHeaders = HTTPHeaders()) {
        var headers = headers
        headers.replaceOrAdd(name: "content-type", value: contentType)
        self.init(status: status, headers: headers, body: .bytes(bytes))
    }

    /// A plain-text answer.
    package static func text(_ text: String, status: HTTPResponseStatus = .ok) -> HTTPServerResponse {
        HTTPServerResponse(status: status, contentType: "text/plain; charset=utf-8", bytes: Array(text.utf8))
    }
}

/// Writes a streamed body's chunks; each write returns once the chunk is handed to the socket,
/// so a slow client slows the writer.
package struct HTTPBodyWriter: Sendable {
    let send: @Sendable ([UInt8]) async throws -> Void

    package func write(_ bytes: [UInt8]) async throws {
        try await send(bytes)
    }
}
