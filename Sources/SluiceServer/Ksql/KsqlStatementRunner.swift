import SluiceCore
import SluicePGWire
import SluicePlanner
import SluiceSQL

/// Carries out ksqlDB statements (`POST /ksql`): each becomes the statements of Sluice's own
/// SQL it means, in the same AST, run by the same binder and handlers as the SQL port's.
///
/// - `CREATE STREAM s (…) WITH (KAFKA_TOPIC = 't', VALUE_FORMAT = 'JSON')` is
///   `CREATE SOURCE s (…) WITH (connector = 'kafka', topic = 't', …) FORMAT PLAIN ENCODE JSON`;
///   `CREATE TABLE` the same as a table with its primary key (its rows in the state store).
/// - `CREATE STREAM s AS SELECT …` is `CREATE MATERIALIZED VIEW s AS SELECT …` and
///   `CREATE SINK csas_s AS SELECT a AS "A", … FROM s WITH (connector = 'kafka', topic = 'S')`
///   (the fields upper-cased as ksqlDB writes them), the query `CSAS_S`.
/// - `INSERT INTO s SELECT …` is a sink into `s`'s topic; `TERMINATE q` drops query `q`'s sink.
/// - `CREATE SOURCE|SINK CONNECTOR` is Sluice's own connectors (``KsqlConnectorCatalog``):
///   Debezium's Postgres source a CDC source with Debezium Kafka sinks, the JDBC sink Kafka
///   readers with `jdbc` sinks.
struct KsqlStatementRunner {
    let service: KsqlService
    let session: SQLSession
    /// `streamsProperties` of the request, with `SET`s applied in order.
    var properties: [String: String]

    /// The entity ksqlDB answers `statement` with.
    mutating func run(_ statement: KsqlStatement) async throws(SluiceError) -> JSONDocument? {
        let text = statement.sourceText
        switch statement.kind {
        case .create(let create):
            let warnings = try await self.create(create)
            return status(
                text, kind: create.isTable ? "table" : "stream", name: create.name.name, message: create.isTable ? "Table created" : "Stream created",
                warnings: warnings)
        case .createAsSelect(let create):
            let (queryID, warnings) = try await createAsSelect(create)
            return status(
                text, kind: create.isTable ? "table" : "stream", name: create.name.name, message: "Created query with ID \(queryID)", queryID: queryID,
                warnings: warnings)
        case .insertInto(let name, let query):
            let queryID = try await insert(into: name, query)
            return status(text, kind: "stream", name: name.name, message: "Created query with ID \(queryID)", queryID: queryID)
        case .select, .print:
            // (The service answers these before they get here, with ksqlDB's code 40002.)
            throw SluiceError(.featureNotSupported, Self.queryEndpointMessage)
        case .list(let listing):
            return list(listing, text)
        case .describe(let name, _):
            return try describe(name, text)
        case .drop(let isTable, let name, let ifExists, let deleteTopic):
            let dropped = try await drop(isTable: isTable, name: name, ifExists: ifExists, deleteTopic: deleteTopic)
            return status(text, kind: isTable ? "table" : "stream", name: name.name, message: dropped ? "Source `\(KsqlJSON.columnName(name.name))` (topic: \(deleteTopic ? "deleted" : "kept")) was dropped." : "Source `\(KsqlJSON.columnName(name.name))` does not exist.", operation: "drop")
        case .terminate(let id):
            try await terminate(id)
            return status(text, kind: "terminate", name: id ?? "ALL", message: "Query terminated.", operation: "terminate")
        case .setProperty(let key, let value):
            properties[key] = value
            return nil
        case .unsetProperty(let key):
            properties.removeValue(forKey: key)
            return nil
        case .createConnector(let create):
            return try await createConnector(create, text)
        case .listConnectors(let isSource):
            return listConnectors(isSource: isSource, text)
        case .describeConnector(let name):
            return try describeConnector(name, text)
        case .dropConnector(let name, let ifExists):
            return try await dropConnector(name, ifExists: ifExists, text)
        }
    }

    /// ksqlDB's answer to a SELECT or PRINT sent to `/ksql`.
    static let queryEndpointMessage = "The following statement types should be issued to the websocket endpoint '/query':\n\t* PRINT\n\t* SELECT"

    // MARK: DDL

    @discardableResult
    private func create(_ create: KsqlCreate) async throws(SluiceError) -> [String] {
        let options = try KsqlWithOptions(create.options, name: create.name.name, statement: "CREATE")
        guard let topic = options.topic else {
            throw SluiceError(.invalidParameterValue, "Missing required property \"KAFKA_TOPIC\" which has no default value.")
        }
        try service.ensureTopic(topic, partitions: options.partitions, creating: "stream")
        let format = try options.formatEncode(schemaRegistry: service.schemaRegistryURL)
        let connector = try connectorOptions(topic: topic, reading: true)
        // OR REPLACE: the old definition goes first (refused while queries read it).
        if create.orReplace, KsqlCatalog(catalog: service.database.catalog).object(named: create.name.name) != nil {
            _ = try await drop(isTable: create.isTable, name: create.name, ifExists: false, deleteTopic: false)
        }
        if create.isTable {
            let keys = create.columns.filter { $0.constraints.contains(.primaryKey) }.map(\.name)
            guard !keys.isEmpty else {
                throw SluiceError(.invalidTableDefinition, "Tables require a PRIMARY KEY. Please define the PRIMARY KEY.")
            }
            var columns = create.columns
            for index in columns.indices { columns[index].constraints.removeAll { $0 == .primaryKey } }
            let table = CreateTable(
                name: create.name, ifNotExists: create.ifNotExists, columns: columns, constraints: [.primaryKey(keys, name: nil)], options: connector,
                format: format)
            _ = try await execute(.createTable(table))
        } else {
            var columns = create.columns
            // A stream's KEY column is read from the value, as the other columns are.
            for index in columns.indices { columns[index].constraints.removeAll { $0 == .primaryKey } }
            let source = CreateSource(name: create.name, ifNotExists: create.ifNotExists, columns: columns, options: connector, format: format)
            _ = try await execute(.createSource(source))
        }
        return options.ignored
    }

    private func createAsSelect(_ create: KsqlCreateAsSelect) async throws(SluiceError) -> (queryID: String, warnings: [String]) {
        let options = try KsqlWithOptions(create.options, name: create.name.name, statement: "CREATE AS SELECT")
        let topic = options.topic ?? KsqlJSON.columnName(create.name.name)
        try service.ensureTopic(topic, partitions: options.partitions ?? 1, creating: nil)
        var format = try options.formatEncode(schemaRegistry: service.schemaRegistryURL)
        var connector = try connectorOptions(topic: topic)
        if create.isTable {
            guard case .select(let select) = create.query.body, !select.groupBy.isEmpty else {
                throw SluiceError(.featureNotSupported, "CREATE TABLE AS SELECT needs a GROUP BY (its key) in Sluice's ksqlDB door")
            }
            var keys: [String] = []
            for key in select.groupBy {
                guard case .column(let parts) = key.node, let name = parts.last else {
                    throw SluiceError(.featureNotSupported, "CREATE TABLE AS SELECT groups by columns only in Sluice's ksqlDB door")
                }
                keys.append(name)
            }
            format.format = "UPSERT"
            connector.append(WithOption(key: "primary_key", value: .string(keys.map(KsqlJSON.columnName).joined(separator: ","))))
        } else {
            format.options.append(WithOption(key: "force_append_only", value: .string("true")))
        }
        let view = CreateView(name: create.name, isMaterialized: true, ifNotExists: create.ifNotExists, query: create.query)
        _ = try await execute(.createView(view))
        let sinkName = KsqlCatalog.sinkName(forView: create.name.name, isTable: create.isTable)
        do {
            // The topic's fields are named as ksqlDB names them, upper-cased (our columns are
            // folded to lower case; readers match JSON keys case-insensitively either way).
            guard let relation = service.database.catalog.relation(named: create.name.name) else {
                throw SluiceError(.internalError, "the view of \(create.name) is not in the catalog after CREATE")
            }
            let items = relation.columns.filter { !$0.name.hasPrefix("_") }.map { column in
                SelectItem.expression(Expression(.column([column.name])), alias: KsqlJSON.columnName(column.name))
            }
            let renamed = Query(body: .select(Select(projection: items, from: [.table(create.name, alias: nil, position: .none)])))
            let sink = CreateSink(name: ObjectName(sinkName), ifNotExists: create.ifNotExists, input: .query(renamed), options: connector, format: format)
            _ = try await execute(.createSink(sink))
        } catch {
            _ = try? await execute(.drop(Drop(objectType: .materializedView, ifExists: true, names: [create.name])))
            throw SluiceError.from(error)
        }
        return (sinkName.uppercased(), options.ignored)
    }

    private func insert(into name: ObjectName, _ query: Query) async throws(SluiceError) -> String {
        guard let target = KsqlCatalog(catalog: service.database.catalog).object(named: name.name), !target.isTable else {
            throw SluiceError(.undefinedTable, "Stream \(KsqlJSON.columnName(name.name)) does not exist")
        }
        // (Numbers restart with the server; the sinks of earlier INSERTs are in the catalog.)
        var sinkName = "insertquery_\(service.nextQueryNumber())"
        while service.database.catalog.relation(named: sinkName) != nil { sinkName = "insertquery_\(service.nextQueryNumber())" }
        var format = FormatEncode(format: "PLAIN", encode: target.valueFormat == "DELIMITED" ? "CSV" : target.valueFormat)
        format.options.append(WithOption(key: "force_append_only", value: .string("true")))
        let sink = CreateSink(name: ObjectName(sinkName), input: .query(query), options: try connectorOptions(topic: target.topic), format: format)
        _ = try await execute(.createSink(sink))
        return sinkName.uppercased()
    }

    private func drop(isTable: Bool, name: ObjectName, ifExists: Bool, deleteTopic: Bool) async throws(SluiceError) -> Bool {
        let catalog = KsqlCatalog(catalog: service.database.catalog)
        guard let object = catalog.object(named: name.name), object.isTable == isTable else {
            if ifExists { return false }
            throw SluiceError(.undefinedTable, "\(isTable ? "Table" : "Stream") \(KsqlJSON.columnName(name.name)) does not exist.")
        }
        let readers = catalog.queries(reading: object.relation)
        if !readers.isEmpty {
            throw SluiceError(
                .dependentObjectsStillExist,
                "Cannot drop \(object.name).\nThe following queries read from this source: [\(readers.map(\.id).joined(separator: ", "))].\nYou need to terminate them before dropping \(object.name).")
        }
        for writer in catalog.queries(writing: object.relation) {
            _ = try await execute(.drop(Drop(objectType: .sink, ifExists: true, names: [ObjectName(writer.sink.name)])))
        }
        let type: ObjectType = switch object.relation.kind {
        case .table: .table
        case .source: .source
        default: .materializedView
        }
        _ = try await execute(.drop(Drop(objectType: type, names: [ObjectName(object.relation.name)])))
        if deleteTopic, !object.topic.isEmpty { service.deleteTopic(object.topic) }
        return true
    }

    private func terminate(_ id: String?) async throws(SluiceError) {
        let queries = KsqlCatalog(catalog: service.database.catalog).queries
        let chosen = id.map { id in queries.filter { $0.id == id.uppercased() } } ?? queries
        if let id, chosen.isEmpty {
            if service.pushQueries.close(id) { return }
            throw SluiceError(.undefinedObject, "Unknown queryId: \(id)")
        }
        for query in chosen {
            _ = try await execute(.drop(Drop(objectType: .sink, ifExists: true, names: [ObjectName(query.sink.name)])))
        }
    }

    /// `connector = 'kafka'` over the built-in broker, and where a new reader starts
    /// (`auto.offset.reset`, `latest` unless the request says otherwise, as ksqlDB's default).
    private func connectorOptions(topic: String, reading: Bool = false) throws(SluiceError) -> [WithOption] {
        guard let bootstrap = service.bootstrap else {
            throw SluiceError(.featureNotSupported, "ksqlDB streams need the built-in broker, which is off (--no-broker)")
        }
        let reset = (properties["ksql.streams.auto.offset.reset"] ?? properties["auto.offset.reset"] ?? "latest").lowercased()
        guard reset == "earliest" || reset == "latest" else {
            throw SluiceError(.invalidParameterValue, "Invalid value \(reset) for configuration auto.offset.reset: String must be one of: latest, earliest, none")
        }
        var options = [
            WithOption(key: "connector", value: .string("kafka")), WithOption(key: "topic", value: .string(topic)),
            WithOption(key: "properties.bootstrap.server", value: .string(bootstrap)),
        ]
        if reading { options.append(WithOption(key: "scan.startup.mode", value: .string(reset))) }
        return options
    }

    func execute(_ kind: Statement.Kind) async throws(SluiceError) -> PGStatementResult {
        var statement = Statement(kind)
        statement.sourceText = statement.description
        return try await session.execute(statement)
    }

    // MARK: Listings

    private func list(_ listing: KsqlListing, _ text: String) -> JSONDocument {
        let catalog = KsqlCatalog(catalog: service.database.catalog)
        switch listing {
        case .streams, .tables:
            let isTable = listing == .tables
            let objects = catalog.objects.filter { $0.isTable == isTable }.map { object -> JSONDocument in
                .object([
                    "type": .string(object.typeName), "name": .string(object.name), "topic": .string(object.topic), "keyFormat": .string("KAFKA"),
                    "valueFormat": .string(object.valueFormat), "isWindowed": .bool(false),
                ])
            }
            return .object(["@type": .string(isTable ? "tables" : "streams"), "statementText": .string(text), (isTable ? "tables" : "streams"): .array(objects), "warnings": .array([])])
        case .queries:
            let queries = catalog.queries.map { query -> JSONDocument in
                .object([
                    "queryString": .string(query.statement), "sinks": .array(query.target.map { [.string(KsqlJSON.columnName($0.name))] } ?? []),
                    "sinkKafkaTopics": .array([.string(query.topic)]), "id": .string(query.id), "statusCount": .object(["RUNNING": .int(1)]),
                    "queryType": .string("PERSISTENT"), "state": .string("RUNNING"),
                ])
            } + service.pushQueries.listed()
            return .object(["@type": .string("queries"), "statementText": .string(text), "queries": .array(queries), "warnings": .array([])])
        case .topics:
            let topics = service.topicList().map { topic -> JSONDocument in
                .object(["name": .string(topic.name), "replicaInfo": .array(Array(repeating: .int(1), count: topic.partitions))])
            }
            return .object(["@type": .string("kafka_topics"), "statementText": .string(text), "topics": .array(topics), "warnings": .array([])])
        case .properties:
            let properties = self.properties.sorted { $0.key < $1.key }.map { entry -> JSONDocument in
                .object(["name": .string(entry.key), "scope": .string("KSQL"), "value": .string(entry.value)])
            }
            return .object([
                "@type": .string("properties"), "statementText": .string(text), "properties": .array(properties), "overwrittenProperties": .array([]),
                "defaultProperties": .array([]), "warnings": .array([]),
            ])
        }
    }

    private func describe(_ name: ObjectName, _ text: String) throws(SluiceError) -> JSONDocument {
        let catalog = KsqlCatalog(catalog: service.database.catalog)
        guard let object = catalog.object(named: name.name) else {
            throw SluiceError(.undefinedTable, "Could not find STREAM/TABLE '\(KsqlJSON.columnName(name.name))' in the Metastore")
        }
        return .object(["@type": .string("sourceDescription"), "statementText": .string(text), "sourceDescription": sourceDescription(object), "warnings": .array([])])
    }

    /// ksqlDB's `SourceDescription` of a stream or table.
    func sourceDescription(_ object: KsqlCatalog.Object) -> JSONDocument {
        let catalog = KsqlCatalog(catalog: service.database.catalog)
        let relation = object.relation
        let fields = relation.columns.enumerated().filter { !$0.element.name.hasPrefix("_") }.map { entry -> JSONDocument in
            let (index, column) = entry
            var members: [JSONDocument.Member] = [.init("name", .string(KsqlJSON.columnName(column.name))), .init("schema", KsqlJSON.schema(column.type))]
            if relation.primaryKey.contains(index) { members.append(.init("type", .string("KEY"))) }
            return .object(members)
        }
        func queries(_ list: [KsqlCatalog.Query]) -> JSONDocument {
            .array(list.map { query in
                .object([
                    "queryString": .string(query.statement), "sinks": .array(query.target.map { [.string(KsqlJSON.columnName($0.name))] } ?? []),
                    "sinkKafkaTopics": .array([.string(query.topic)]), "id": .string(query.id), "statusCount": .object(["RUNNING": .int(1)]),
                    "queryType": .string("PERSISTENT"), "state": .string("RUNNING"),
                ])
            })
        }
        return .object([
            "name": .string(object.name), "windowType": .null, "readQueries": queries(catalog.queries(reading: relation)),
            "writeQueries": queries(catalog.queries(writing: relation)), "fields": .array(fields), "type": .string(object.typeName),
            "timestamp": .string(""), "statistics": .string(""), "errorStats": .string(""), "extended": .bool(false), "keyFormat": .string("KAFKA"),
            "valueFormat": .string(object.valueFormat), "topic": .string(object.topic), "partitions": .int(Int64(service.partitions(of: object.topic))),
            "replication": .int(1), "statement": .string(relation.definition), "queryOffsetSummaries": .array([]), "sourceConstraints": .array([]),
            "clusterStatistics": .array([]), "clusterErrorStats": .array([]),
        ])
    }

    /// `{"@type":"currentStatus", "commandStatus": {"status":"SUCCESS", …}, …}`.
    private func status(
        _ text: String, kind: String, name: String, message: String, queryID: String? = nil, operation: String = "create", warnings: [String] = []
    ) -> JSONDocument {
        .object([
            "@type": .string("currentStatus"), "statementText": .string(text),
            "commandId": .string("\(kind)/`\(KsqlJSON.columnName(name))`/\(operation)"),
            "commandStatus": .object(["status": .string("SUCCESS"), "message": .string(message), "queryId": queryID.map { .string($0) } ?? .null]),
            "commandSequenceNumber": .int(Int64(service.nextCommandNumber())),
            "warnings": .array(warnings.map { .object(["message": .string($0)]) }),
        ])
    }
}


/// The WITH options of a ksqlDB CREATE, checked as ksqlDB checks them.
struct KsqlWithOptions {
    var topic: String?
    var valueFormat = "JSON"
    var partitions: Int?
    var delimiter: String?
    /// Options taken but not carried out, each with why: the answer's warnings.
    var ignored: [String] = []

    static let known: Set<String> = [
        "KAFKA_TOPIC", "VALUE_FORMAT", "KEY_FORMAT", "FORMAT", "PARTITIONS", "REPLICAS", "TIMESTAMP", "TIMESTAMP_FORMAT", "VALUE_DELIMITER",
        "KEY_DELIMITER", "WRAP_SINGLE_VALUE", "VALUE_SCHEMA_ID", "KEY_SCHEMA_ID", "VALUE_AVRO_SCHEMA_FULL_NAME", "RETENTION_MS",
    ]

    init(_ options: [WithOption], name: String, statement: String) throws(SluiceError) {
        let unknown = options.map(\.key).filter { !Self.known.contains($0) }
        guard unknown.isEmpty else {
            throw SluiceError(.invalidParameterValue, "Invalid config variable(s) in the WITH clause: \(unknown.joined(separator: ","))")
        }
        for option in options {
            let value = option.value.text
            switch option.key {
            case "KAFKA_TOPIC": topic = value
            case "VALUE_FORMAT", "FORMAT":
                let format = value.uppercased()
                guard ["JSON", "AVRO", "DELIMITED", "JSON_SR"].contains(format) else {
                    throw SluiceError(.featureNotSupported, "Unsupported format: \(format)", hint: "Sluice's ksqlDB door reads JSON, AVRO and DELIMITED values.")
                }
                valueFormat = format == "JSON_SR" ? "JSON" : format
            case "PARTITIONS":
                guard let count = Int(value), count > 0 else {
                    throw SluiceError(.invalidParameterValue, "Invalid value for PARTITIONS: \(value)")
                }
                partitions = count
            case "VALUE_DELIMITER": delimiter = value
            case "KEY_FORMAT" where value.uppercased() != "KAFKA", "TIMESTAMP", "TIMESTAMP_FORMAT", "WRAP_SINGLE_VALUE", "VALUE_SCHEMA_ID",
                "KEY_SCHEMA_ID", "VALUE_AVRO_SCHEMA_FULL_NAME", "RETENTION_MS", "KEY_DELIMITER":
                ignored.append("\(option.key) is not carried out by Sluice's ksqlDB door and was ignored")
            case "REPLICAS" where value != "1":
                ignored.append("REPLICAS: the built-in broker keeps one replica")
            default: break
            }
        }
    }

    /// `FORMAT PLAIN ENCODE JSON|AVRO|CSV`.
    func formatEncode(schemaRegistry: String?) throws(SluiceError) -> FormatEncode {
        switch valueFormat {
        case "AVRO":
            guard let schemaRegistry else {
                throw SluiceError(.featureNotSupported, "VALUE_FORMAT 'AVRO' needs the built-in schema registry, which is off (--no-schema-registry)")
            }
            return FormatEncode(format: "PLAIN", encode: "AVRO", options: [WithOption(key: "schema.registry", value: .string(schemaRegistry))])
        case "DELIMITED":
            var options = [WithOption(key: "without_header", value: .string("true"))]
            if let delimiter { options.append(WithOption(key: "delimiter", value: .string(delimiter))) }
            return FormatEncode(format: "PLAIN", encode: "CSV", options: options)
        default:
            return FormatEncode(format: "PLAIN", encode: "JSON")
        }
    }
}
