import NIOCore
import SluiceCore

/// An absolute `http` or `https` URL, split as a request needs it.
package struct HTTPURL: Sendable, Equatable {
    package var isSecure: Bool
    package var host: String
    package var port: Int
    /// The path and query as sent on the request line (`/` at least).
    package var target: String

    /// - Throws: ``HTTPClientError/invalidURL(_:)`` for anything but `http[s]://host[:port][/…]`.
    package init(_ text: String) throws(HTTPClientError) {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { throw .invalidURL(text) }
        let scheme = text[..<colon]
        let rest = text[text.index(colon, offsetBy: 3)...]
        switch scheme.lowercased() {
        case "http": isSecure = false
        case "https": isSecure = true
        default: throw .invalidURL(text)
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        // user:password@ is not sent (the callers put credentials in headers).
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var target = String(rest[authorityEnd...])
        if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
        if target.isEmpty || target.first == "?" { target = "/" + target }
        self.target = target
        var hostPart = authority
        var portText: Substring? = nil
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(text) }
            hostPart = authority[authority.index(after: authority.startIndex) ..< close]
            let after = authority[authority.index(after: close)...]
            if after.first == ":" { portText = after.dropFirst() } else if !after.isEmpty { throw .invalidURL(text) }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw .invalidURL(text) }
        host = String(hostPart)
        if let portText {
            guard let value = Int(portText), (1 ... 65535).contains(value) else { throw .invalidURL(text) }
            port = value
        } else {
            port = isSecure ? 443 : 80
        }
    }

    /// The `Host` header's value: the port only when it is not the scheme's.
    package var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The connection pool's key: requests to one origin share connections.
    var origin: String { "\(isSecure ? "https" : "http")://\(hostHeader)" }

    /// The URL as written (without the default port, a user or a fragment).
    package var absoluteString: String { origin + target }
}

/// One request: the method, the URL, the headers (a `Host`, a `User-Agent` and a
/// `Content-Length` are added unless given) and the body.
package struct HTTPClientRequest: Sendable {
    package var method: String
    package var url: HTTPURL
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]?

    package init(method: String, url: HTTPURL, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    package init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) throws(HTTPClientError) {
        self.init(method: method, url: try HTTPURL(url), headers: headers, body: body)
    }

    /// The last header of that name given (names compare without case), as it will be sent.
    package func header(_ name: String) -> String? {
        headers.last { $0.name.caseInsensitiveEquals(name) }?.value
    }
}

/// An answer: the status, the headers as sent, the whole body.
package struct HTTPClientResponse: Sendable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]

    /// The first header of that name (names compare without case).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }
}

/// Why a request got no answer.
package enum HTTPClientError: Error, Equatable, CustomStringConvertible, Sendable {
    case invalidURL(String)
    /// No connection could be made (refused, no such host, the connect timeout).
    case connectFailed(String)
    /// The TLS handshake or a record failed.
    case tls(String)
    /// The peer closed the connection before the whole answer came.
    case closedByPeer
    /// No byte came within the read timeout, or the request's deadline passed.
    case timedOut
    /// The answer's body is longer than the client takes.
    case responseTooLarge(limit: Int)
    /// The answer is not HTTP/1.1.
    case malformedResponse(String)
    /// The client was shut down.
    case shutDown

    package var description: String {
        switch self {
        case .invalidURL(let url): "not an http or https URL: \(url)"
        case .connectFailed(let reason): "could not connect: \(reason)"
        case .tls(let reason): "TLS failed: \(reason)"
        case .closedByPeer: "the server closed the connection before it answered"
        case .timedOut: "no answer in time"
        case .responseTooLarge(let limit): "the answer is longer than \(limit) bytes"
        case .malformedResponse(let reason): "the answer is not HTTP/1.1: \(reason)"
        case .shutDown: "the HTTP client is shut down"
        }
    }

    /// Whether the same request may pass when sent again: a connection that failed or broke off.
    package var isTransient: Bool {
        switch self {
        case .connectFailed, .closedByPeer, .timedOut, .tls: true
        case .invalidURL, .responseTooLarge, .malformedResponse, .shutDown: false
        }
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        func folded(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte | 0x20 : byte }
        return utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { folded($0) == folded($1) }
    }
}
