import Foundation
import SluiceCore

/// The Iceberg REST catalog API over an ``IcebergCatalogStore``: routing, authentication,
/// idempotency and JSON bodies, independent of the HTTP server that carries it.
///
/// Paths are served both as `/v1/...` and under Polaris's `/api/catalog/v1/...`. After
/// `/v1/config` names the warehouse as `prefix`, clients use `/v1/<warehouse>/...`; a path
/// without a prefix uses the default warehouse. Multi-level namespaces in paths are joined
/// by `%1F` (the spec's default separator). Every endpoint except the token endpoint requires
/// `Authorization: Bearer <token>`.
package struct IcebergRESTHandler: Sendable {
    package let store: IcebergCatalogStore
    package let tokens: IcebergTokenAuthority
    package let defaultWarehouse: String
    /// Settings vended to clients for tables on S3 (nil: none).
    package let s3Settings: IcebergS3Settings?
    let idempotency: IcebergIdempotencyCache
    let clock: @Sendable () -> Int64

    /// Request bodies above this are refused (a large commit is a few hundred KB).
    package static let maximumBodySize = 32 << 20

    package init(store: IcebergCatalogStore, tokens: IcebergTokenAuthority, defaultWarehouse: String = "default",
                 s3Settings: IcebergS3Settings? = nil, idempotency: IcebergIdempotencyCache = IcebergIdempotencyCache(),
                 clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.store = store
        self.tokens = tokens
        self.defaultWarehouse = defaultWarehouse
        self.s3Settings = s3Settings
        self.idempotency = idempotency
        self.clock = clock
    }

    /// Answers one request; never throws (every failure is an error response).
    package func handle(_ request: IcebergRESTRequest) async -> IcebergRESTResponse {
        var segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map { IcebergRESTRequest.percentDecode($0) }
        if segments.count >= 2, segments[0] == "api", segments[1] == "catalog" { segments.removeFirst(2) }
        guard segments.first == "v1" else { return notFound(request) }
        segments.removeFirst()
        let method = request.method.uppercased()

        if segments == ["oauth", "tokens"] {
            guard method == "POST" else { return methodNotAllowed(request) }
            return issueToken(request)
        }

        guard let principal = authenticatedPrincipal(request) else {
            return .errorResponse(status: 401, type: "NotAuthorizedException", message: "missing or invalid bearer token")
        }

        if segments == ["config"] {
            guard method == "GET" else { return methodNotAllowed(request) }
            return config(request)
        }

        let isMutating = method == "POST" || method == "DELETE"
        let idempotencyKey = isMutating ? request.headers["idempotency-key"].map { "\(principal)\u{1F}\($0)" } : nil
        if let idempotencyKey, let stored = idempotency.response(for: idempotencyKey, now: clock()) { return stored }

        let response: IcebergRESTResponse
        do throws(SluiceError) {
            response = try await route(method: method, segments: segments, request: request)
        } catch {
            response = .error(error)
        }
        if let idempotencyKey { idempotency.store(response, for: idempotencyKey, now: clock()) }
        return response
    }

    func route(method: String, segments: [String], request: IcebergRESTRequest) async throws(SluiceError) -> IcebergRESTResponse {
        // `/v1/namespaces/...` and `/v1/tables/rename` without a prefix use the default warehouse.
        var rest = segments[...]
        var warehouse = defaultWarehouse
        if let first = rest.first, first != "namespaces" && first != "tables" {
            warehouse = first
            rest = rest.dropFirst()
        }
        let path = Array(rest)
        switch (method, path.count, path.first) {
        case ("POST", 2, "tables") where path[1] == "rename":
            return try await renameTable(warehouse, request)
        case (_, 1, "namespaces"):
            switch method {
            case "GET": return try await listNamespaces(warehouse, request)
            case "POST": return try await createNamespace(warehouse, request)
            default: return methodNotAllowed(request)
            }
        case (_, 2, "namespaces"):
            let namespace = try IcebergRESTHandler.namespace(path[1])
            switch method {
            case "GET": return try await loadNamespace(warehouse, namespace)
            case "HEAD": return try await namespaceExists(warehouse, namespace)
            case "DELETE": return try await dropNamespace(warehouse, namespace)
            default: return methodNotAllowed(request)
            }
        case (_, 3, "namespaces") where path[2] == "properties":
            guard method == "POST" else { return methodNotAllowed(request) }
            return try await updateNamespaceProperties(warehouse, try IcebergRESTHandler.namespace(path[1]), request)
        case (_, 3, "namespaces") where path[2] == "tables":
            let namespace = try IcebergRESTHandler.namespace(path[1])
            switch method {
            case "GET": return try await listTables(warehouse, namespace)
            case "POST": return try await createTable(warehouse, namespace, request)
            default: return methodNotAllowed(request)
            }
        case (_, 3, "namespaces") where path[2] == "views":
            // No views here; listing them answers empty so clients that list both keep working.
            guard method == "GET" else { return unsupported("views are not supported") }
            _ = try await loadNamespace(warehouse, try IcebergRESTHandler.namespace(path[1]))
            return .json(.object(["identifiers": .array([])]))
        case (_, 4, "namespaces") where path[2] == "tables":
            let identifier = IcebergTableIdentifier(namespace: try IcebergRESTHandler.namespace(path[1]), name: path[3])
            switch method {
            case "GET": return try await loadTable(warehouse, identifier, request)
            case "HEAD": return try await tableExists(warehouse, identifier)
            case "POST": return try await commitTable(warehouse, identifier, request)
            case "DELETE": return try await dropTable(warehouse, identifier, request)
            default: return methodNotAllowed(request)
            }
        case ("POST", 5, "namespaces") where path[2] == "tables" && path[4] == "metrics":
            // Java clients report scan/commit metrics; accepted and dropped.
            return .noContent
        default:
            return notFound(request)
        }
    }

    /// Splits a namespace path segment on the unit separator (`%1F`, already decoded).
    static func namespace(_ segment: String) throws(SluiceError) -> [String] {
        let parts = segment.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else { throw IcebergCatalogError.badRequest("invalid namespace \"\(segment)\"") }
        return parts
    }

    /// Parses a request body as JSON; `400` for malformed JSON.
    static func body(_ request: IcebergRESTRequest) throws(SluiceError) -> JSONDocument {
        guard !request.body.isEmpty else { throw IcebergCatalogError.badRequest("request body is missing") }
        do throws(SluiceError) {
            return try JSONDocument.parse(request.body)
        } catch {
            throw IcebergCatalogError.badRequest("malformed request body: \(error.message)")
        }
    }

    func notFound(_ request: IcebergRESTRequest) -> IcebergRESTResponse {
        .errorResponse(status: 404, type: "NotFoundException", message: "no such endpoint: \(request.method) \(request.path)")
    }

    func methodNotAllowed(_ request: IcebergRESTRequest) -> IcebergRESTResponse {
        .errorResponse(status: 405, type: "MethodNotAllowedException", message: "method \(request.method) is not allowed on \(request.path)")
    }

    func unsupported(_ message: String) -> IcebergRESTResponse {
        .errorResponse(status: 406, type: "UnsupportedOperationException", message: message)
    }
}
