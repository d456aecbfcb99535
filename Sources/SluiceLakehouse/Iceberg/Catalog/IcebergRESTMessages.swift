import SluiceCore

/// An HTTP request as the REST handler sees it, free of any server framework's types.
package struct IcebergRESTRequest: Sendable {
    package var method: String
    /// The raw path, percent-encoded, without the query.
    package var path: String
    /// The raw query string (after `?`), if any.
    package var query: String?
    /// Header names lowercased.
    package var headers: [String: String]
    package var body: [UInt8]

    package init(method: String, path: String, query: String?, headers: [String: String], body: [UInt8]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// Decoded query parameters (`+` as space, `%XX` escapes); the first of repeated keys wins.
    package var queryParameters: [String: String] {
        var result: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = IcebergRESTRequest.formDecode(parts[0])
            if result[name] == nil { result[name] = parts.count > 1 ? IcebergRESTRequest.formDecode(parts[1]) : "" }
        }
        return result
    }

    /// Percent-decoding; invalid escapes are kept as written.
    package static func percentDecode<S: StringProtocol>(_ text: S, plusAsSpace: Bool = false) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let high = hexValue(utf8[utf8.startIndex]), let low = hexValue(utf8[utf8.startIndex + 1]) {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else if byte == UInt8(ascii: "+") && plusAsSpace {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func formDecode<S: StringProtocol>(_ text: S) -> String { percentDecode(text, plusAsSpace: true) }

    static func hexValue(_ byte: UInt8) -> UInt8? { HexDigits.value(byte) }

    /// `application/x-www-form-urlencoded` body fields.
    package var formFields: [String: String] {
        IcebergRESTRequest(method: method, path: path, query: String(decoding: body, as: UTF8.self), headers: [:], body: []).queryParameters
    }
}

/// An HTTP response from the REST handler.
package struct IcebergRESTResponse: Sendable, Hashable {
    package var status: Int
    package var headers: [String: String]
    package var body: [UInt8]

    package init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package static func json(_ value: JSONDocument, status: Int = 200) -> IcebergRESTResponse {
        IcebergRESTResponse(status: status, headers: ["content-type": "application/json"], body: value.bytes)
    }

    package static let noContent = IcebergRESTResponse(status: 204)

    /// The REST spec's `IcebergErrorResponse`: `{"error": {"message", "type", "code"}}`.
    package static func error(_ error: SluiceError) -> IcebergRESTResponse {
        let (status, type) = IcebergCatalogError.httpStatus(for: error)
        return errorResponse(status: status, type: type, message: error.message)
    }

    package static func errorResponse(status: Int, type: String, message: String) -> IcebergRESTResponse {
        .json(.object(["error": .object([
            "message": .string(message),
            "type": .string(type),
            "code": .int(Int64(status)),
        ])]), status: status)
    }

    /// The OAuth2 error form (RFC 6749 §5.2) the token endpoint uses.
    package static func oauthError(_ code: String, _ description: String, status: Int) -> IcebergRESTResponse {
        .json(.object(["error": .string(code), "error_description": .string(description)]), status: status)
    }
}

/// S3 settings handed to clients as vended credentials in `LoadTableResult.config`.
package struct IcebergS3Settings: Sendable, Hashable {
    package var endpoint: String?
    package var accessKeyID: String
    package var secretAccessKey: String
    package var region: String
    package var pathStyleAccess: Bool

    package init(endpoint: String?, accessKeyID: String, secretAccessKey: String, region: String, pathStyleAccess: Bool) {
        self.endpoint = endpoint
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.region = region
        self.pathStyleAccess = pathStyleAccess
    }

    /// The keys pyiceberg, Java and DuckDB read (`s3.endpoint`, `s3.access-key-id`, …).
    package var clientConfig: [String: String] {
        var config = [
            "s3.access-key-id": accessKeyID,
            "s3.secret-access-key": secretAccessKey,
            "s3.region": region,
            "client.region": region,
            "s3.path-style-access": pathStyleAccess ? "true" : "false",
        ]
        if let endpoint { config["s3.endpoint"] = endpoint }
        return config
    }
}

extension IcebergLoadedTable {
    /// REST `LoadTableResult`.
    package var loadResultJSON: JSONDocument {
        .object([
            "metadata-location": metadataLocation.map { .string($0) },
            "metadata": metadata.json,
            "config": .stringMap(config),
        ])
    }

    /// REST `CommitTableResponse`.
    package var commitResponseJSON: JSONDocument {
        .object(["metadata-location": .string(metadataLocation ?? ""), "metadata": metadata.json])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "load table result")
        self.init(
            metadataLocation: try object.optionalString("metadata-location"),
            metadata: try IcebergTableMetadata(json: object.value("metadata") ?? .null),
            config: try object.stringMap("config"))
    }
}

extension IcebergTableCreation {
    /// REST `CreateTableRequest`.
    package var json: JSONDocument {
        .object([
            "name": .string(name),
            "location": location.map { .string($0) },
            "schema": schema.json,
            "partition-spec": partitionSpec.json,
            "write-order": writeOrder.json,
            "stage-create": .bool(isStaged),
            "properties": .stringMap(properties),
        ])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "create table request")
        self.init(
            name: try object.string("name"),
            location: try object.optionalString("location"),
            schema: try IcebergSchema(json: object.value("schema") ?? .null),
            partitionSpec: try object.value("partition-spec").map { value throws(SluiceError) in try IcebergPartitionSpec(json: value) } ?? .unpartitioned,
            writeOrder: try object.value("write-order").map { value throws(SluiceError) in try IcebergSortOrder(json: value) } ?? .unsorted,
            properties: try object.stringMap("properties"),
            isStaged: try object.optionalBool("stage-create") ?? false)
    }
}

extension IcebergTableIdentifier {
    /// REST `TableIdentifier`: `{"namespace": [...], "name": "..."}`.
    package var json: JSONDocument {
        .object(["namespace": .array(namespace.map { .string($0) }), "name": .string(name)])
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "table identifier")
        self.init(namespace: try object.stringArray("namespace"), name: try object.string("name"))
    }
}
