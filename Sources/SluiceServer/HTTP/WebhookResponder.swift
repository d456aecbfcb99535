import Dispatch
import NIOCore
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluiceHTTP
import SluiceLakehouse
import SluiceNet
import SluicePlanner
import Synchronization

/// The webhook listener (`--webhook-listen`, port 4560 as RisingWave's): `POST
/// /webhook/<database>/<schema>/<table>` inserts the request's body into a webhook table
/// (``WebhookConnector``). Answers, as RisingWave's:
/// - 200 once the rows are durable (in the write-ahead log, synced);
/// - 401 when the table's VALIDATE expression is not true for the request;
/// - 404 for a table that does not exist, 403 for one that takes no webhooks;
/// - 413 for a body over the limit (read no further), 422 for a body that is not the table's
///   JSON, 500 when the write fails.
package typealias WebhookServer = BackgroundHTTPServer

extension BackgroundHTTPServer {
    package convenience init(host: String, port: Int, database: Database, maximumBodyBytes: Int, tls: TLSContext? = nil) {
        var router = HTTPRouterBuilder()
        let responder = WebhookResponder(database: database)
        router.post("/webhook/:database/:schema/:table") { request, context in
            await responder.insert(
                request, database: context.parameters["database"] ?? "", schema: context.parameters["schema"] ?? "",
                table: context.parameters["table"] ?? "", maximumBodyBytes: maximumBodyBytes)
        }
        // Anything else gets RisingWave's answers: the route's shape, or the method it takes.
        router.addFallback { request, _ in
            let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
            guard parts.count == 4, parts[0] == "webhook" else { return WebhookResponder.reply(.notFound, "not found: POST /webhook/<database>/<schema>/<table>") }
            return WebhookResponder.reply(.methodNotAllowed, "a webhook takes POST")
        }
        self.init(host: host, port: port, router: router.build(), name: "webhook listener", tls: tls, maximumBodyBytes: maximumBodyBytes)
    }
}

package struct WebhookResponder: Sendable {
    let database: Database
    private let tables = WebhookTables()
    /// Inserts wait for the table's lock and the views' queues: off the event loops.
    private static let queue = DispatchQueue(label: "sluice-webhook", attributes: .concurrent)

    init(database: Database) {
        self.database = database
    }

    /// `POST /webhook/<databaseName>/<schema>/<name>`.
    func insert(_ request: HTTPServerRequest, database databaseName: String, schema: String, table name: String, maximumBodyBytes: Int) async -> HTTPServerResponse {
        guard databaseName == "dev" else { return Self.reply(.notFound, "database \"\(databaseName)\" does not exist") }
        guard let relation = database.catalog.relation(named: name, schema: schema), relation.kind == .table else {
            return Self.reply(.notFound, "table \"\(schema).\(name)\" does not exist")
        }
        guard relation.connector?.connector == "webhook" else {
            return Self.reply(.forbidden, "table \"\(schema).\(name)\" does not take webhooks")
        }
        let table: WebhookTable
        do throws(SluiceError) {
            table = try tables.table(for: relation, database: database)
        } catch {
            return Self.reply(.internalServerError, error.message)
        }
        guard !request.bodyTooLarge else { return Self.reply(.payloadTooLarge, "the body is over \(maximumBodyBytes) bytes") }
        let bytes = request.body
        if let validation = table.validation {
            do throws(SluiceError) {
                guard try table.passes(validation, headers: request.headers, body: bytes) else {
                    return Self.reply(.unauthorized, "the request did not pass the table's VALIDATE")
                }
            } catch {
                return Self.reply(.unauthorized, "the table's VALIDATE failed: \(error.message)")
            }
        }
        let key = table.decoder.idempotencyHeader.flatMap { name in
            request.headers.first(name: name)
        }
        let rows: Chunk
        do throws(SluiceError) {
            rows = try bytes.withRawBytes { (raw) throws(SluiceError) in try table.decoder.rows(raw, idempotencyKey: key) }
        } catch {
            database.streams.connectors.all[relation.id]?.statistics.rowsRejected.add(1, ordering: .relaxed)
            return Self.reply(.unprocessableEntity, error.message)
        }
        guard rows.count > 0 else { return Self.reply(.ok, "") }
        let tables = database.tables
        let inserted: Result<Void, SluiceError> = await withCheckedContinuation { continuation in
            Self.queue.async {
                do throws(SluiceError) {
                    _ = try tables.insert([rows], into: relation, synchronousCommit: false)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        let statistics = database.streams.connectors.all[relation.id]?.statistics
        do throws(SluiceError) {
            try inserted.get()
            // Group commit: one fsync covers the requests that came in meanwhile.
            try await tables.makeWritesDurable()
            statistics?.rowsRead.add(rows.count, ordering: .relaxed)
            statistics?.bytesRead.add(bytes.count, ordering: .relaxed)
            statistics?.status = "running"
        } catch {
            statistics?.rowsRejected.add(rows.count, ordering: .relaxed)
            let clientMistake = error.code.code.hasPrefix("22") || error.code.code.hasPrefix("23")
            return Self.reply(clientMistake ? .unprocessableEntity : .internalServerError, error.message)
        }
        return Self.reply(.ok, "")
    }

    static func reply(_ status: HTTPResponseStatus, _ message: String) -> HTTPServerResponse {
        HTTPServerResponse.text(message.isEmpty ? "" : message + "\n", status: status)
    }
}

/// A webhook table as requests need it: its decoder and its bound VALIDATE, made again when
/// the table's definition changes (a new table under the same name).
struct WebhookTable: Sendable {
    var definition: String
    var decoder: any RequestRowDecoder
    var validation: (expression: ScalarExpr, secret: String?)?

    /// Whether the VALIDATE expression is true for a request of `headers` and `body`.
    func passes(_ validation: (expression: ScalarExpr, secret: String?), headers: HTTPHeaders, body: [UInt8]) throws(SluiceError) -> Bool {
        var members: [String: String] = [:]
        for (name, value) in headers { members[name.lowercased()] = value }
        let json = "{" + members.sorted { $0.key < $1.key }.map { "\(JSONText.quoted($0.key)): \(JSONText.quoted($0.value))" }.joined(separator: ", ") + "}"
        var columns = [
            Column(type: .jsonb, repeating: .jsonb(json), count: 1),
            Column(type: .bytea, repeating: .bytea(body), count: 1),
        ]
        if let secret = validation.secret { columns.append(Column(type: .varchar, repeating: .string(secret), count: 1)) }
        let result = try ExpressionEvaluator.evaluate(validation.expression, on: Chunk(columns: columns, count: 1), context: EvaluationContext())
        return result.value(at: 0) == .bool(true)
    }
}

/// The webhook tables seen so far, by id.
final class WebhookTables: Sendable {
    private let known = Mutex<[Int: WebhookTable]>([:])

    func table(for relation: RelationDefinition, database: Database) throws(SluiceError) -> WebhookTable {
        if let table = known.withLock({ $0[relation.id] }), table.definition == relation.definition { return table }
        guard let decoder = try database.makeConnector(SourceDescription(relation), false) as? any RequestRowDecoder else {
            throw SluiceError(.internalError, "table \"\(relation.name)\" has no webhook connector")
        }
        var validation: (expression: ScalarExpr, secret: String?)?
        if let spec = relation.connector?.validation {
            let expression = try Binder.webhookValidation(spec, catalog: database.catalog, session: SessionInfo(user: "root", database: "dev"))
            var secret: String?
            if let name = spec.secret {
                guard let value = database.catalog.secret(named: name) else { throw SluiceError(.undefinedObject, "secret \"\(name)\" does not exist") }
                secret = value
            }
            validation = (expression, secret)
        }
        let table = WebhookTable(definition: relation.definition, decoder: decoder, validation: validation)
        known.withLock { $0[relation.id] = table }
        return table
    }
}
