import Foundation
import SluiceCore

extension IcebergRESTHandler {
    /// The principal of the request's valid bearer token.
    func authenticatedPrincipal(_ request: IcebergRESTRequest) -> String? {
        guard let header = request.headers["authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return tokens.verify(String(parts[1]).trimmingCharacters(in: .whitespaces))?.principal
    }

    /// `POST /v1/oauth/tokens`: the client-credentials grant (client id and secret in the form
    /// or as HTTP Basic auth), and token exchange of a still-valid token for a fresh one (how
    /// Java clients refresh). The scope asked for is echoed back.
    func issueToken(_ request: IcebergRESTRequest) -> IcebergRESTResponse {
        let form = request.formFields
        var clientID = form["client_id"]
        var clientSecret = form["client_secret"]
        if let header = request.headers["authorization"], header.lowercased().hasPrefix("basic "),
           let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
           let text = String(validating: Array(decoded), as: UTF8.self) {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 {
                clientID = IcebergRESTRequest.formDecode(parts[0])
                clientSecret = IcebergRESTRequest.formDecode(parts[1])
            }
        }
        let scope = form["scope"] ?? "catalog"
        let principal: String
        switch form["grant_type"] {
        case "client_credentials":
            guard let clientID, let clientSecret else {
                return .oauthError("invalid_request", "client_id and client_secret are required", status: 400)
            }
            guard tokens.authenticates(clientID: clientID, secret: clientSecret) else {
                return .oauthError("invalid_client", "invalid client credentials", status: 401)
            }
            principal = clientID
        case "urn:ietf:params:oauth:grant-type:token-exchange":
            guard let subject = form["subject_token"], let verified = tokens.verify(subject) else {
                return .oauthError("invalid_grant", "the subject token is invalid or expired", status: 401)
            }
            principal = verified.principal
        case nil:
            return .oauthError("invalid_request", "grant_type is required", status: 400)
        case let other?:
            return .oauthError("unsupported_grant_type", "grant type \(other) is not supported", status: 400)
        }
        return .json(.object([
            "access_token": .string(tokens.issueToken(principal: principal, scope: scope)),
            "token_type": .string("bearer"),
            "expires_in": .int(tokens.lifetimeSeconds),
            "issued_token_type": .string("urn:ietf:params:oauth:token-type:access_token"),
            "scope": .string(scope),
        ]))
    }

    /// `GET /v1/config?warehouse=<name>`: the warehouse becomes the client's path prefix.
    func config(_ request: IcebergRESTRequest) -> IcebergRESTResponse {
        let requested = request.queryParameters["warehouse"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultWarehouse
        if !store.autoCreatesWarehouses && !store.warehouseNames().contains(requested) {
            return .errorResponse(status: 404, type: "NotFoundException", message: "warehouse does not exist: \(requested)")
        }
        let endpoints = [
            "GET /v1/{prefix}/namespaces", "POST /v1/{prefix}/namespaces",
            "GET /v1/{prefix}/namespaces/{namespace}", "HEAD /v1/{prefix}/namespaces/{namespace}",
            "DELETE /v1/{prefix}/namespaces/{namespace}", "POST /v1/{prefix}/namespaces/{namespace}/properties",
            "GET /v1/{prefix}/namespaces/{namespace}/tables", "POST /v1/{prefix}/namespaces/{namespace}/tables",
            "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}", "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
            "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}", "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
            "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics", "POST /v1/{prefix}/tables/rename",
        ]
        return .json(.object([
            "defaults": .object([]),
            "overrides": .object(["prefix": .string(requested)]),
            "endpoints": .array(endpoints.map { .string($0) }),
        ]))
    }
}
