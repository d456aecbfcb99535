import SluiceCore
import SluiceHTTP
import SluiceNet
import SluicePGWire

/// Flink's SQL Gateway REST API served over HTTP (`--flink-gateway-listen`).
package typealias FlinkGatewayServer = BackgroundHTTPServer

extension BackgroundHTTPServer {
    /// The gateway's routes under every version's prefix (`/v1` … `/v4`) and none; `access`
    /// decides who may use it, as for the other HTTP listeners (HTTP Basic with SQL users'
    /// passwords where SQL asks for one).
    package convenience init(host: String, port: Int, gateway: FlinkGateway, access: HTTPAccess = .trusted, tls: TLSContext? = nil) {
        var router = HTTPRouterBuilder()
        router.add(middleware: AuthenticationMiddleware(access, challenge: {
            var response = FlinkGatewayResponses.error(FlinkGatewayError(status: .unauthorized, "Unauthorized."))
            response.headers.add(name: "www-authenticate", value: "Basic realm=\"sluice\", charset=\"UTF-8\"")
            return response
        }))
        let routes = FlinkGatewayRoutes(gateway: gateway)
        for version in [nil] + FlinkGateway.versions.map({ $0.lowercased() }) {
            routes.add(to: &router, version: version)
        }
        router.addFallback { request, _ in
            FlinkGatewayResponses.error(FlinkGatewayError(status: .notFound, "Not found: \(request.path)"))
        }
        self.init(
            host: host, port: port, router: router.build(), name: "Flink SQL gateway", tls: tls,
            maximumBodyBytes: FlinkGateway.maximumStatementBytes + 64 << 10)
    }
}

/// The gateway's REST routes, each a thin reading of the request around ``FlinkGateway``.
struct FlinkGatewayRoutes: Sendable {
    let gateway: FlinkGateway

    func add(to router: inout HTTPRouterBuilder, version: String?) {
        let prefix = version.map { "/\($0)" } ?? ""
        // A next page's address keeps the version the client used (the newest without one).
        let uriVersion = version ?? FlinkGateway.versions.last!.lowercased()
        let gateway = gateway
        router.get("\(prefix)/api_versions") { _, _ in
            FlinkGatewayResponses.json(.object(["versions": .array(FlinkGateway.versions.map { .string($0) })]))
        }
        router.get("\(prefix)/info") { _, _ in
            FlinkGatewayResponses.json(.object(["productName": .string("Apache Flink"), "version": .string(FlinkGateway.flinkVersion)]))
        }
        router.post("\(prefix)/sessions") { request, context in
            Self.answer {
                let body = try Self.body(request, required: false)
                var properties: [String: String] = [:]
                if case .object(let members)? = body?["properties"] {
                    for member in members { properties[member.key] = try Self.text(member.value, "properties.\(member.key)") }
                }
                let handle = try gateway.openSession(
                    properties: properties, name: body?["sessionName"]?.stringValue, user: context.user?.name ?? "root")
                return .object(["sessionHandle": .string(handle)])
            }
        }
        router.get("\(prefix)/sessions/:session") { _, context in
            Self.answer {
                let session = try gateway.session(context.parameters["session"] ?? "")
                return .object(["properties": .stringMap(session.properties)])
            }
        }
        router.on("\(prefix)/sessions/:session", method: .DELETE) { _, context in
            Self.answer {
                try gateway.closeSession(context.parameters["session"] ?? "")
                return .object(["status": .string("CLOSED")])
            }
        }
        router.post("\(prefix)/sessions/:session/heartbeat") { _, context in
            Self.answer {
                _ = try gateway.session(context.parameters["session"] ?? "")
                return .object([])
            }
        }
        router.post("\(prefix)/sessions/:session/configure-session") { request, context in
            await Self.answerAsync {
                let session = try gateway.session(context.parameters["session"] ?? "")
                let statement = try Self.statement(request)
                try await gateway.configure(statement, in: session)
                return .object([])
            }
        }
        router.get("\(prefix)/sessions/:session/complete-statement") { request, context in
            Self.answer {
                let session = try gateway.session(context.parameters["session"] ?? "")
                let body = try Self.body(request, required: true)
                guard case .string(let statement)? = body?["statement"] else {
                    throw FlinkGatewayError(status: .badRequest, "Field 'statement' is missing or not a string.")
                }
                guard let position = body?["position"]?.integerValue else {
                    throw FlinkGatewayError(status: .badRequest, "Field 'position' is missing or not an integer.")
                }
                let candidates = gateway.completions(statement, position: Int(position), in: session)
                return .object(["candidates": .array(candidates.map { .string($0) })])
            }
        }
        router.post("\(prefix)/sessions/:session/statements") { request, context in
            await Self.answerAsync {
                let session = try gateway.session(context.parameters["session"] ?? "")
                let statement = try Self.statement(request)
                let handle = try gateway.execute(statement, in: session)
                // A statement that ends soon is answered ended: its client's first status poll is its last.
                try await session.operation(handle).waitWhileRunning(upTo: .milliseconds(20))
                return .object(["operationHandle": .string(handle)])
            }
        }
        router.get("\(prefix)/sessions/:session/operations/:operation/status") { _, context in
            Self.answer {
                let operation = try gateway.session(context.parameters["session"] ?? "").operation(context.parameters["operation"] ?? "")
                return .object(["status": .string(operation.status.rawValue)])
            }
        }
        router.post("\(prefix)/sessions/:session/operations/:operation/cancel") { _, context in
            Self.answer {
                let operation = try gateway.session(context.parameters["session"] ?? "").operation(context.parameters["operation"] ?? "")
                operation.cancel()
                return .object(["status": .string(operation.status.rawValue)])
            }
        }
        router.on("\(prefix)/sessions/:session/operations/:operation/close", method: .DELETE) { _, context in
            Self.answer {
                let operation = try gateway.session(context.parameters["session"] ?? "").removeOperation(context.parameters["operation"] ?? "")
                operation.close()
                return .object(["status": .string(FlinkGatewayOperation.Status.closed.rawValue)])
            }
        }
        router.get("\(prefix)/sessions/:session/operations/:operation/result/:token") { request, context in
            let sessionHandle = context.parameters["session"] ?? ""
            let operationHandle = context.parameters["operation"] ?? ""
            let format = Self.queryParameter("rowFormat", in: request.query) ?? "JSON"
            guard format == "JSON" else {
                let reason = format == "PLAIN_TEXT" ? "Row format PLAIN_TEXT is not supported; ask for rowFormat=JSON." : "Unknown row format '\(format)'."
                return FlinkGatewayResponses.error(FlinkGatewayError(status: .badRequest, reason))
            }
            guard let token = Int(context.parameters["token"] ?? ""), token >= 0 else {
                return FlinkGatewayResponses.error(FlinkGatewayError(status: .badRequest, "The token must be a non-negative integer."))
            }
            do throws(FlinkGatewayError) {
                let operation = try gateway.session(sessionHandle).operation(operationHandle)
                // Reading rows runs the query's operators: on the session threads, as the SQL port does.
                let page = try await gateway.page(token, of: operation)
                let next = "/\(uriVersion)/sessions/\(sessionHandle)/operations/\(operationHandle)/result/\(page.isReady ? token + 1 : token)?rowFormat=JSON"
                return FlinkGatewayResponses.results(page, outcome: operation.outcome, nextURI: page.isEnd ? nil : next)
            } catch {
                return FlinkGatewayResponses.error(error)
            }
        }
    }

    /// The request's JSON body; nil when it is empty and not required.
    static func body(_ request: HTTPServerRequest, required: Bool) throws(FlinkGatewayError) -> JSONDocument? {
        if request.bodyTooLarge { throw FlinkGatewayError(status: .payloadTooLarge, "The request body is too large.") }
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            if required { throw FlinkGatewayError(status: .badRequest, "Request body is missing.") }
            return nil
        }
        do {
            let document = try JSONDocument.parse(request.body)
            guard case .object = document else { throw FlinkGatewayError(status: .badRequest, "Request body is not a JSON object.") }
            return document
        } catch let error as FlinkGatewayError {
            throw error
        } catch {
            throw FlinkGatewayError(status: .badRequest, "Request did not match expected format: \((error as? SluiceError)?.message ?? "\(error)")")
        }
    }

    static func statement(_ request: HTTPServerRequest) throws(FlinkGatewayError) -> String {
        guard case .string(let statement)? = try body(request, required: true)?["statement"] else {
            throw FlinkGatewayError(status: .badRequest, "Field 'statement' is missing or not a string.")
        }
        return statement
    }

    static func text(_ value: JSONDocument?, _ field: String) throws(FlinkGatewayError) -> String {
        switch value {
        case .string(let text)?: return text
        case .int(let number)?: return String(number)
        case .bool(let flag)?: return String(flag)
        case .double(let number)?: return String(number)
        default: throw FlinkGatewayError(status: .badRequest, "Field '\(field)' is missing or not a string.")
        }
    }

    static func queryParameter(_ name: String, in query: String?) -> String? {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.first == Substring(name) { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }

    static func answer(_ body: () throws -> JSONDocument) -> HTTPServerResponse {
        do {
            return FlinkGatewayResponses.json(try body())
        } catch {
            return FlinkGatewayResponses.error(error as? FlinkGatewayError ?? FlinkGatewayError(status: .internalServerError, "\(error)"))
        }
    }

    static func answerAsync(_ body: () async throws -> JSONDocument) async -> HTTPServerResponse {
        do {
            return FlinkGatewayResponses.json(try await body())
        } catch {
            return FlinkGatewayResponses.error(error as? FlinkGatewayError ?? FlinkGatewayError(status: .internalServerError, "\(error)"))
        }
    }
}

extension FlinkGateway {
    /// A page of `operation`'s result, read on the session threads.
    func page(_ token: Int, of operation: FlinkGatewayOperation) async throws(FlinkGatewayError) -> FlinkGatewayOperation.Page {
        let result: Result<FlinkGatewayOperation.Page, FlinkGatewayError> = await withTaskExecutorPreference(threads) {
            do throws(FlinkGatewayError) {
                return .success(try operation.page(token))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// `configure-session`: a statement that changes the session (SET, RESET, USE, CREATE and
    /// DROP of catalogs, databases, tables, views and functions), run to its end.
    func configure(_ statement: String, in session: FlinkGatewaySession) async throws(FlinkGatewayError) {
        let handle = try execute(statement, in: session)
        let operation = try session.operation(handle)
        defer { _ = try? session.removeOperation(handle) }
        while operation.status == .running { await operation.waitWhileRunning(upTo: .seconds(1)) }
        if let error = operation.error {
            throw FlinkGatewayError(status: .internalServerError, FlinkGatewayResponses.exceptionText(error, operation: handle))
        }
    }

    /// `complete-statement`: SQL keywords and the names of relations that complete the word the
    /// position is in.
    func completions(_ statement: String, position: Int, in session: FlinkGatewaySession) -> [String] {
        let bytes = Array(statement.utf8)
        let end = min(max(position, 0), bytes.count)
        var start = end
        while start > 0, Self.isWordByte(bytes[start - 1]) { start -= 1 }
        let prefix = String(decoding: bytes[start ..< end], as: UTF8.self).uppercased()
        var candidates = Set<String>()
        for keyword in Self.keywords where keyword.hasPrefix(prefix) { candidates.insert(keyword) }
        for relation in database.catalog.relations where relation.name.uppercased().hasPrefix(prefix) { candidates.insert(relation.name) }
        return candidates.sorted()
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x2E
    }

    static let keywords = [
        "SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "LIMIT", "INSERT", "INTO", "VALUES", "CREATE", "TABLE", "VIEW", "CATALOG",
        "DATABASE", "DROP", "SHOW", "TABLES", "DATABASES", "CATALOGS", "JOBS", "DESCRIBE", "EXPLAIN", "SET", "RESET", "USE", "WITH",
        "WATERMARK", "FOR", "AS", "PRIMARY", "KEY", "NOT", "ENFORCED", "TUMBLE", "HOP", "CUMULATE", "DESCRIPTOR", "INTERVAL", "STOP", "JOB",
    ]
}

/// The gateway's JSON answers, in Flink's shapes.
enum FlinkGatewayResponses {
    static func json(_ document: JSONDocument, status: HTTPResponseStatus = .ok) -> HTTPServerResponse {
        HTTPServerResponse(status: status, contentType: "application/json; charset=UTF-8", bytes: document.bytes)
    }

    /// Flink's REST error body: `{"errors": [...]}`.
    static func error(_ error: FlinkGatewayError) -> HTTPServerResponse {
        var messages: [JSONDocument] = []
        if error.status == .internalServerError { messages.append(.string("Internal server error.")) }
        messages.append(.string(error.message))
        return json(.object(["errors": .array(messages)]), status: error.status)
    }

    /// How Flink's gateway reports a statement that failed: the server side's exception, with
    /// the SQLSTATE of ours.
    static func exceptionText(_ error: SluiceError, operation: String) -> String {
        let kind = switch error.code.description.prefix(2) {
        case "42" where error.code == .syntaxError: "org.apache.flink.sql.parser.impl.ParseException"
        case "42", "22", "0A": "org.apache.flink.table.api.ValidationException"
        default: "org.apache.flink.table.api.TableException"
        }
        return "<Exception on server side:\norg.apache.flink.table.gateway.service.utils.SqlExecutionException: "
            + "Failed to execute the operation \(operation).\nCaused by: \(kind): \(error.message) (SQLSTATE \(error.code.description))\n\nEnd of exception on server side>"
    }

    /// A fetch's answer: the page's rows, the result's columns, and the next page's address.
    static func results(_ page: FlinkGatewayOperation.Page, outcome: FlinkGatewayOperation.Outcome?, nextURI: String?) -> HTTPServerResponse {
        var out: [UInt8] = []
        out.reserveCapacity(page.rows.count + 512)
        let resultType = !page.isReady ? "NOT_READY" : page.isEnd ? "EOS" : "PAYLOAD"
        out += Array(#"{"resultType":"\#(resultType)","isQueryResult":\#(outcome?.isQuery ?? false)"#.utf8)
        if let jobID = outcome?.jobID { out += Array(#","jobID":"\#(jobID)""#.utf8) }
        if let outcome {
            out += Array(#","resultKind":"\#(outcome.hasContent ? "SUCCESS_WITH_CONTENT" : "SUCCESS")""#.utf8)
        }
        out += Array(#","results":{"columns":["#.utf8)
        for (index, column) in (outcome?.columns ?? []).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONDocument.object(["name": .string(column.name), "logicalType": logicalType(column.type), "comment": .null]).write(to: &out)
        }
        out += Array(#"],"rowFormat":"JSON","data":["#.utf8)
        out += page.rows
        out += Array("]}".utf8)
        if let nextURI {
            out += Array(#","nextResultUri":"#.utf8)
            JSONDocument.string(nextURI).write(to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return HTTPServerResponse(status: .ok, contentType: "application/json; charset=UTF-8", bytes: out)
    }

    /// A column type as Flink's `LogicalTypeJsonSerializer` writes it.
    static func logicalType(_ type: DataType) -> JSONDocument {
        let maximumLength = JSONDocument.int(2_147_483_647)
        switch type {
        case .boolean: return .object(["type": .string("BOOLEAN"), "nullable": .bool(true)])
        case .int16: return .object(["type": .string("SMALLINT"), "nullable": .bool(true)])
        case .int32: return .object(["type": .string("INTEGER"), "nullable": .bool(true)])
        case .int64: return .object(["type": .string("BIGINT"), "nullable": .bool(true)])
        case .float32: return .object(["type": .string("FLOAT"), "nullable": .bool(true)])
        case .float64: return .object(["type": .string("DOUBLE"), "nullable": .bool(true)])
        case .decimal(let precision, let scale):
            return .object([
                "type": .string("DECIMAL"), "nullable": .bool(true), "precision": .int(Int64(precision ?? 38)),
                "scale": .int(Int64(scale ?? (precision == nil ? 18 : 0))),
            ])
        case .date: return .object(["type": .string("DATE"), "nullable": .bool(true)])
        case .time: return .object(["type": .string("TIME_WITHOUT_TIME_ZONE"), "nullable": .bool(true), "precision": .int(6)])
        case .timestamp: return .object(["type": .string("TIMESTAMP_WITHOUT_TIME_ZONE"), "nullable": .bool(true), "precision": .int(6)])
        case .timestamptz: return .object(["type": .string("TIMESTAMP_WITH_LOCAL_TIME_ZONE"), "nullable": .bool(true), "precision": .int(6)])
        case .bytea: return .object(["type": .string("VARBINARY"), "nullable": .bool(true), "length": maximumLength])
        case .structure(let fields):
            return .object([
                "type": .string("ROW"), "nullable": .bool(true),
                "fields": .array(fields.map { .object(["name": .string($0.name), "fieldType": logicalType($0.type)]) }),
            ])
        case .list(let element): return .object(["type": .string("ARRAY"), "nullable": .bool(true), "elementType": logicalType(element)])
        case .varchar, .jsonb, .interval, .unknown:
            return .object(["type": .string("VARCHAR"), "nullable": .bool(true), "length": maximumLength])
        }
    }
}
