import SluiceCore
import SluicePlanner
import SluiceSQL

extension KsqlStatementRunner {
    // MARK: CREATE SOURCE|SINK CONNECTOR

    func createConnector(_ create: KsqlCreateConnector, _ text: String) async throws(SluiceError) -> JSONDocument {
        var properties = KsqlConnectorProperties(create.properties)
        let className = try properties.require("connector.class")
        let catalog = KsqlConnectorCatalog(catalog: service.database.catalog)
        if catalog.connector(named: create.name) != nil {
            if create.ifNotExists {
                return .object([
                    "@type": .string("warning_entity"), "statementText": .string(text),
                    "message": .string("Connector \(KsqlJSON.columnName(create.name)) already exists"), "warnings": .array([]),
                ])
            }
            throw SluiceError(.duplicateObject, "Connector \(KsqlJSON.columnName(create.name)) already exists")
        }
        guard service.bootstrap != nil else {
            throw SluiceError(.featureNotSupported, "ksqlDB connectors need the built-in broker, which is off (--no-broker)")
        }
        switch (className, create.isSource) {
        case (KsqlConnectorClass.debeziumPostgres, true):
            let config = try DebeziumPostgresConfig(&properties)
            try await building(create.name) { () async throws(SluiceError) in try await makeDebeziumSource(create.name, config) }
        case (KsqlConnectorClass.jdbcSink, false):
            let config = try JDBCSinkConfig(&properties)
            try await building(create.name) { () async throws(SluiceError) in try await makeJDBCSink(create.name, config) }
        default:
            throw KsqlConnectorClass.refusal(className, isSource: create.isSource)
        }
        var config = properties.json
        if case .object(var members) = config, !members.contains(where: { $0.key == "name" }) {
            members.append(.init("name", .string(KsqlJSON.columnName(create.name))))
            config = .object(members)
        }
        let type = create.isSource ? "source" : "sink"
        return .object([
            "@type": .string("connector_info"), "statementText": .string(text),
            "info": .object([
                "name": .string(KsqlJSON.columnName(create.name)), "config": config,
                "tasks": .array([.object(["connector": .string(KsqlJSON.columnName(create.name)), "task": .int(0)])]), "type": .string(type),
            ]),
            "warnings": .array(properties.warnings.map { .object(["message": .string($0)]) }),
        ])
    }

    /// Runs `body`, and drops what it made of connector `name` when it fails.
    private func building(_ name: String, _ body: () async throws(SluiceError) -> Void) async throws(SluiceError) {
        do {
            try await body()
        } catch {
            _ = try? await dropConnectorRelations(name)
            throw error
        }
    }

    /// A `postgres-cdc` source, and per captured table a table of its rows and a Debezium
    /// Kafka sink of the table into `<prefix>.<schema>.<table>`.
    private func makeDebeziumSource(_ name: String, _ config: DebeziumPostgresConfig) async throws(SluiceError) {
        let source = KsqlConnectorCatalog.relationName(name, "cdc")
        var options = [
            ("connector", "postgres-cdc"), ("hostname", config.host), ("port", config.port), ("username", config.user),
            ("database.name", config.database), ("publication.name", config.publication),
            ("publication.create.enable", config.createsPublication ? "true" : "false"),
        ]
        if let password = config.password { options.append(("password", password)) }
        if let slot = config.slot { options.append(("slot.name", slot)) }
        if let mode = config.sslMode { options.append(("ssl.mode", mode)) }
        try await executeSQL("CREATE SOURCE \(Self.identifier(source)) WITH (\(Self.optionList(options)))")
        for (index, upstream) in config.tables.enumerated() {
            let table = KsqlConnectorCatalog.relationName(name, "table_\(index)")
            let snapshot = config.takesSnapshot ? "" : " WITH (snapshot = 'false')"
            try await executeSQL(
                "CREATE TABLE \(Self.identifier(table)) (*)\(snapshot) FROM \(Self.identifier(source)) TABLE \(Self.literal("\(upstream.schema).\(upstream.table)"))")
            guard let relation = service.database.catalog.relation(named: table) else {
                throw SluiceError(.internalError, "the table of connector \(name) is not in the catalog after CREATE")
            }
            let keys = relation.primaryKey.map { relation.columns[$0].name }
            let topic = config.topic(upstream)
            try service.ensureTopic(topic, partitions: 1, creating: nil)
            let sinkOptions = [
                ("connector", "kafka"), ("topic", topic), ("properties.bootstrap.server", service.bootstrap ?? ""), ("primary_key", keys.joined(separator: ",")),
                ("is_exactly_once", "false"), ("debezium.source.connector", "postgresql"), ("debezium.source.name", config.prefix),
                ("debezium.source.db", config.database), ("debezium.source.schema", upstream.schema), ("debezium.source.table", upstream.table),
            ]
            try await executeSQL(
                "CREATE SINK \(Self.identifier(KsqlConnectorCatalog.relationName(name, "sink_\(index)"))) FROM \(Self.identifier(table)) WITH (\(Self.optionList(sinkOptions))) FORMAT DEBEZIUM ENCODE JSON")
        }
    }

    /// Per topic, a reader of the topic with the columns of the ksqlDB stream or table declared
    /// over it (a table keyed by the primary key for upserts), and a `jdbc` sink of it.
    private func makeJDBCSink(_ name: String, _ config: JDBCSinkConfig) async throws(SluiceError) {
        let objects = KsqlCatalog(catalog: service.database.catalog).objects
        for (index, topic) in config.topics.enumerated() {
            guard let object = objects.first(where: { $0.topic == topic }) else {
                throw SluiceError(
                    .featureNotSupported, "no ksqlDB stream or table is declared over topic \(topic), so its columns are not known",
                    hint: "Declare one first (CREATE STREAM s (…) WITH (KAFKA_TOPIC='\(topic)', VALUE_FORMAT='JSON'), or a CREATE STREAM … AS SELECT writing it).")
            }
            let relation = object.relation
            let columns = relation.columns.filter { !$0.name.hasPrefix("_") }
            var keys: [String] = []
            switch config.keyMode {
            case .none: break
            case .recordValue: keys = config.keyFields
            case .recordKey:
                keys = config.keyFields.isEmpty ? messageKey(of: object) : config.keyFields
            }
            if config.insertMode == .upsert {
                guard !keys.isEmpty else {
                    throw SluiceError(.invalidParameterValue, "insert.mode upsert needs the key's fields: set pk.fields (\(object.name) over topic \(topic) has no key)")
                }
                for key in keys where !columns.contains(where: { $0.name == key }) {
                    throw SluiceError(.undefinedColumn, "pk.fields names \(key), which \(object.name) over topic \(topic) does not have")
                }
            }
            let reader = KsqlConnectorCatalog.relationName(name, "topic_\(index)")
            let readerOptions = [
                ("connector", "kafka"), ("topic", topic), ("properties.bootstrap.server", service.bootstrap ?? ""), ("scan.startup.mode", "earliest"),
            ]
            let upserts = config.insertMode == .upsert
            // What the sink reads: the reader, or for Kafka Connect's envelope a projection of
            // the fields of its `payload`.
            let input: String
            if config.valueSchemas {
                let fields = columns.map { "\(Self.identifier($0.name)) \($0.type.sqlName)" }.joined(separator: ", ")
                try await executeSQL(
                    "CREATE SOURCE \(Self.identifier(reader)) (payload struct<\(fields)>) WITH (\(Self.optionList(readerOptions))) FORMAT PLAIN ENCODE JSON")
                let projection = columns.map { "(payload).\(Self.identifier($0.name)) AS \(Self.identifier($0.name))" }.joined(separator: ", ")
                input = "AS SELECT \(projection) FROM \(Self.identifier(reader))"
            } else {
                var definitions = columns.map { "\(Self.identifier($0.name)) \($0.type.sqlName)" }
                if upserts { definitions.append("PRIMARY KEY (\(keys.map(Self.identifier).joined(separator: ", ")))") }
                // Deletes come as the key's tombstones, which FORMAT UPSERT reads.
                let format = config.deletesRows ? "UPSERT" : "PLAIN"
                try await executeSQL(
                    "CREATE \(upserts ? "TABLE" : "SOURCE") \(Self.identifier(reader)) (\(definitions.joined(separator: ", "))) WITH (\(Self.optionList(readerOptions))) FORMAT \(format) ENCODE JSON")
                input = "FROM \(Self.identifier(reader))"
            }
            let target = config.table(of: topic)
            var sinkOptions = [("connector", "jdbc"), ("jdbc.url", config.url), ("table.name", target.table), ("schema.name", target.schema)]
            if let user = config.user { sinkOptions.append(("user", user)) }
            if let password = config.password { sinkOptions.append(("password", password)) }
            if upserts {
                sinkOptions += [("type", "upsert"), ("primary_key", keys.joined(separator: ","))]
            } else {
                sinkOptions.append(("type", "append-only"))
            }
            try await executeSQL(
                "CREATE SINK \(Self.identifier(KsqlConnectorCatalog.relationName(name, "sink_\(index)"))) \(input) WITH (\(Self.optionList(sinkOptions)))")
        }
    }

    /// The columns of the message key of a ksqlDB table's topic: a Kafka table's primary key,
    /// or the GROUP BY columns its CTAS sink keys messages by.
    private func messageKey(of object: KsqlCatalog.Object) -> [String] {
        let relation = object.relation
        let keys = relation.primaryKey.map { relation.columns[$0].name }.filter { !$0.hasPrefix("_") }
        if !keys.isEmpty || relation.kind != .materializedView { return keys }
        let sink = service.database.catalog.relation(named: KsqlCatalog.sinkName(forView: relation.name, isTable: true))
        return (sink?.connector?.options["primary_key"] ?? "").split(separator: ",").map { $0.lowercased() }.filter { !$0.isEmpty }
    }

    // MARK: SHOW, DESCRIBE, DROP

    func listConnectors(isSource: Bool?, _ text: String) -> JSONDocument {
        let catalog = KsqlConnectorCatalog(catalog: service.database.catalog)
        let connectors = catalog.connectors.filter { isSource == nil || $0.isSource == isSource }
        return .object([
            "@type": .string("connector_list"), "statementText": .string(text), "warnings": .array([]),
            "connectors": .array(connectors.map { connector in
                .object([
                    "name": .string(connector.displayName), "type": .string(connector.isSource ? "SOURCE" : "SINK"),
                    "className": .string(connector.className), "state": .string(catalog.trouble(of: connector) == nil ? "RUNNING" : "FAILED"),
                ])
            }),
        ])
    }

    func describeConnector(_ name: String, _ text: String) throws(SluiceError) -> JSONDocument {
        let catalog = KsqlConnectorCatalog(catalog: service.database.catalog)
        guard let connector = catalog.connector(named: name) else {
            throw SluiceError(.undefinedObject, "Could not find connector \(KsqlJSON.columnName(name))")
        }
        let running: JSONDocument = .object(["state": .string("RUNNING"), "worker_id": .string("sluice")])
        // One task: FAILED, with why, while a part of the connector retries or has stopped.
        var task: [JSONDocument.Member] = [.init("id", .int(0)), .init("state", .string("RUNNING")), .init("worker_id", .string("sluice"))]
        if let trouble = catalog.trouble(of: connector) {
            task[1] = .init("state", .string("FAILED"))
            task.append(.init("trace", .string(trouble)))
        }
        let sources = KsqlCatalog(catalog: service.database.catalog).objects.filter { connector.topics.contains($0.topic) }.map(sourceDescription)
        return .object([
            "@type": .string("connector_description"), "statementText": .string(text), "connectorClass": .string(connector.className),
            "status": .object([
                "name": .string(connector.displayName), "connector": running,
                "tasks": .array([.object(task)]),
                "type": .string(connector.isSource ? "source" : "sink"),
            ]),
            "sources": .array(sources), "topics": .array(connector.topics.map { .string($0) }), "warnings": .array([]),
        ])
    }

    func dropConnector(_ name: String, ifExists: Bool, _ text: String) async throws(SluiceError) -> JSONDocument {
        guard try await dropConnectorRelations(name) else {
            if ifExists {
                return .object([
                    "@type": .string("warning_entity"), "statementText": .string(text),
                    "message": .string("Connector \(KsqlJSON.columnName(name)) does not exist"), "warnings": .array([]),
                ])
            }
            throw SluiceError(.undefinedObject, "Connector \(KsqlJSON.columnName(name)) does not exist")
        }
        return .object(["@type": .string("drop_connector"), "statementText": .string(text), "connectorName": .string(KsqlJSON.columnName(name)), "warnings": .array([])])
    }

    /// Drops every relation of connector `name`, sinks first; false when it has none.
    private func dropConnectorRelations(_ name: String) async throws(SluiceError) -> Bool {
        guard let connector = KsqlConnectorCatalog(catalog: service.database.catalog).connector(named: name) else { return false }
        for relation in connector.relations {
            let type: ObjectType = switch relation.kind {
            case .sink: .sink
            case .table: .table
            case .materializedView: .materializedView
            default: .source
            }
            _ = try await execute(.drop(Drop(objectType: type, ifExists: true, names: [ObjectName(relation.name)])))
        }
        return true
    }

    // MARK: Statement text

    private func executeSQL(_ sql: String) async throws(SluiceError) {
        for statement in try SQLParser.parse(sql) {
            _ = try await session.execute(statement)
        }
    }

    static func identifier(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }

    static func literal(_ text: String) -> String {
        "'" + text.replacing("'", with: "''") + "'"
    }

    static func optionList(_ options: [(String, String)]) -> String {
        options.map { "\($0.0) = \(literal($0.1))" }.joined(separator: ", ")
    }
}
