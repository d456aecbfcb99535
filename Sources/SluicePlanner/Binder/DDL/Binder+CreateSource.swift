import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

// CREATE SOURCE, and what a connector-fed relation adds to its columns: INCLUDE columns,
// a webhook's VALIDATE and a watermark.

extension Binder {
    mutating func bindCreateSource(_ create: CreateSource, sourceText: String) throws(SluiceError) -> PlannedStatement {
        let schema = create.name.qualifier.last ?? session.schema
        if let existing = try existingRelation(create.name.name, schema: schema, ifNotExists: create.ifNotExists, tag: "CREATE_SOURCE") {
            return existing
        }
        var (columns, primaryKey) = try bindColumnDefinitions(
            create.columns, create.constraints, relation: create.name.name, allowsGenerated: true)
        // With no columns listed, the connector says them at CREATE (an Iceberg table's schema,
        // Parquet files' columns) or refuses.
        var options = create.options
        let dedupOptions = Self.takeDedupOptions(&options)
        var connector = try connectorSpec(options, create.format)
        if !create.includes.isEmpty && columns.isEmpty {
            throw SluiceError(.invalidTableDefinition, "INCLUDE needs the source's columns listed")
        }
        try bindIncludes(create.includes, into: &columns, connector: &connector)
        if create.forAllTables {
            guard connector.connector.hasSuffix("-cdc") else {
                throw SluiceError(.featureNotSupported, "FOR ALL TABLES is for CDC sources (connector = 'postgres-cdc'), not the \(connector.connector) connector")
            }
            // The session makes a table for each upstream table once the source is made.
            connector.forAllTables = true
        }
        var relation = RelationDefinition(
            id: catalog.allocateID(), schema: schema, name: create.name.name, kind: .source, columns: columns, primaryKey: primaryKey,
            definition: sourceText, connector: connector)
        try bindWatermark(create.watermarks, into: &relation)
        relation.dedup = try bindDedup(dedupOptions, of: relation)
        return .createSource(relation)
    }
}

extension Binder {
    /// `INCLUDE kind [AS name]`, RisingWave's: each adds a column after the listed ones, named
    /// `_rw_kafka_<kind>` unless named. Kinds and types: `timestamp` timestamptz, `partition` and
    /// `offset` varchar, `key` bytea, `payload` jsonb. The connector says whether it has them.
    func bindIncludes(_ includes: [IncludeColumn], into columns: inout [CatalogColumn], connector: inout ConnectorSpec) throws(SluiceError) {
        guard !includes.isEmpty else { return }
        var specs: [IncludeSpec] = []
        for include in includes {
            let type: DataType
            switch include.kind {
            case "timestamp": type = .timestamptz
            case "partition", "offset": type = .varchar
            case "key": type = .bytea
            case "payload": type = .jsonb
            default:
                throw SluiceError(
                    .featureNotSupported, "INCLUDE \(include.kind) is not supported", hint: "INCLUDE takes timestamp, partition, offset, key or payload.")
            }
            let name = include.alias ?? "_rw_\(connector.connector)_\(include.kind)"
            if columns.contains(where: { $0.name == name }) {
                throw SluiceError(.duplicateColumn, "column \"\(name)\" specified more than once")
            }
            columns.append(CatalogColumn(name: name, type: type))
            specs.append(IncludeSpec(kind: include.kind, column: name))
        }
        connector.includes = specs
    }

    /// A webhook table's `VALIDATE` expression, bound over what a request gives it: `headers`
    /// (a jsonb object of the request's headers, names in lower case), `data` (the body, bytea)
    /// and the secret it names (text). It must be boolean: a request passes when it is true.
    package static func webhookValidation(_ spec: WebhookValidationSpec, catalog: Catalog, session: SessionInfo) throws(SluiceError) -> ScalarExpr {
        var binder = Binder(catalog: catalog, session: session)
        var entries = [
            Scope.Entry(qualifier: nil, name: "headers", type: .jsonb, tableID: 0, columnNumber: 1),
            Scope.Entry(qualifier: nil, name: "data", type: .bytea, tableID: 0, columnNumber: 2),
        ]
        if let secret = spec.secret {
            guard catalog.secret(named: secret) != nil else {
                throw SluiceError(.undefinedObject, "secret \"\(secret)\" does not exist", hint: "Create it first: CREATE SECRET \(secret) WITH (backend = 'meta') AS '…'.")
            }
            entries.append(Scope.Entry(qualifier: nil, name: secret, type: .varchar, tableID: 0, columnNumber: 3))
        }
        var context = ExpressionContext(scope: Scope(entries: entries), clause: "VALIDATE")
        context.allowsSubqueries = false
        let parsed = try SQLParser.parseExpression(spec.expression)
        try binder.checkNoAggregates(parsed, clause: "VALIDATE")
        let bound = try binder.bindExpression(parsed, &context)
        return try binder.coerce(bound, to: .boolean, position: nil, clause: "VALIDATE")
    }

    /// The bound expression of `relation`'s watermark, of its time column's type: checked when
    /// the source is created and bound again when it starts. The time column must be a
    /// timestamp or timestamptz, and the expression deterministic.
    package static func watermarkExpression(of relation: RelationDefinition, catalog: Catalog, session: SessionInfo) throws(SluiceError) -> ScalarExpr {
        guard let spec = relation.watermark else { throw SluiceError.internalError("\(relation.name) has no watermark") }
        let column = relation.columns[spec.column]
        guard column.type == .timestamp || column.type == .timestamptz else {
            throw SluiceError(
                .datatypeMismatch, "a watermark must be on a timestamp or timestamptz column; \"\(column.name)\" is \(column.type.sqlName)",
                hint: "Declare the event time as timestamptz, or convert it in a view first.")
        }
        var binder = Binder(catalog: catalog, session: session)
        let scope = Scope(entries: relation.columns.enumerated().map { index, column in
            Scope.Entry(qualifier: relation.name, name: column.name, type: column.type, tableID: relation.id, columnNumber: index + 1)
        })
        var context = ExpressionContext(scope: scope, clause: "WATERMARK")
        context.allowsSubqueries = false
        let parsed = try SQLParser.parseExpression(spec.expression)
        try binder.checkNoAggregates(parsed, clause: "WATERMARK")
        let bound = try binder.bindExpression(parsed, &context)
        let coerced = try binder.coerce(bound, to: column.type, position: nil, clause: "WATERMARK")
        var volatile: String?
        coerced.visit { node in
            if case .call(let function, _) = node, !function.isDeterministic { volatile = function.name }
        }
        if let volatile {
            throw SluiceError(.featureNotSupported, "a watermark cannot use the non-deterministic function \(volatile)()")
        }
        return coerced
    }
}
