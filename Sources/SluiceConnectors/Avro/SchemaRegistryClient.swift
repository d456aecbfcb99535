import SluiceCore
import SluiceFormats
import SluiceLakehouse
import SluiceLakehouseClients
import Synchronization

/// A client of a Confluent-compatible schema registry (Sluice's own, on `--schema-registry-listen`,
/// or any other): schemas by id for readers, the latest version of a subject for CREATE, and
/// registration for sinks. Calls block the calling thread (a connector's, or a CREATE's); schemas
/// by id never change, so each is fetched once and kept.
package final class SchemaRegistryClient: Sendable {
    /// The registry's base URL, without a trailing slash (the first of a comma-separated list).
    package let url: String
    private let authorization: String?
    private let schemas = Mutex<[Int32: AvroSchema]>([:])

    package init(url: String, username: String? = nil, password: String? = nil) {
        var base = url.split(separator: ",").first.map { String($0).trimmingSpaces } ?? url
        while base.hasSuffix("/") { base.removeLast() }
        self.url = base
        authorization = username.map { "Basic " + Base64.encode(Array("\($0):\(password ?? "")".utf8)) }
    }

    /// The options of `ENCODE AVRO (schema.registry = '…', schema.registry.username = '…',
    /// schema.registry.password = '…')`.
    package convenience init(options: [String: String]) throws(SluiceError) {
        guard let url = options["schema.registry"], !url.isEmpty else {
            throw SluiceError(
                .invalidParameterValue, "ENCODE AVRO needs option \"schema.registry\"",
                hint: "Name the registry, as in ENCODE AVRO (schema.registry = 'http://localhost:8081').")
        }
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw SluiceError(.invalidParameterValue, "schema.registry must be an http:// or https:// URL, not '\(URLCredentials.masking(in: url))'")
        }
        if let strategy = options["schema.registry.name.strategy"], strategy.lowercased() != "topic_name_strategy" {
            throw SluiceError(.featureNotSupported, "schema.registry.name.strategy '\(strategy)' is not supported; subjects are <topic>-value and <topic>-key")
        }
        self.init(url: url, username: options["schema.registry.username"], password: options["schema.registry.password"])
    }

    /// A registered schema: its global id, its version in the subject, and the schema.
    package struct Registered: Sendable {
        package var id: Int32
        package var version: Int
        package var schema: AvroSchema
    }

    /// The schema with global id `id`, fetched once.
    /// - Throws: `undefinedObject` when the registry has no such schema (40403), the registry's
    ///   other errors, `unableToEstablishConnection` when it does not answer.
    package func schema(id: Int32) throws(SluiceError) -> AvroSchema {
        if let known = schemas.withLock({ $0[id] }) { return known }
        let json = try call("GET", "/schemas/ids/\(id)")
        guard let text = json["schema"]?.stringValue else { throw malformed("GET /schemas/ids/\(id)") }
        if let type = json["schemaType"]?.stringValue, type != "AVRO" {
            throw SluiceError(.featureNotSupported, "schema \(id) in the registry is \(type), not Avro")
        }
        let schema = try AvroSchema(json: text)
        schemas.withLock { $0[id] = schema }
        return schema
    }

    /// The latest version of `subject`, or nil when the registry has no such subject.
    package func latest(subject: String) throws(SluiceError) -> Registered? {
        let json: JSONDocument
        do throws(SluiceError) {
            json = try call("GET", "/subjects/\(Self.pathComponent(subject))/versions/latest")
        } catch where error.code == .undefinedObject {
            return nil
        }
        guard let text = json["schema"]?.stringValue, let id = json["id"]?.integerValue, let version = json["version"]?.integerValue else {
            throw malformed("GET /subjects/\(subject)/versions/latest")
        }
        if let type = json["schemaType"]?.stringValue, type != "AVRO" {
            throw SluiceError(.featureNotSupported, "subject \(subject) in the registry holds \(type) schemas, not Avro")
        }
        let schema = try AvroSchema(json: text)
        schemas.withLock { $0[Int32(truncatingIfNeeded: id)] = schema }
        return Registered(id: Int32(truncatingIfNeeded: id), version: Int(version), schema: schema)
    }

    /// Registers `schema` under `subject` (or finds it there) and returns its global id.
    /// - Throws: `invalidParameterValue` naming the registry's reason when it refuses the schema
    ///   (incompatible with the subject's earlier versions, say).
    package func register(_ schema: AvroSchema, subject: String) throws(SluiceError) -> Int32 {
        let body = JSONDocument.object(["schema": .string(schema.jsonText)]).bytes
        let json = try call("POST", "/subjects/\(Self.pathComponent(subject))/versions", body: body)
        guard let id = json["id"]?.integerValue else { throw malformed("POST /subjects/\(subject)/versions") }
        schemas.withLock { $0[Int32(truncatingIfNeeded: id)] = schema }
        return Int32(truncatingIfNeeded: id)
    }

    // MARK: - HTTP

    /// Sends a request and returns its JSON answer; an error answer is thrown as the registry's
    /// `error_code` and message.
    private func call(_ method: String, _ path: String, body: [UInt8]? = nil) throws(SluiceError) -> JSONDocument {
        var headers = [(name: "Accept", value: "application/vnd.schemaregistry.v1+json, application/json")]
        if body != nil { headers.append((name: "Content-Type", value: "application/vnd.schemaregistry.v1+json")) }
        if let authorization { headers.append((name: "Authorization", value: authorization)) }
        let response = try BlockingHTTPRequest(method: method, url: url + path, headers: headers, body: body).send()
        let json = try? JSONDocument.parse(response.body)
        guard response.status < 300 else {
            let code = json?["error_code"]?.integerValue ?? Int64(response.status)
            let message = json?["message"]?.stringValue ?? String(decoding: response.body.prefix(200), as: UTF8.self)
            let where_ = "the schema registry at \(URLCredentials.masking(in: url))"
            switch code {
            case 40401, 40402, 40403:
                throw SluiceError(.undefinedObject, "\(where_): \(message)", detail: "Error code \(code) for \(method) \(path).")
            case 409, 42201, 42202:
                throw SluiceError(.invalidParameterValue, "\(where_) refused the schema: \(message)", detail: "Error code \(code).")
            case 401, 403, 40101, 40301:
                throw SluiceError(.invalidAuthorizationSpecification, "\(where_): \(message)", detail: "Error code \(code).")
            default:
                throw SluiceError(.ioError, "\(where_): \(message)", detail: "Error code \(code) for \(method) \(path).")
            }
        }
        guard let json else { throw malformed("\(method) \(path)") }
        return json
    }

    private func malformed(_ request: String) -> SluiceError {
        SluiceError(.ioError, "the schema registry at \(URLCredentials.masking(in: url)) answered \(request) with something that is not its JSON")
    }

    /// A subject as one path component: percent-encoded but for unreserved characters.
    static func pathComponent(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let isUnreserved = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
            if isUnreserved {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                out += (byte < 0x10 ? "%0" : "%") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
