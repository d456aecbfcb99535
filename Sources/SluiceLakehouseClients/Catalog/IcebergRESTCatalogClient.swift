import Foundation
import NIOCore
import SluiceCore
import SluiceLakehouse
import SluiceNet
import Synchronization

/// An ``IcebergCatalog`` backed by a remote Iceberg REST catalog (Polaris, Lakekeeper, Sluice's
/// own server), the way pyiceberg's `RestCatalog` talks to one.
///
/// On first use it gets an OAuth2 token (client credentials from `credential`, `id:secret`,
/// sent with `scope`) from `oauth2ServerURI` (default `<uri>/v1/oauth/tokens`), then reads
/// `/v1/config?warehouse=…` whose `overrides.prefix` becomes the path prefix of every later
/// call. A 401 or 419 answer makes it fetch a new token and retry once.
package final class IcebergRESTCatalogClient: IcebergCatalog {
    package struct Configuration: Sendable {
        /// The catalog's base URI, with or without a path such as `/api/catalog`.
        package var uri: String
        /// `client_id:client_secret` (or just a secret), exchanged for a token.
        package var credential: String?
        /// A token to use as is (no exchange).
        package var token: String?
        /// OAuth2 scope sent with the credential; pyiceberg's default is `catalog`.
        package var scope: String
        package var warehouse: String?
        /// Extra headers sent with every request (`Polaris-Realm`, …).
        package var headers: [String: String]
        package var oauth2ServerURI: String?
        package var requestTimeoutSeconds: Int64

        package init(uri: String, credential: String? = nil, token: String? = nil, scope: String = "catalog", warehouse: String? = nil,
                     headers: [String: String] = [:], oauth2ServerURI: String? = nil, requestTimeoutSeconds: Int64 = 30) {
            var base = uri
            while base.hasSuffix("/") { base.removeLast() }
            self.uri = base
            self.credential = credential
            self.token = token
            self.scope = scope
            self.warehouse = warehouse
            self.headers = headers
            self.oauth2ServerURI = oauth2ServerURI
            self.requestTimeoutSeconds = requestTimeoutSeconds
        }
    }

    package let configuration: Configuration
    let httpClient: HTTPClient
    /// The bearer token and the path prefix, once known.
    private let session = Mutex<(token: String?, prefix: String?)>((nil, nil))

    /// The process's client for catalogs and schema registries: a refused connection fails the
    /// request at once (the caller retries with backoff), so an unreachable catalog is
    /// reported in seconds; an answer may be at most 64 MiB.
    package static let sharedHTTPClient = HTTPClient(configuration: .init(connectTimeout: .seconds(5), readTimeout: .seconds(60)))

    package init(configuration: Configuration, httpClient: HTTPClient = IcebergRESTCatalogClient.sharedHTTPClient) {
        self.configuration = configuration
        self.httpClient = httpClient
        session.withLock { $0.token = configuration.token }
    }

    // MARK: IcebergCatalog

    package func createNamespaceIfMissing(_ namespace: [String]) async throws(SluiceError) {
        guard !namespace.isEmpty else { throw IcebergCatalogError.badRequest("namespace must not be empty") }
        for depth in 1 ... namespace.count {
            let parts = Array(namespace.prefix(depth))
            let body = JSONDocument.object(["namespace": .array(parts.map { .string($0) }), "properties": .object([])])
            let response = try await send("POST", "namespaces", body: body)
            if response.status == 409 { continue }
            try check(response)
        }
    }

    package func loadTable(_ identifier: IcebergTableIdentifier) async throws(SluiceError) -> IcebergLoadedTable? {
        let response = try await send("GET", tablePath(identifier))
        if response.status == 404 { return nil }
        try check(response)
        return try IcebergLoadedTable(json: try JSONDocument.parse(response.body))
    }

    package func createTable(namespace: [String], _ creation: IcebergTableCreation) async throws(SluiceError) -> IcebergLoadedTable {
        let response = try await send("POST", "namespaces/\(IcebergRESTCatalogClient.encodeNamespace(namespace))/tables", body: creation.json)
        try check(response)
        return try IcebergLoadedTable(json: try JSONDocument.parse(response.body))
    }

    package func commitTable(_ identifier: IcebergTableIdentifier, requirements: [IcebergTableRequirement],
                             updates: [IcebergTableUpdate]) async throws(SluiceError) -> IcebergLoadedTable {
        let body = JSONDocument.object([
            "identifier": identifier.json,
            "requirements": .array(requirements.map(\.json)),
            "updates": .array(updates.map(\.json)),
        ])
        let response = try await send("POST", tablePath(identifier), body: body)
        try check(response)
        return try IcebergLoadedTable(json: try JSONDocument.parse(response.body))
    }

    /// Drops a table (`purge` also deletes its files, if the server does that).
    package func dropTable(_ identifier: IcebergTableIdentifier, purge: Bool = false) async throws(SluiceError) {
        try check(try await send("DELETE", tablePath(identifier), query: "purgeRequested=\(purge)"))
    }

    // MARK: HTTP

    func tablePath(_ identifier: IcebergTableIdentifier) -> String {
        "namespaces/\(IcebergRESTCatalogClient.encodeNamespace(identifier.namespace))/tables/\(IcebergRESTCatalogClient.encode(identifier.name))"
    }

    /// Parts percent-encoded and joined by `%1F`, the spec's default namespace separator.
    static func encodeNamespace(_ namespace: [String]) -> String {
        namespace.map(encode).joined(separator: "%1F")
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// Sends a prefixed catalog request, refreshing the token once on 401/419.
    func send(_ method: String, _ path: String, query: String? = nil, body: JSONDocument? = nil) async throws(SluiceError) -> IcebergRESTResponse {
        var attempt = 0
        while true {
            let (token, prefix) = try await ensureSession()
            var url = "\(configuration.uri)/v1/"
            if let prefix, !prefix.isEmpty { url += "\(IcebergRESTCatalogClient.encode(prefix))/" }
            url += path
            if let query { url += "?\(query)" }
            let response = try await execute(method, url, token: token, body: body.map { ($0.bytes, "application/json") })
            if (response.status == 401 || response.status == 419) && attempt == 0 && configuration.credential != nil {
                attempt += 1
                session.withLock { $0.token = nil }
                continue
            }
            return response
        }
    }

    /// The token and prefix, fetching them when not yet known.
    func ensureSession() async throws(SluiceError) -> (token: String?, prefix: String?) {
        let current = session.withLock { $0 }
        var token = current.token
        if token == nil, let credential = configuration.credential {
            token = try await fetchToken(credential)
            session.withLock { $0.token = token }
        }
        if let prefix = current.prefix { return (token, prefix) }
        var url = "\(configuration.uri)/v1/config"
        if let warehouse = configuration.warehouse { url += "?warehouse=\(IcebergRESTCatalogClient.encode(warehouse))" }
        let response = try await execute("GET", url, token: token, body: nil)
        try check(response)
        let config = try IcebergJSONFields(try JSONDocument.parse(response.body), context: "catalog config")
        let overrides = try config.stringMap("overrides")
        let defaults = try config.stringMap("defaults")
        let prefix = overrides["prefix"] ?? defaults["prefix"] ?? ""
        session.withLock { $0.prefix = prefix }
        return (token, prefix)
    }

    func fetchToken(_ credential: String) async throws(SluiceError) -> String {
        let parts = credential.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        var form = ["grant_type=client_credentials"]
        if parts.count == 2 {
            form.append("client_id=\(IcebergRESTCatalogClient.encode(parts[0]))")
            form.append("client_secret=\(IcebergRESTCatalogClient.encode(parts[1]))")
        } else {
            form.append("client_secret=\(IcebergRESTCatalogClient.encode(credential))")
        }
        form.append("scope=\(IcebergRESTCatalogClient.encode(configuration.scope))")
        let url = configuration.oauth2ServerURI ?? "\(configuration.uri)/v1/oauth/tokens"
        let response = try await execute("POST", url, token: nil, body: (Array(form.joined(separator: "&").utf8), "application/x-www-form-urlencoded"))
        guard response.status == 200 else {
            let description = (try? JSONDocument.parse(response.body)).flatMap { json -> String? in
                guard case .string(let code)? = json["error"] else { return nil }
                if case .string(let detail)? = json["error_description"] { return "\(code): \(detail)" }
                return code
            } ?? "HTTP \(response.status)"
            throw IcebergCatalogError.notAuthorized("could not get an OAuth2 token from \(URLCredentials.masking(in: url)): \(description)")
        }
        let fields = try IcebergJSONFields(try JSONDocument.parse(response.body), context: "token response")
        return try fields.string("access_token")
    }

    func execute(_ method: String, _ url: String, token: String?, body: (bytes: [UInt8], contentType: String)?) async throws(SluiceError) -> IcebergRESTResponse {
        var headers: [(name: String, value: String)] = [("X-Iceberg-Access-Delegation", "vended-credentials")]
        for (name, value) in configuration.headers.sorted(by: { $0.key < $1.key }) where name.lowercased() != "content-type" {
            headers.append((name, value))
        }
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let body { headers.append(("Content-Type", body.contentType)) }
        do {
            let request = try HTTPClientRequest(method: method, url: url, headers: headers, body: body?.bytes)
            let response = try await httpClient.execute(request, timeout: .seconds(configuration.requestTimeoutSeconds))
            return IcebergRESTResponse(status: response.status, body: response.body)
        } catch {
            // (A URL may carry a user and password; the client's error may quote it too.)
            throw SluiceError(
                .unableToEstablishConnection, URLCredentials.masking(in: "Iceberg REST request \(method) \(url) failed: \(error)"))
        }
    }

    /// Throws the catalog error an error response carries.
    func check(_ response: IcebergRESTResponse) throws(SluiceError) {
        guard response.status >= 300 else { return }
        var type = ""
        var message = "HTTP \(response.status)"
        if let json = try? JSONDocument.parse(response.body), let error = json["error"] {
            if case .string(let text)? = error["type"] { type = text }
            if case .string(let text)? = error["message"] { message = text }
        }
        throw IcebergCatalogError.error(status: response.status, type: type, message: message)
    }
}
