import SluiceCore

/// A parsed endpoint URL: scheme, host and port, and the host header and URL of each request.
package struct S3Endpoint: Sendable, Hashable {
    package var isSecure: Bool
    /// The host as written in URLs (an IPv6 address keeps its brackets).
    package var host: String
    package var port: Int?

    /// The configured endpoint, or AWS's regional one.
    package init(config: S3Config) throws(SluiceError) {
        guard let endpoint = config.endpoint else {
            self.init(isSecure: true, host: "s3.\(config.region).amazonaws.com", port: nil)
            return
        }
        try self.init(parsing: endpoint)
    }

    package init(isSecure: Bool, host: String, port: Int?) {
        self.isSecure = isSecure
        self.host = host
        self.port = port
    }

    /// Parses `http[s]://host[:port][/]`; a path, query or user part is an error.
    package init(parsing text: String) throws(SluiceError) {
        let invalid = SluiceError(.invalidParameterValue, "invalid S3 endpoint \"\(text)\"",
                                  hint: "Give the endpoint as http://host:port or https://host.")
        var rest: Substring
        if text.hasPrefix("https://") {
            isSecure = true
            rest = text.dropFirst(8)
        } else if text.hasPrefix("http://") {
            isSecure = false
            rest = text.dropFirst(7)
        } else {
            throw invalid
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@"), !rest.contains("?"), !rest.contains("#") else { throw invalid }
        var hostPart = rest
        port = nil
        if let colon = rest.lastIndex(of: ":"), !rest[colon...].contains("]") {
            guard let number = Int(rest[rest.index(after: colon)...]), (1 ... 65535).contains(number) else { throw invalid }
            port = number
            hostPart = rest[..<colon]
        }
        guard !hostPart.isEmpty, !hostPart.contains(" ") else { throw invalid }
        host = String(hostPart)
    }

    package var scheme: String { isSecure ? "https" : "http" }

    /// `host[:port]` with the port only when it is not the scheme's default, as HTTP clients
    /// send the Host header (and so as it must be signed).
    package func authority(bucket: String?) -> String {
        let name = bucket.map { "\($0).\(host)" } ?? host
        guard let port, port != (isSecure ? 443 : 80) else { return name }
        return "\(name):\(port)"
    }
}
