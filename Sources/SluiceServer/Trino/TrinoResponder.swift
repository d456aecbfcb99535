import SluiceAuth
import SluiceCore
import SluiceHTTP
import SluiceNet
import SluicePGWire

/// The Trino door's routes: a statement's POST, its pages' GET and DELETE, and a query's info.
struct TrinoResponder: Sendable {
    let database: Database
    let queries: TrinoQueries
    let scheme: String
    let users: any UserDirectory
    let authentication: PGAuthMethod
    let catalogs: TrinoCatalogs

    @Sendable static func unauthorized() -> HTTPServerResponse {
        var response = problem(.unauthorized, "Unauthorized")
        response.headers.add(name: "www-authenticate", value: "Basic realm=\"sluice\", charset=\"UTF-8\"")
        return response
    }

    static func json(_ body: [UInt8], headers: [(String, String)] = []) -> HTTPServerResponse {
        HTTPServerResponse(status: .ok, contentType: "application/json", bytes: body, headers: HTTPHeaders(headers))
    }

    /// A 4xx answer for a request the protocol cannot take, as Trino's plain-text ones.
    static func problem(_ status: HTTPResponseStatus, _ message: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, contentType: "text/plain; charset=utf-8", bytes: Array((message + "\n").utf8))
    }

    /// A header Trino's clients send as `X-Trino-…` and Presto's as `X-Presto-…`.
    static func header(_ request: HTTPServerRequest, _ name: String) -> String? {
        request.headers.first(name: "x-trino-" + name) ?? request.headers.first(name: "x-presto-" + name)
    }

    private func uris(_ request: HTTPServerRequest) -> TrinoURIs? {
        guard let host = request.headers.first(name: "host"), !host.isEmpty,
              host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        return TrinoURIs(base: "\(scheme)://\(host)")
    }

    func post(_ request: HTTPServerRequest, _ context: HTTPRequestContext) async -> HTTPServerResponse {
        if request.bodyTooLarge { return Self.problem(.payloadTooLarge, "the statement is larger than 1 MiB") }
        guard let sql = String(validating: request.body, as: UTF8.self) else { return Self.problem(.badRequest, "the statement is not UTF-8") }
        guard !sql.allSatisfy(\.isWhitespace) else { return Self.problem(.badRequest, "SQL statement is empty") }
        guard let uris = uris(request) else { return Self.problem(.badRequest, "the request has no valid Host header") }
        var parameters: [String: String] = [:]
        if let zone = Self.header(request, "time-zone") {
            guard (try? database.timeZones.sessionTimeZone(setting: zone)) != nil else {
                return Self.problem(.badRequest, "Time zone not supported: \(zone)")
            }
            parameters["timezone"] = zone
        }
        // Session properties (`name=value`, comma-separated) are Trino's engine settings; their
        // shape is checked, their values have no meaning here.
        for header in request.headers["x-trino-session"] + request.headers["x-presto-session"] {
            for property in header.split(separator: ",") where !property.trimmingCharacters(in: .whitespaces).isEmpty {
                let parts = property.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, !parts[0].trimmingCharacters(in: .whitespaces).isEmpty else {
                    return Self.problem(.badRequest, "Invalid X-Trino-Session header: \(property)")
                }
            }
        }
        guard let prepared = TrinoPreparedStatements.decode(request.headers["x-trino-prepared-statement"] + request.headers["x-presto-prepared-statement"])
        else { return Self.problem(.badRequest, "Invalid X-Trino-Prepared-Statement header") }
        let names = TrinoSessionNames(
            catalog: Self.header(request, "catalog").flatMap { $0.isEmpty ? nil : $0.lowercased() },
            schema: Self.header(request, "schema").flatMap { $0.isEmpty ? nil : $0.lowercased() })
        if names.catalog == nil, names.schema != nil { return Self.problem(.badRequest, "Schema is set but catalog is not") }
        guard let user = sessionUser(request, context) else { return Self.unauthorized() }
        let catalogs = catalogs
        let session = SQLSession(
            database: database, user: user, databaseName: "dev", parameters: parameters,
            names: { name, scans throws(SluiceError) in try catalogs.resolve(name, session: names, scans: scans) },
            questionMarkParameters: true)
        let query = TrinoQuery(id: queries.nextID(), slug: Self.slug(), session: session) {
            do throws(SluiceError) {
                return try await TrinoStatement.parse(sql).run(session: session, names: names, catalogs: catalogs, prepared: prepared)
            } catch {
                return .failed(TrinoError(error))
            }
        }
        guard queries.add(query) else {
            query.cancel()
            return Self.problem(.serviceUnavailable, "too many queries are running")
        }
        let page = await query.firstPage(uris, waiting: .milliseconds(20))
        if !page.hasNext { queries.remove(query.id) }
        return Self.json(page.body, headers: page.headers)
    }

    /// The role a query runs as: the one HTTP Basic proved; without credentials, the role
    /// `X-Trino-User` names where the SQL port would let it in without a password (as `psql -U`
    /// does), else the one the listener trusts (`root`). Nil: the named role may not log in so.
    private func sessionUser(_ request: HTTPServerRequest, _ context: HTTPRequestContext) -> String? {
        let authenticated = context.user?.name ?? "root"
        guard request.headers.first(name: "authorization") == nil, let named = Self.header(request, "user"), !named.isEmpty,
              named != authenticated
        else { return authenticated }
        switch (authentication, users.login(named)) {
        case (.trust, .allowed): return named
        case (.auto, .allowed(nil, _)): return named
        default: return nil
        }
    }

    func get(_ request: HTTPServerRequest, _ context: HTTPRequestContext) async -> HTTPServerResponse {
        guard let id = context.parameters["id"], let slug = context.parameters["slug"], let token = context.parameters["token"].flatMap({ Int($0) }) else {
            return Self.problem(.badRequest, "the address is not a query's")
        }
        guard let uris = uris(request) else { return Self.problem(.badRequest, "the request has no valid Host header") }
        guard let query = queries.query(id, slug: slug) else { return Self.problem(.notFound, "Query not found: \(id)") }
        guard let page = await query.page(token, uris) else { return Self.problem(.notFound, "Query \(id) has no page \(token)") }
        // A page without a next address ends the query: nothing is kept for it.
        if !page.hasNext { queries.remove(id) }
        return Self.json(page.body, headers: page.headers)
    }

    /// `GET /v1/query/{id}`: whether the query is kept, and its state (it does not count as a
    /// client's interest: an abandoned query is still dropped).
    func info(_ request: HTTPServerRequest, _ context: HTTPRequestContext) -> HTTPServerResponse {
        guard let id = context.parameters["id"], let query = queries.query(id) else { return Self.problem(.notFound, "Query not found") }
        var json = TrinoJSONWriter()
        json.raw("{\"queryId\":")
        json.string(query.id)
        json.raw(",\"state\":")
        json.string(query.state)
        json.raw("}")
        return Self.json(json.bytes)
    }

    func delete(_ request: HTTPServerRequest, _ context: HTTPRequestContext) -> HTTPServerResponse {
        guard let id = context.parameters["id"], let slug = context.parameters["slug"], queries.query(id, slug: slug) != nil else {
            return Self.problem(.notFound, "Query not found")
        }
        queries.remove(id)
        return HTTPServerResponse(status: .noContent)
    }

    /// 16 random hex digits.
    static func slug() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
