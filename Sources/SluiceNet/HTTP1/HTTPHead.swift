/// An HTTP request method, as sent (methods are case-sensitive: `get` is not `GET`).
package struct HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    package var rawValue: String

    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    package static let GET = HTTPMethod(rawValue: "GET")
    package static let HEAD = HTTPMethod(rawValue: "HEAD")
    package static let POST = HTTPMethod(rawValue: "POST")
    package static let PUT = HTTPMethod(rawValue: "PUT")
    package static let DELETE = HTTPMethod(rawValue: "DELETE")
    package static let PATCH = HTTPMethod(rawValue: "PATCH")
    package static let OPTIONS = HTTPMethod(rawValue: "OPTIONS")

    package var description: String { rawValue }
}

/// An HTTP version: 1.0 or 1.1 on this server and client.
package struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    package var major: Int
    package var minor: Int

    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    package static let http1_0 = HTTPVersion(major: 1, minor: 0)
    package static let http1_1 = HTTPVersion(major: 1, minor: 1)

    package var description: String { "HTTP/\(major).\(minor)" }
}

/// A message's header fields in the order they came, names compared without regard to case.
package struct HTTPHeaders: Sendable, Sequence, ExpressibleByArrayLiteral, CustomStringConvertible {
    private var fields: [(name: String, value: String)]

    package init() {
        fields = []
    }

    package init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    package init(arrayLiteral elements: (String, String)...) {
        self.init(elements)
    }

    package var count: Int { fields.count }

    package mutating func add(name: String, value: String) {
        fields.append((name, value))
    }

    /// Removes every field named `name`, then adds one.
    package mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append((name, value))
    }

    package mutating func remove(name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    package func contains(name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    /// The value of the first field named `name`.
    package func first(name: String) -> String? {
        fields.first { Self.same($0.name, name) }?.value
    }

    /// The values of every field named `name`, in order.
    package subscript(name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Whether a comma-separated field named `name` lists `token` (`Connection: keep-alive, Upgrade`).
    package func lists(_ token: String, in name: String) -> Bool {
        for value in self[name] {
            for part in value.split(separator: ",") where Self.same(part.trimmingSpaces, token) { return true }
        }
        return false
    }

    package func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    package var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "; ")
    }

    /// Equal but for ASCII case, compared byte by byte (field names are ASCII tokens).
    private static func same(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8) { Self.folds($0) == Self.folds($1) }
    }

    /// A byte with ASCII's upper-case letters made lower case.
    private static func folds(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        let text = Substring(self)
        guard let start = text.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return text[text.endIndex...] }
        let end = text.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return text[start ... end]
    }
}

/// A response status: its code and reason phrase.
package struct HTTPResponseStatus: Sendable, Hashable, CustomStringConvertible {
    package var code: UInt
    package var reasonPhrase: String

    package init(statusCode: Int, reasonPhrase: String = "") {
        code = UInt(max(0, statusCode))
        self.reasonPhrase = reasonPhrase.isEmpty ? Self.reason(of: statusCode) : reasonPhrase
    }

    package static func == (a: HTTPResponseStatus, b: HTTPResponseStatus) -> Bool { a.code == b.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

    package static let switchingProtocols = HTTPResponseStatus(statusCode: 101)
    package static let ok = HTTPResponseStatus(statusCode: 200)
    package static let created = HTTPResponseStatus(statusCode: 201)
    package static let noContent = HTTPResponseStatus(statusCode: 204)
    package static let notModified = HTTPResponseStatus(statusCode: 304)
    package static let badRequest = HTTPResponseStatus(statusCode: 400)
    package static let unauthorized = HTTPResponseStatus(statusCode: 401)
    package static let forbidden = HTTPResponseStatus(statusCode: 403)
    package static let notFound = HTTPResponseStatus(statusCode: 404)
    package static let methodNotAllowed = HTTPResponseStatus(statusCode: 405)
    package static let conflict = HTTPResponseStatus(statusCode: 409)
    package static let payloadTooLarge = HTTPResponseStatus(statusCode: 413)
    package static let unprocessableEntity = HTTPResponseStatus(statusCode: 422)
    package static let tooManyRequests = HTTPResponseStatus(statusCode: 429)
    package static let requestHeaderFieldsTooLarge = HTTPResponseStatus(statusCode: 431)
    package static let internalServerError = HTTPResponseStatus(statusCode: 500)
    package static let notImplemented = HTTPResponseStatus(statusCode: 501)
    package static let serviceUnavailable = HTTPResponseStatus(statusCode: 503)

    package var description: String { "\(code) \(reasonPhrase)" }

    /// RFC 9110's reason phrase for `code` (any phrase is valid; clients read the code).
    static func reason(of code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(code)"
        }
    }
}

/// A request's first line and header fields.
package struct HTTPRequestHead: Sendable {
    package var version: HTTPVersion
    package var method: HTTPMethod
    /// The request target as sent: a path with its query.
    package var uri: String
    package var headers: HTTPHeaders

    package init(version: HTTPVersion, method: HTTPMethod, uri: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.version = version
        self.method = method
        self.uri = uri
        self.headers = headers
    }

    /// Whether the connection stays open after this exchange: HTTP/1.1 unless `Connection:
    /// close`; HTTP/1.0 only with `Connection: keep-alive`.
    package var isKeepAlive: Bool { HTTPVersion.keepsAlive(version, headers) }
}

/// A response's status line and header fields.
package struct HTTPResponseHead: Sendable {
    package var version: HTTPVersion
    package var status: HTTPResponseStatus
    package var headers: HTTPHeaders

    package init(version: HTTPVersion, status: HTTPResponseStatus, headers: HTTPHeaders = HTTPHeaders()) {
        self.version = version
        self.status = status
        self.headers = headers
    }

    /// As ``HTTPRequestHead/isKeepAlive``.
    package var isKeepAlive: Bool { HTTPVersion.keepsAlive(version, headers) }
}

extension HTTPVersion {
    static func keepsAlive(_ version: HTTPVersion, _ headers: HTTPHeaders) -> Bool {
        if headers.lists("close", in: "connection") { return false }
        if version.major == 1 && version.minor == 0 { return headers.lists("keep-alive", in: "connection") }
        return true
    }
}

/// A message as it passes a connection: its head, its body's parts as they come, its end.
package enum HTTPPart<Head: Sendable, Body: Sendable>: Sendable {
    case head(Head)
    case body(Body)
    case end
}
