import SluiceCore
import SluiceFormats
import SluiceLakehouse

/// Confluent's schema registry REST API over a ``SchemaRegistryStore``, free of any server
/// framework's types (the responder adapts the HTTP server's). Avro only; bodies are JSON, answers
/// `application/vnd.schemaregistry.v1+json`, errors `{"error_code": …, "message": …}`.
///
/// Routes: `GET /subjects`, `GET|POST|DELETE /subjects/{s}…` (versions, a version, its schema,
/// lookup, deletes, soft or `?permanent=true`), `GET /schemas/ids/{id}` (and `/schema`,
/// `/versions`, `/subjects`), `GET /schemas/types`, `POST /compatibility/subjects/{s}/versions[/{v}]`,
/// `GET|PUT /config`, `GET|PUT|DELETE /config/{s}`, `GET /mode`.
package struct SchemaRegistryHandler: Sendable {
    package let store: SchemaRegistryStore

    /// The largest request body taken.
    package static let maximumBodyBytes = 16 << 20

    package init(store: SchemaRegistryStore) {
        self.store = store
    }

    /// An answer: its status and JSON body.
    package struct Reply: Sendable, Equatable {
        package var status: Int
        package var body: JSONDocument
    }

    /// Answers one request. `path` is percent-encoded, `query` the text after `?`.
    package func handle(method: String, path: String, query: String?, body: [UInt8]) -> Reply {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map { IcebergRESTRequest.percentDecode($0) }
        let parameters = IcebergRESTRequest(method: method, path: path, query: query, headers: [:], body: []).queryParameters
        do throws(SchemaRegistryError) {
            return try route(method, parts, parameters, body)
        } catch {
            return Reply(status: error.status, body: .object(["error_code": .int(Int64(error.code)), "message": .string(error.message)]))
        }
    }

    private func route(_ method: String, _ parts: [String], _ parameters: [String: String], _ body: [UInt8]) throws(SchemaRegistryError) -> Reply {
        let deleted = parameters["deleted"] == "true"
        let permanent = parameters["permanent"] == "true"
        switch (method, parts.first ?? "") {
        case ("GET", ""):
            return ok(.object([]))
        case (_, "subjects"):
            return try subjects(method, Array(parts.dropFirst()), deleted: deleted, permanent: permanent, body)
        case ("GET", "schemas"):
            return try schemas(Array(parts.dropFirst()))
        case ("POST", "compatibility"):
            guard parts.count == 4 || parts.count == 5, parts[1] == "subjects", parts[3] == "versions" else { throw notFound() }
            let problems = try store.problems(registering: try schemaText(body), in: parts[2], against: parts.count == 5 ? parts[4] : nil)
            var answer: [JSONDocument.Member] = [.init("is_compatible", .bool(problems.isEmpty))]
            if parameters["verbose"] == "true" { answer.append(.init("messages", .array(problems.map { .string($0) }))) }
            return ok(.object(answer))
        case (_, "config"):
            return try config(method, parts.count > 1 ? parts[1] : nil, defaultToGlobal: parameters["defaultToGlobal"] == "true", body)
        case ("GET", "mode"):
            return ok(.object(["mode": .string("READWRITE")]))
        default:
            throw notFound()
        }
    }

    private func subjects(_ method: String, _ rest: [String], deleted: Bool, permanent: Bool, _ body: [UInt8]) throws(SchemaRegistryError) -> Reply {
        switch (method, rest.count) {
        case ("GET", 0):
            return ok(.array(store.subjects(includingDeleted: deleted).map { .string($0) }))
        case ("POST", 1):
            let found = try store.lookup(try schemaText(body), in: rest[0], includingDeleted: deleted)
            return ok(registered(rest[0], found))
        case ("DELETE", 1):
            return ok(.array(try store.deleteSubject(rest[0], permanent: permanent).map { .int(Int64($0)) }))
        case ("GET", 2) where rest[1] == "versions":
            return ok(.array(try store.versions(of: rest[0], includingDeleted: deleted).map { .int(Int64($0)) }))
        case ("POST", 2) where rest[1] == "versions":
            return ok(.object(["id": .int(Int64(try store.register(try schemaText(body), in: rest[0])))]))
        case ("GET", 3) where rest[1] == "versions":
            return ok(registered(rest[0], try store.version(rest[2], of: rest[0], includingDeleted: deleted)))
        case ("DELETE", 3) where rest[1] == "versions":
            return ok(.int(Int64(try store.deleteVersion(rest[2], of: rest[0], permanent: permanent))))
        case ("GET", 4) where rest[1] == "versions" && rest[3] == "schema":
            return ok(try parsed(try store.version(rest[2], of: rest[0], includingDeleted: deleted).schema))
        case ("GET", 4) where rest[1] == "versions" && rest[3] == "referencedby":
            _ = try store.version(rest[2], of: rest[0])
            return ok(.array([]))
        default:
            throw notFound()
        }
    }

    private func schemas(_ rest: [String]) throws(SchemaRegistryError) -> Reply {
        if rest == ["types"] { return ok(.array([.string("AVRO")])) }
        guard rest.count >= 2, rest[0] == "ids" else { throw notFound() }
        guard let id = Int32(rest[1]) else { throw .schemaNotFound() }
        let text = try store.schema(id: id)
        switch rest.count {
        case 2: return ok(.object(["schema": .string(text)]))
        case 3 where rest[2] == "schema": return ok(try parsed(text))
        case 3 where rest[2] == "versions":
            return ok(.array(try store.usages(of: id).map { .object(["subject": .string($0.subject), "version": .int(Int64($0.version))]) }))
        case 3 where rest[2] == "subjects":
            return ok(.array(Array(Set(try store.usages(of: id).map(\.subject))).sorted().map { .string($0) }))
        default: throw notFound()
        }
    }

    private func config(_ method: String, _ subject: String?, defaultToGlobal: Bool, _ body: [UInt8]) throws(SchemaRegistryError) -> Reply {
        switch method {
        case "GET":
            if let subject, store.compatibility(of: subject) == nil, !defaultToGlobal {
                throw SchemaRegistryError(status: 404, code: 40408, "Subject '\(subject)' does not have subject-level compatibility configured")
            }
            let level = (subject.flatMap { store.compatibility(of: $0) } ?? store.compatibility(of: nil)) ?? .backward
            return ok(.object(["compatibilityLevel": .string(level.rawValue)]))
        case "PUT":
            let json = try requestJSON(body)
            guard let text = json["compatibility"]?.stringValue, let level = AvroCompatibilityLevel(rawValue: text.uppercased()) else {
                throw .invalidCompatibility(json["compatibility"]?.stringValue ?? "")
            }
            try store.setCompatibility(level, for: subject)
            return ok(.object(["compatibility": .string(level.rawValue)]))
        case "DELETE":
            guard let subject else { throw notFound() }
            guard let previous = try store.removeCompatibility(of: subject) else { throw .subjectNotFound(subject) }
            return ok(.object(["compatibilityLevel": .string(previous.rawValue)]))
        default:
            throw notFound()
        }
    }

    // MARK: - Bodies

    private func ok(_ body: JSONDocument) -> Reply {
        Reply(status: 200, body: body)
    }

    private func notFound() -> SchemaRegistryError {
        SchemaRegistryError(status: 404, code: 404, "HTTP 404 Not Found")
    }

    private func registered(_ subject: String, _ found: (version: Int, id: Int32, schema: String)) -> JSONDocument {
        .object(["subject": .string(subject), "version": .int(Int64(found.version)), "id": .int(Int64(found.id)), "schema": .string(found.schema)])
    }

    private func parsed(_ text: String) throws(SchemaRegistryError) -> JSONDocument {
        do throws(SluiceError) {
            return try JSONDocument.parse(text)
        } catch {
            throw SchemaRegistryError(status: 500, code: 50001, "a stored schema is not JSON")
        }
    }

    private func requestJSON(_ body: [UInt8]) throws(SchemaRegistryError) -> JSONDocument {
        do throws(SluiceError) {
            return try JSONDocument.parse(body)
        } catch {
            throw SchemaRegistryError(status: 422, code: 422, "Unrecognized request body: \(error.message)")
        }
    }

    /// The `schema` of a request body `{"schema": "…", "schemaType": "AVRO", "references": []}`.
    private func schemaText(_ body: [UInt8]) throws(SchemaRegistryError) -> String {
        let json = try requestJSON(body)
        guard let text = json["schema"]?.stringValue else { throw .invalidSchema("the request has no \"schema\"") }
        if let type = json["schemaType"]?.stringValue, type.uppercased() != "AVRO" {
            throw .invalidSchema("schema type \(type) is not supported; this registry holds Avro schemas")
        }
        if case .array(let references)? = json["references"], !references.isEmpty {
            throw .invalidSchema("schema references are not supported")
        }
        return text
    }
}
