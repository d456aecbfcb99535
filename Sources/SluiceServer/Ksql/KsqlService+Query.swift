import SluiceCore
import SluiceHTTP
import SluiceKafkaClient
import SluicePGWire
import SluiceSQL

extension SluiceError {
    /// `error` as a SluiceError (an untyped throw reaching a typed path is a bug).
    static func from(_ error: any Error) -> SluiceError {
        error as? SluiceError ?? SluiceError(.internalError, "\(error)")
    }
}

/// Which of ksqlDB's query endpoints a request came to.
enum KsqlQueryAPI {
    /// `POST /query`: `[{"header": …}, {"row": {"columns": […]}}, …]`.
    case classic
    /// `POST /query-stream`: a metadata object, then one array per row (delimited lines, or one
    /// JSON array when the client accepts `application/json`).
    case stream
}

extension KsqlService {
    /// Pull queries answer the rows there are; push queries (`EMIT CHANGES`) stream rows as
    /// they come until the client goes, `/close-query` ends them or their LIMIT is reached.
    func query(_ request: HTTPServerRequest, api: KsqlQueryAPI) async -> HTTPServerResponse {
        let body: KsqlRequestBody
        do {
            body = try KsqlRequestBody(
                request.body, textKey: api == .classic ? "ksql" : "sql", propertiesKey: api == .classic ? "streamsProperties" : "properties")
        } catch {
            return Self.json(KsqlJSON.genericError(error.message), status: 400)
        }
        let statement: KsqlStatement
        do {
            let statements = try SQLParser.parseKsql(body.text)
            guard statements.count == 1, let only = statements.first else {
                return Self.json(KsqlJSON.statementError("Expected exactly one query, got \(statements.count) statements", statement: body.text), status: 400)
            }
            statement = only
        } catch {
            return Self.json(KsqlJSON.statementError(KsqlJSON.message(of: error), statement: body.text), status: 400)
        }
        if case .print(let topic, let fromBeginning, let limit) = statement.kind, api == .classic {
            return print(topic: topic, fromBeginning: fromBeginning, limit: limit, text: statement.sourceText)
        }
        guard case .select(let query, let emitChanges) = statement.kind else {
            return Self.json(
                KsqlJSON.statementError("The /query endpoint runs SELECT statements only; send other statements to /ksql", statement: statement.sourceText),
                status: 400)
        }
        let format = KsqlRowFormat(api: api, acceptsJSON: request.headers.first(name: "accept")?.contains("application/json") == true)
        if emitChanges { return await push(query, text: statement.sourceText, format: format, reset: Self.offsetReset(body.properties)) }
        return await pull(query, text: statement.sourceText, format: format)
    }

    /// A pull query: the batch SELECT over the tables, views and streams as they are now,
    /// streamed a chunk of rows at a time (the executor pulled on the session threads as the
    /// client takes them). A failure before the first chunk is a 400; one after it ends the
    /// body with ksqlDB's `errorMessage` object.
    private func pull(_ query: Query, text: String, format: KsqlRowFormat) async -> HTTPServerResponse {
        let number = nextQueryNumber()
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        let started: Result<PGStatementResult, SluiceError> = await withTaskExecutorPreference(threads) { () async -> Result<PGStatementResult, SluiceError> in
            do {
                var statement = Statement(.query(query))
                statement.sourceText = statement.description
                return .success(try await session.execute(statement))
            } catch {
                return .failure(SluiceError.from(error))
            }
        }
        let result: PGStatementResult
        switch started {
        case .success(let running):
            result = running
        case .failure(let error):
            session.terminate()
            return Self.json(KsqlJSON.statementError(KsqlJSON.message(of: error), statement: text), status: 400)
        }
        let threads = self.threads
        return HTTPServerResponse(status: .ok, headers: [("content-type", format.contentType)], body: .stream { writer in
            defer { session.terminate() }
            try await writer.write(format.header(queryID: "query_\(number)", columns: result.columns ?? []))
            var chunks = result.chunks[...]
            while true {
                let next: Result<Chunk?, SluiceError>
                if let chunk = chunks.popFirst() {
                    next = .success(chunk)
                } else if let stream = result.stream {
                    next = await withTaskExecutorPreference(threads) { () async -> Result<Chunk?, SluiceError> in
                        do { return .success(try stream.next()) } catch { return .failure(SluiceError.from(error)) }
                    }
                } else {
                    next = .success(nil)
                }
                switch next {
                case .success(let chunk?):
                    var out: [UInt8] = []
                    for row in 0 ..< chunk.count { format.appendRow({ KsqlJSON.appendRow(chunk, row, zone: result.timeZone, to: &$0) }, to: &out) }
                    if !out.isEmpty { try await writer.write(out) }
                case .success(nil):
                    try await writer.write(format.trailer(finalMessage: nil))
                    return
                case .failure(let error):
                    try await writer.write(format.trailer(errorMessage: KsqlJSON.message(of: error)))
                    return
                }
            }
        })
    }

    /// A push query: a sink of the query into a topic of its own, read back as it commits and
    /// streamed out; the sink and topic (and the private source of a query over one stream, see
    /// ``privateSource(for:named:reset:)``) are dropped when the stream ends.
    private func push(_ query: Query, text: String, format: KsqlRowFormat, reset: String) async -> HTTPServerResponse {
        guard let bootstrap else {
            return Self.json(KsqlJSON.statementError("push queries need the built-in broker, which is off (--no-broker)", statement: text), status: 400)
        }
        let number = nextQueryNumber()
        let name = KsqlPushQueries.namePrefix + String(number)
        let topic = "_" + name
        let id = "transient_\(number)"
        var unlimited = query
        unlimited.limit = nil
        var requestedLimit: Int?
        if let expression = query.limit {
            guard case .literal(.integer(let value)) = expression.node, value >= 0 else {
                return Self.json(KsqlJSON.statementError("LIMIT takes a number", statement: text), status: 400)
            }
            requestedLimit = Int(value)
        }
        let limit = requestedLimit
        let setup: Result<[PGColumn], SluiceError> = await withTaskExecutorPreference(threads) { () async -> Result<[PGColumn], SluiceError> in
            let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
            defer { session.terminate() }
            do {
                var statement = Statement(.query(unlimited))
                statement.sourceText = statement.description
                let prepared = try await session.prepare(statement.sourceText, parameterTypes: [])
                let columns = prepared.first?.resultColumns ?? []
                var sunk = unlimited
                if let (rewritten, source) = privateSource(for: unlimited, named: name + "_source", reset: reset) {
                    var create = Statement(.createSource(source))
                    create.sourceText = create.description
                    _ = try await session.execute(create)
                    sunk = rewritten
                }
                try ensureTopic(topic, partitions: 1, creating: nil)
                let options = [
                    WithOption(key: "connector", value: .string("kafka")), WithOption(key: "topic", value: .string(topic)),
                    WithOption(key: "properties.bootstrap.server", value: .string(bootstrap)),
                ]
                let encode = FormatEncode(format: "PLAIN", encode: "JSON", options: [WithOption(key: "force_append_only", value: .string("true"))])
                var sink = Statement(.createSink(CreateSink(name: ObjectName(name), input: .query(sunk), options: options, format: encode)))
                sink.sourceText = sink.description
                _ = try await session.execute(sink)
                return .success(columns)
            } catch {
                var drop = Statement(.drop(Drop(objectType: .source, ifExists: true, names: [ObjectName(name + "_source")])))
                drop.sourceText = drop.description
                _ = try? await session.execute(drop)
                deleteTopic(topic)
                return .failure(SluiceError.from(error))
            }
        }
        let columns: [PGColumn]
        switch setup {
        case .success(let found): columns = found
        case .failure(let error): return Self.json(KsqlJSON.statementError(KsqlJSON.message(of: error), statement: text), status: 400)
        }
        let handle = KsqlPushQueries.Handle(id: id, sql: text)
        pushQueries.register(handle)
        return HTTPServerResponse(status: .ok, headers: [("content-type", format.contentType)], body: .stream { [self] writer in
            defer { Task { await self.endPush(handle, sink: name, topic: topic) } }
            try await writer.write(format.header(queryID: id, columns: columns))
            let consumer = try KafkaConsumer(bootstrapServers: bootstrap, properties: ["group.id": name, "isolation.level": "read_committed"])
            defer { consumer.close() }
            try consumer.assign([KafkaAssignment(topic: topic, partition: 0, offset: .earliest)])
            let names = columns.map(\.name)
            var sent = 0
            try await Self.relay(consumer, to: writer, while: { !handle.isClosed && limit.map { sent < $0 } ?? true }) { batch, out in
                for message in batch where !message.isError {
                    guard let value = message.value, limit.map({ sent < $0 }) ?? true else { continue }
                    guard case .object(let members)? = try? JSONDocument.parse([UInt8](value)) else { continue }
                    format.appendRow({ row in
                        row.append(UInt8(ascii: "["))
                        for (index, column) in names.enumerated() {
                            if index > 0 { row.append(UInt8(ascii: ",")) }
                            row += (members.first { $0.key == column }?.value ?? .null).bytes
                        }
                        row.append(UInt8(ascii: "]"))
                    }, to: &out)
                    sent += 1
                }
            }
            try await writer.write(format.trailer(finalMessage: limit.map { sent >= $0 } == true ? "Limit Reached" : nil))
        })
    }

    /// Drops a push query's sink and topic.
    func endPush(_ handle: KsqlPushQueries.Handle, sink: String, topic: String) async {
        handle.close()
        pushQueries.remove(handle.id)
        await withTaskExecutorPreference(threads) { () async -> Void in
            let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
            defer { session.terminate() }
            var drop = Statement(.drop(Drop(objectType: .sink, ifExists: true, names: [ObjectName(sink)])))
            drop.sourceText = drop.description
            _ = try? await session.execute(drop)
            var dropSource = Statement(.drop(Drop(objectType: .source, ifExists: true, names: [ObjectName(sink + "_source")])))
            dropSource.sourceText = dropSource.description
            _ = try? await session.execute(dropSource)
        }
        deleteTopic(topic)
    }
}

/// How rows go out: ksqlDB's classic `/query` objects or `/query-stream`'s arrays.
struct KsqlRowFormat: Sendable {
    var api: KsqlQueryAPI
    var acceptsJSON: Bool

    var contentType: String {
        switch api {
        case .classic: "application/json"
        case .stream: acceptsJSON ? "application/json" : "application/vnd.ksqlapi.delimited.v1"
        }
    }

    func header(queryID: String, columns: [PGColumn]) -> [UInt8] {
        switch api {
        case .classic:
            let header: JSONDocument = .object(["header": .object(["queryId": .string(queryID), "schema": .string(KsqlJSON.schemaText(columns))])])
            return Array("[".utf8) + header.bytes
        case .stream:
            let metadata: JSONDocument = .object([
                "queryId": .string(queryID), "columnNames": .array(columns.map { .string(KsqlJSON.columnName($0.name)) }),
                "columnTypes": .array(columns.map { .string(KsqlJSON.typeName($0.type)) }),
            ])
            return acceptsJSON ? Array("[".utf8) + metadata.bytes : metadata.bytes + [0x0A]
        }
    }

    /// Appends one row, written by `values` as a JSON array, in the format's framing.
    func appendRow(_ values: (inout [UInt8]) -> Void, to out: inout [UInt8]) {
        switch api {
        case .classic:
            out += Array(",\n{\"row\":{\"columns\":".utf8)
            values(&out)
            out += Array("}}".utf8)
        case .stream where acceptsJSON:
            out += Array(",\n".utf8)
            values(&out)
        case .stream:
            values(&out)
            out.append(0x0A)
        }
    }

    /// The end of a body cut short by an error after its first rows.
    func trailer(errorMessage: String) -> [UInt8] {
        let error: JSONDocument = .object(["errorMessage": .object(["@type": .string("generic_error"), "error_code": .int(KsqlJSON.ErrorCode.serverError), "message": .string(errorMessage)])])
        switch api {
        case .classic: return Array(",\n".utf8) + error.bytes + Array("]\n".utf8)
        case .stream: return acceptsJSON ? Array(",\n".utf8) + error.bytes + Array("]\n".utf8) : error.bytes + [0x0A]
        }
    }

    func trailer(finalMessage: String?) -> [UInt8] {
        switch api {
        case .classic:
            var out: [UInt8] = []
            if let finalMessage { out += Array(",\n".utf8) + JSONDocument.object(["finalMessage": .string(finalMessage)]).bytes }
            return out + Array("]\n".utf8)
        case .stream:
            return acceptsJSON ? Array("]\n".utf8) : []
        }
    }
}
