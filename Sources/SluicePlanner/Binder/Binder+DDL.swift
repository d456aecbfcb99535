import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

extension Binder {
    mutating func bindCreateTable(_ create: CreateTable, sourceText: String) throws(SluiceError) -> PlannedStatement {
        let schema = create.name.qualifier.last ?? session.schema
        if let reference = create.cdcTable { return try bindCreateCDCTable(create, reference, sourceText: sourceText) }
        if let existing = try existingRelation(create.name.name, schema: schema, ifNotExists: create.ifNotExists, tag: "CREATE_TABLE") {
            return existing
        }
        var create = create
        let dedupOptions = Self.takeDedupOptions(&create.options)
        if !create.options.isEmpty || create.format != nil {
            guard create.query == nil else {
                throw SluiceError(.featureNotSupported, "CREATE TABLE AS with a connector is not supported")
            }
            var columns: [CatalogColumn] = []
            var primaryKey: [Int] = []
            var keyNames: [String]?
            if create.columns.isEmpty {
                // The connector says the columns at CREATE (a schema registry's schema, an
                // Iceberg table, Parquet files), as RisingWave's `CREATE TABLE t (PRIMARY KEY
                // (id)) WITH (…) FORMAT UPSERT ENCODE AVRO (…)`; a PRIMARY KEY names them.
                keyNames = try Self.primaryKeyWithoutColumns(create, dedup: dedupOptions)
            } else {
                (columns, primaryKey) = try bindColumnDefinitions(create.columns, create.constraints, relation: create.name.name)
            }
            var connector = try connectorSpec(create.options, create.format)
            connector.primaryKeyNames = keyNames
            try bindIncludes(create.includes, into: &columns, connector: &connector)
            if let validate = create.validate {
                guard connector.connector == "webhook" else {
                    throw SluiceError(.syntaxError, "VALIDATE is for webhook tables, not the \(connector.connector) connector")
                }
                connector.validation = WebhookValidationSpec(secret: validate.secret, expression: validate.expression.description)
                _ = try Self.webhookValidation(connector.validation!, catalog: catalog, session: session)
            }
            var relation = RelationDefinition(
                id: catalog.allocateID(), schema: schema, name: create.name.name, kind: .table, columns: columns, primaryKey: primaryKey,
                definition: sourceText, connector: connector)
            if create.isAppendOnly {
                try checkAppendOnly(primaryKey: primaryKey)
                if relation.connector?.format.uppercased() == "UPSERT" {
                    throw SluiceError(
                        .featureNotSupported, "an APPEND ONLY table cannot take FORMAT UPSERT", hint: "Upserts update and delete rows; use FORMAT PLAIN.")
                }
                relation.appendOnly = true
            }
            relation.onConflict = try conflictBehavior(create.onConflict, primaryKey: primaryKey)
            relation.versionColumn = try versionColumn(create, of: relation)
            try bindTableWatermark(create, into: &relation)
            relation.dedup = try bindDedup(dedupOptions, of: relation)
            return .createSource(relation)
        }
        var columns: [CatalogColumn] = []
        var primaryKey: [Int] = []
        var populate: BatchPlan?
        if let query = create.query {
            let bound = try bindQuery(query)
            columns = bound.scope.entries.map { CatalogColumn(name: $0.name, type: $0.type == .unknown ? .varchar : $0.type) }
            for (index, column) in create.columns.enumerated() where index < columns.count { columns[index].name = column.name }
            populate = bound.plan
        } else {
            (columns, primaryKey) = try bindColumnDefinitions(create.columns, create.constraints, relation: create.name.name)
        }
        if columns.isEmpty { throw SluiceError(.invalidTableDefinition, "a table needs at least one column") }
        var relation = RelationDefinition(
            id: catalog.allocateID(), schema: schema, name: create.name.name, kind: .table, columns: columns, primaryKey: primaryKey,
            definition: sourceText)
        if create.isAppendOnly {
            try checkAppendOnly(primaryKey: primaryKey)
            relation.appendOnly = true
        }
        relation.onConflict = try conflictBehavior(create.onConflict, primaryKey: primaryKey)
        relation.versionColumn = try versionColumn(create, of: relation)
        try bindTableWatermark(create, into: &relation)
        relation.dedup = try bindDedup(dedupOptions, of: relation)
        return .createTable(relation, populate: populate)
    }

    /// The PRIMARY KEY of a connector-fed CREATE TABLE that lists no columns (nil without one);
    /// what else names a column needs them listed.
    private static func primaryKeyWithoutColumns(_ create: CreateTable, dedup: [WithOption]) throws(SluiceError) -> [String]? {
        let named: String? =
            if !create.includes.isEmpty { "INCLUDE" }
            else if !create.watermarks.isEmpty { "WATERMARK FOR" }
            else if create.versionColumn != nil { "WITH VERSION COLUMN" }
            else if create.onConflict != nil { "ON CONFLICT" }
            else if !dedup.isEmpty { "dedup.key" }
            else if create.constraints.contains(where: { if case .unique = $0 { true } else { false } }) { "UNIQUE" }
            else { nil }
        if let named {
            throw SluiceError(
                .invalidTableDefinition, "\(named) needs the table's columns listed",
                hint: "Without columns the table takes the connector's; list them to use \(named).")
        }
        var key: [String]?
        for constraint in create.constraints {
            guard case .primaryKey(let names, _) = constraint else { continue }
            guard key == nil else { throw SluiceError(.invalidTableDefinition, "multiple primary keys for table \"\(create.name.name)\" are not allowed") }
            key = names
        }
        return key
    }

    /// A table's `WATERMARK FOR`, as RisingWave has it: only on an APPEND ONLY table, whose rows
    /// behind the watermark are dropped as they are inserted and never stored.
    private func bindTableWatermark(_ create: CreateTable, into relation: inout RelationDefinition) throws(SluiceError) {
        guard !create.watermarks.isEmpty else { return }
        guard create.isAppendOnly else {
            throw SluiceError(
                .featureNotSupported, "a watermark on a table needs the table to be APPEND ONLY",
                hint: "Add APPEND ONLY after the columns (rows behind the watermark are then dropped), or define the watermark on a CREATE SOURCE.")
        }
        try bindWatermark(create.watermarks, into: &relation)
    }

    /// The one `WATERMARK FOR column AS expression` of a source or table, bound and checked.
    func bindWatermark(_ watermarks: [WatermarkDefinition], into relation: inout RelationDefinition) throws(SluiceError) {
        if watermarks.count > 1 {
            throw SluiceError(.featureNotSupported, "a source takes one WATERMARK, not \(watermarks.count)")
        }
        guard let watermark = watermarks.first else { return }
        relation.watermark = WatermarkSpec(column: -1, expression: watermark.expression.description)
        guard let column = relation.columnIndex(named: watermark.column) else {
            throw SluiceError(.undefinedColumn, "column \"\(watermark.column)\" named in WATERMARK FOR does not exist")
        }
        relation.watermark?.column = column
        _ = try Self.watermarkExpression(of: relation, catalog: catalog, session: session)
    }

    /// `ON CONFLICT …` needs a primary key to conflict on (RisingWave refuses it without one).
    private func conflictBehavior(_ behavior: ConflictBehavior?, primaryKey: [Int]) throws(SluiceError) -> ConflictBehavior? {
        guard let behavior else { return nil }
        guard !primaryKey.isEmpty else {
            throw SluiceError(
                .invalidTableDefinition, "ON CONFLICT needs a primary key",
                hint: "Declare the columns that identify a row as the PRIMARY KEY: ON CONFLICT says what an insert of a key already held does.")
        }
        return behavior
    }

    /// An APPEND ONLY table has no primary key: a key would make an insert of a key already
    /// there an update (RisingWave refuses it too).
    private func checkAppendOnly(primaryKey: [Int]) throws(SluiceError) {
        guard primaryKey.isEmpty else {
            throw SluiceError(
                .invalidTableDefinition, "an APPEND ONLY table cannot have a primary key",
                hint: "Remove APPEND ONLY to keep one row per key, or the primary key to keep every row.")
        }
    }

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

    /// The connector options and format of a CREATE SOURCE or CREATE TABLE; which options a
    /// connector takes is the connector's to check, when the statement runs.
    /// For a CREATE of relation `name` that already exists: the statement that only notices
    /// (IF NOT EXISTS), or the error. Nil when the name is free.
    func existingRelation(_ name: String, schema: String, ifNotExists: Bool, tag: String) throws(SluiceError) -> PlannedStatement? {
        try checkSchemaExists(schema)
        try requireSchemaPrivilege(.create, on: schema)
        guard catalog.relation(named: name, schema: schema) != nil else { return nil }
        guard ifNotExists else { throw SluiceError(.duplicateTable, "relation \"\(name)\" already exists") }
        return .nothing(tag: tag, notice: "relation \"\(name)\" already exists, skipping")
    }

    func connectorSpec(_ options: [WithOption], _ format: FormatEncode?) throws(SluiceError) -> ConnectorSpec {
        let values = try optionValues(options)
        guard let connector = values["connector"], !connector.isEmpty else {
            throw SluiceError(.syntaxError, "the WITH options must name a connector, as in WITH (connector = 'kafka', …)")
        }
        // Whether the connector needs a format (Kafka does; the load generator does not) is the
        // connector's to say.
        // The secrets named (`password = SECRET name`), which DROP SECRET may not take away.
        let secretNames = (options + (format?.options ?? [])).compactMap { option -> String? in
            if case .secret(let name) = option.value { return name.name }
            return nil
        }
        guard let format else {
            var spec = ConnectorSpec(options: values, format: "", encode: "", formatOptions: [:])
            spec.secretNames = secretNames.isEmpty ? nil : secretNames
            return spec
        }
        var formatOptions: [String: String] = [:]
        for option in format.options { formatOptions[option.key] = try optionText(option.value) }
        // `KEY ENCODE z` travels with the format's options, under a name no option has.
        if let keyEncode = format.keyEncode { formatOptions["key.encode"] = keyEncode }
        var spec = ConnectorSpec(options: values, format: format.format, encode: format.encode, formatOptions: formatOptions)
        spec.secretNames = secretNames.isEmpty ? nil : secretNames
        return spec
    }

    /// `WITH (…)` as text values by key, `SECRET name` as the secret's value; a key given twice
    /// is an error.
    func optionValues(_ options: [WithOption]) throws(SluiceError) -> [String: String] {
        var values: [String: String] = [:]
        for (key, option) in try optionsByKey(options) { values[key] = try optionText(option.value) }
        return values
    }

    /// An option's value as text: a secret it names (RisingWave's `SECRET name`) as the
    /// secret's value, 42704 if there is none.
    func optionText(_ value: OptionValue) throws(SluiceError) -> String {
        guard case .secret(let name) = value else { return value.text }
        guard let secret = catalog.secret(named: name.name) else {
            throw SluiceError(
                .undefinedObject, "secret \"\(name.name)\" does not exist",
                hint: "Create it first: CREATE SECRET \(name.name) WITH (backend = 'meta') AS '…'.")
        }
        return secret
    }

    /// `WITH (…)` by key, each option whole (for the positions of errors about its value); a
    /// key given twice is an error.
    func optionsByKey(_ options: [WithOption]) throws(SluiceError) -> [String: WithOption] {
        var values: [String: WithOption] = [:]
        for option in options {
            if values[option.key] != nil {
                throw SluiceError(.syntaxError, "option \"\(option.key)\" is given more than once", position: option.position.errorPosition)
            }
            values[option.key] = option
        }
        return values
    }

    /// The columns an option names as a list (`'a, b'`, as `dedup.key` and a sink's
    /// `primary_key` do), in order: each name trimmed of spaces, and its index in `relation`
    /// (as written, or else lowercased), nil when it has no such column.
    static func columnList(_ text: String, of relation: RelationDefinition) -> [(name: String, index: Int?)] {
        text.split(separator: ",").map { part in
            let name = String(part.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            return (name, relation.columnIndex(named: name) ?? relation.columnIndex(named: name.lowercased()))
        }
    }

    /// The columns and primary key of a CREATE TABLE or CREATE SOURCE column list.
    /// Generated columns (`name [type] AS expr`) only where `allowsGenerated` (a source's).
    mutating func bindColumnDefinitions(
        _ definitions: [ColumnDefinition], _ constraints: [TableConstraint], relation: String, allowsGenerated: Bool = false
    ) throws(SluiceError) -> ([CatalogColumn], [Int]) {
        var columns: [CatalogColumn] = []
        var primaryKey: [Int] = []
        var generated: [(column: Int, expression: Expression)] = []
        for definition in definitions {
            if let expression = definition.constraints.lazy.compactMap({ constraint -> Expression? in
                if case .generated(let expression) = constraint { expression } else { nil }
            }).first {
                guard allowsGenerated else {
                    throw SluiceError(
                        .featureNotSupported, "generated columns are supported on sources only",
                        hint: "Compute the column in a view over the table, or declare the input as a CREATE SOURCE.",
                        position: definition.position.errorPosition)
                }
                guard definition.constraints.count == 1 else {
                    throw SluiceError(
                        .invalidTableDefinition, "generated column \"\(definition.name)\" takes no other constraint",
                        position: definition.position.errorPosition)
                }
                if columns.contains(where: { $0.name == definition.name }) {
                    throw SluiceError(.duplicateColumn, "column \"\(definition.name)\" specified more than once", position: definition.position.errorPosition)
                }
                generated.append((columns.count, expression))
                var column = CatalogColumn(name: definition.name, type: try definition.type?.resolvedDataType() ?? .unknown)
                column.generatedExpression = expression.description
                columns.append(column)
                continue
            }
            guard let typeName = definition.type else {
                throw SluiceError(.syntaxError, "column \"\(definition.name)\" needs a type", position: definition.position.errorPosition)
            }
            if columns.contains(where: { $0.name == definition.name }) {
                throw SluiceError(.duplicateColumn, "column \"\(definition.name)\" specified more than once", position: definition.position.errorPosition)
            }
            var column = CatalogColumn(name: definition.name, type: try typeName.resolvedDataType())
            for constraint in definition.constraints {
                switch constraint {
                case .notNull: column.isNullable = false
                case .null: column.isNullable = true
                case .primaryKey:
                    if !primaryKey.isEmpty {
                        throw SluiceError(.invalidTableDefinition, "multiple primary keys for table \"\(relation)\" are not allowed", position: definition.position.errorPosition)
                    }
                    primaryKey = [columns.count]
                    column.isNullable = false
                case .defaultValue(let expression):
                    // Checked now (no column references, a type that assigns to the column) and
                    // kept as text, evaluated by each statement that uses it.
                    try checkNoAggregates(expression, clause: "DEFAULT expressions")
                    var context = ExpressionContext(scope: Scope(), clause: "DEFAULT")
                    context.allowsSubqueries = false
                    let bound: ScalarExpr
                    do {
                        bound = try bindExpression(expression, &context)
                    } catch where error.code == .undefinedColumn {
                        throw SluiceError(.featureNotSupported, "cannot use column reference in DEFAULT expression", position: expression.position.errorPosition)
                    }
                    _ = try assign(bound, to: column, position: expression.position.errorPosition)
                    column.defaultExpression = expression.description
                case .unique, .generated:
                    throw SluiceError(.featureNotSupported, "column constraint is not supported yet", position: definition.position.errorPosition)
                }
            }
            columns.append(column)
        }
        for constraint in constraints {
            switch constraint {
            case .primaryKey(let names, _):
                if !primaryKey.isEmpty {
                    throw SluiceError(.invalidTableDefinition, "multiple primary keys for table \"\(relation)\" are not allowed")
                }
                for name in names {
                    guard let index = columns.firstIndex(where: { $0.name == name }) else {
                        throw SluiceError(.undefinedColumn, "column \"\(name)\" named in key does not exist")
                    }
                    primaryKey.append(index)
                    columns[index].isNullable = false
                }
            case .unique:
                throw SluiceError(.featureNotSupported, "UNIQUE constraints are not supported yet")
            }
        }
        if !generated.isEmpty {
            let physical = columns.filter { $0.generatedExpression == nil }
            for (column, expression) in generated {
                if primaryKey.contains(column) {
                    throw SluiceError(.invalidTableDefinition, "generated column \"\(columns[column].name)\" cannot be part of the primary key")
                }
                let bound = try bindGenerated(expression, over: physical, relation: relation, as: columns[column].type == .unknown ? nil : columns[column].type)
                columns[column].type = bound.type
            }
        }
        return (columns, primaryKey)
    }

    /// A generated column's expression over a source's decoded (not generated) columns, in the
    /// declared type when there is one. Deterministic or not (`proctime()` is the row's arrival).
    private mutating func bindGenerated(
        _ expression: Expression, over physical: [CatalogColumn], relation: String, as type: DataType?
    ) throws(SluiceError) -> ScalarExpr {
        try checkNoAggregates(expression, clause: "generated column expressions")
        var context = ExpressionContext(
            scope: Scope(entries: physical.map { Scope.Entry(qualifier: relation, name: $0.name, type: $0.type) }), clause: "generated column")
        context.allowsSubqueries = false
        let bound = try bindExpression(expression, &context)
        if let type { return try coerce(bound, to: type, position: expression.position.errorPosition, clause: "generated column") }
        return bound.type == .unknown ? try coerce(bound, to: .varchar, position: nil) : bound
    }

    /// A source's generated columns, bound again (at start), each with its position among all
    /// columns; their expressions read the decoded columns, numbered in order without them.
    package static func generatedColumns(
        of relation: RelationDefinition, catalog: Catalog, session: SessionInfo
    ) throws(SluiceError) -> [(column: Int, expression: ScalarExpr)] {
        var binder = Binder(catalog: catalog, session: session)
        let physical = relation.columns.filter { $0.generatedExpression == nil }
        var result: [(column: Int, expression: ScalarExpr)] = []
        for (index, column) in relation.columns.enumerated() {
            guard let text = column.generatedExpression else { continue }
            let bound = try binder.bindGenerated(try SQLParser.parseExpression(text), over: physical, relation: relation.name, as: column.type)
            result.append((index, bound))
        }
        return result
    }

    mutating func bindDrop(_ drop: Drop) throws(SluiceError) -> PlannedStatement {
        let kind: RelationKind
        switch drop.objectType {
        case .table: kind = .table
        case .view: kind = .view
        case .materializedView: kind = .materializedView
        case .source: kind = .source
        case .sink: kind = .sink
        case .schema:
            return try bindDropSchema(drop)
        case .index:
            return try bindDropIndex(drop)
        case .secret:
            return try bindDropSecrets(drop)
        case .database, .column, .function:
            if drop.ifExists { return .nothing(tag: "DROP_\(drop.objectType.rawValue.replacing(" ", with: "_"))", notice: nil) }
            throw SluiceError(.featureNotSupported, "DROP \(drop.objectType.rawValue) is not supported yet")
        }
        var doomed: [RelationDefinition] = []
        var notices: [String] = []
        for name in drop.names {
            let schema = name.qualifier.last ?? session.schema
            guard let relation = catalog.relation(named: name.name, schema: schema) else {
                if drop.ifExists {
                    notices.append("\(kind.rawValue) \"\(name.name)\" does not exist, skipping")
                    continue
                }
                throw SluiceError(.undefinedTable, "\(kind.rawValue) \"\(name.name)\" does not exist")
            }
            guard relation.kind == kind else {
                throw SluiceError(
                    .wrongObjectType, "\"\(relation.name)\" is not a \(kind.rawValue)",
                    hint: "Use DROP \(relation.kind.rawValue.uppercased()) to remove a \(relation.kind.rawValue).")
            }
            try requireOwner(relation)
            let dependents = allDependents(of: relation.id)
            if !dependents.isEmpty && !drop.cascade {
                // Name each dependent with the object it reads directly, as Postgres does.
                let names = dependents.map { dependent in
                    let direct = dependent.dependencies.compactMap { id in
                        id == relation.id ? relation : dependents.first { $0.id == id }
                    }.first ?? relation
                    return "\(dependent.kind.rawValue) \(dependent.name) depends on \(direct.kind.rawValue) \(direct.name)"
                }
                throw SluiceError(
                    .dependentObjectsStillExist, "cannot drop \(kind.rawValue) \(relation.name) because other objects depend on it",
                    detail: names.joined(separator: "\n"), hint: "Use DROP ... CASCADE to drop the dependent objects too.")
            }
            for dependent in dependents.reversed() where !doomed.contains(where: { $0.id == dependent.id }) { doomed.append(dependent) }
            if !doomed.contains(where: { $0.id == relation.id }) { doomed.append(relation) }
        }
        if doomed.isEmpty {
            return .nothing(tag: "DROP_\(drop.objectType.rawValue.replacing(" ", with: "_"))", notice: notices.first)
        }
        return .drop(doomed)
    }

    /// Every relation that depends on `id`, directly or not, nearest first.
    func allDependents(of id: Int) -> [RelationDefinition] {
        var result: [RelationDefinition] = []
        var queue = [id]
        while let next = queue.first {
            queue.removeFirst()
            for dependent in catalog.dependents(of: next) where !result.contains(where: { $0.id == dependent.id }) {
                result.append(dependent)
                queue.append(dependent.id)
            }
        }
        return result
    }

    mutating func bindShow(_ show: Show) throws(SluiceError) -> PlannedStatement {
        switch show {
        case .list(let listing, _, _):
            return .utility(.showList(kind: listing.rawValue.lowercased()))
        case .columns(let name):
            let relation = try relation(named: name, position: nil)
            try requireVisible(relation)
            return .utility(.describe(relation))
        case .create(_, let name):
            let relation = try relation(named: name, position: nil)
            try requireVisible(relation)
            let plan = BatchPlan.values(
                rows: [[.literal(.string(relation.name), .varchar), .literal(.string(relation.maskedDefinition), .varchar)]], types: [.varchar, .varchar])
            return .query(plan, columns: [OutputColumn(name: "Name", type: .varchar), OutputColumn(name: "Create Sql", type: .varchar)])
        case .all:
            return .utility(.showAll)
        case .variable(let name):
            return .utility(.show(name: name.lowercased()))
        }
    }
}

extension Binder {
    mutating func bindCreateMaterializedView(_ view: CreateView, sourceText: String) throws(SluiceError) -> PlannedStatement {
        let schema = view.name.qualifier.last ?? session.schema
        if let existing = try existingRelation(view.name.name, schema: schema, ifNotExists: view.ifNotExists, tag: "CREATE_MATERIALIZED_VIEW") {
            return existing
        }
        if view.orReplace { throw SluiceError(.featureNotSupported, "CREATE OR REPLACE MATERIALIZED VIEW is not supported") }
        if !view.options.isEmpty { throw SluiceError(.featureNotSupported, "WITH options on materialized views are not supported yet") }
        let bound = try bindQuery(view.query)
        var columns = bound.scope.entries.map { CatalogColumn(name: $0.name, type: $0.type == .unknown ? .varchar : $0.type) }
        if view.columns.count > columns.count {
            throw SluiceError(.syntaxError, "CREATE MATERIALIZED VIEW specifies more column names than columns")
        }
        for (index, name) in view.columns.enumerated() { columns[index].name = name }
        var seen = Set<String>()
        for column in columns where !seen.insert(column.name).inserted {
            throw SluiceError(
                .duplicateColumn, "column \"\(column.name)\" specified more than once",
                hint: "Give the columns distinct names with AS.")
        }
        var plan = bound.plan
        // Unknown-typed literals become text, as the catalog column says.
        if bound.scope.entries.contains(where: { $0.type == .unknown }) {
            plan = .project(
                input: plan,
                expressions: bound.scope.entries.enumerated().map { index, entry in
                    entry.type == .unknown ? .cast(.column(index, .unknown), .varchar) : .column(index, entry.type)
                })
        }
        let streamPlan = StreamPlan(MaterializeNode(
            input: try StreamPlanner.plan(plan, emitOnWindowClose: view.emitOnWindowClose), view: view.name.name, columns: columns.map(\.name)))
        var dependencies = streamPlan.scannedRelations
        for id in referencedRelations where !dependencies.contains(id) { dependencies.append(id) }
        var relation = RelationDefinition(
            id: catalog.allocateID(), schema: schema, name: view.name.name, kind: .materializedView, columns: columns,
            definition: sourceText, dependencies: dependencies)
        relation.planFingerprint = streamPlan.fingerprint
        return .createMaterializedView(relation, plan: streamPlan)
    }
}

extension Binder {
    /// `CREATE [OR REPLACE] VIEW`: the query is bound now (so errors show at CREATE) and kept as
    /// text; each query naming the view binds it again in its place, as PostgreSQL's rewriter
    /// does. OR REPLACE keeps the old columns' names and types in order and may add columns
    /// after them, as in PostgreSQL.
    mutating func bindCreateView(_ view: CreateView, sourceText: String) throws(SluiceError) -> PlannedStatement {
        let schema = view.name.qualifier.last ?? session.schema
        try checkSchemaExists(schema)
        try requireSchemaPrivilege(.create, on: schema)
        var replacing: RelationDefinition?
        if let existing = catalog.relation(named: view.name.name, schema: schema) {
            if view.orReplace {
                guard existing.kind == .view else {
                    throw SluiceError(.wrongObjectType, "\"\(existing.name)\" is not a view")
                }
                try requireOwner(existing)
                replacing = existing
            } else if let nothing = try existingRelation(view.name.name, schema: schema, ifNotExists: view.ifNotExists, tag: "CREATE_VIEW") {
                return nothing
            }
        }
        if !view.options.isEmpty { throw SluiceError(.featureNotSupported, "WITH options on views are not supported yet") }
        if view.emitOnWindowClose { throw SluiceError(.syntaxError, "EMIT ON WINDOW CLOSE is for materialized views") }
        let bound = try bindQuery(view.query)
        let visible = bound.scope.entries.filter { !$0.isHidden }
        var columns = visible.map { CatalogColumn(name: $0.name, type: $0.type == .unknown ? .varchar : $0.type) }
        if view.columns.count > columns.count {
            throw SluiceError(.syntaxError, "CREATE VIEW specifies more column names than columns")
        }
        for (index, name) in view.columns.enumerated() { columns[index].name = name }
        var seen = Set<String>()
        for column in columns where !seen.insert(column.name).inserted {
            throw SluiceError(.duplicateColumn, "column \"\(column.name)\" specified more than once")
        }
        if let replacing {
            for (index, old) in replacing.columns.enumerated() {
                guard index < columns.count else {
                    throw SluiceError(.invalidTableDefinition, "cannot drop columns from view")
                }
                if columns[index].name != old.name {
                    throw SluiceError(
                        .invalidTableDefinition, "cannot change name of view column \"\(old.name)\" to \"\(columns[index].name)\"",
                        hint: "Use ALTER VIEW ... RENAME COLUMN ... to change name of view column instead.")
                }
                if columns[index].type != old.type {
                    throw SluiceError(
                        .invalidTableDefinition,
                        "cannot change data type of view column \"\(old.name)\" from \(old.type.sqlName) to \(columns[index].type.sqlName)")
                }
            }
            if referencedRelations.contains(replacing.id) {
                throw SluiceError(.invalidObjectDefinition, "infinite recursion detected in rules for relation \"\(replacing.name)\"")
            }
        }
        let relation = RelationDefinition(
            id: replacing?.id ?? catalog.allocateID(), schema: schema, name: view.name.name, kind: .view, columns: columns,
            definition: sourceText, dependencies: referencedRelations)
        return .createView(relation, replacing: replacing)
    }

    /// The query of view `relation`, bound in a binder of its own (it sees no CTE or outer
    /// column of the query naming it), its columns named and typed as the view's.
    mutating func bindView(_ relation: RelationDefinition, position: Int?) throws(SluiceError) -> BoundQuery {
        guard viewDepth < 64 else {
            throw SluiceError(.invalidObjectDefinition, "infinite recursion detected in rules for relation \"\(relation.name)\"", position: position)
        }
        let statements = try SQLParser.parse(relation.definition)
        guard statements.count == 1, case .createView(let view) = statements[0].kind, !view.isMaterialized else {
            throw SluiceError.internalError("the stored definition of view \(relation.name) is not a view")
        }
        var inner = Binder(catalog: catalog, session: session)
        inner.viewDepth = viewDepth + 1
        inner.privilegeUser = catalog.role(oid: relation.accessControl.owner)?.name ?? RoleDefinition.root.name
        var bound = try inner.bindQuery(view.query)
        let visible = bound.scope.entries.indices.filter { !bound.scope.entries[$0].isHidden }
        guard visible.count >= relation.columns.count else {
            throw SluiceError(.invalidObjectDefinition, "view \"\(relation.name)\" no longer matches its columns; create it again", position: position)
        }
        var expressions: [ScalarExpr] = []
        for (index, column) in relation.columns.enumerated() {
            let source = visible[index]
            let type = bound.scope.entries[source].type
            expressions.append(type == column.type ? .column(source, type) : .cast(.column(source, type), column.type))
        }
        bound.plan = .project(input: bound.plan, expressions: expressions)
        bound.scope = Scope(entries: relation.columns.enumerated().map { index, column in
            Scope.Entry(qualifier: relation.name, name: column.name, type: column.type, tableID: relation.id, columnNumber: index + 1)
        })
        return bound
    }
}

extension Binder {
    /// `CREATE SCHEMA [IF NOT EXISTS] name`.
    func bindCreateSchema(_ name: ObjectName, ifNotExists: Bool) throws(SluiceError) -> PlannedStatement {
        if catalog.hasSchema(name.name) {
            if ifNotExists { return .nothing(tag: "CREATE_SCHEMA", notice: "schema \"\(name.name)\" already exists, skipping") }
            throw SluiceError(.duplicateSchema, "schema \"\(name.name)\" already exists")
        }
        let actor = try actingRole()
        if !catalog.databaseAccess.allows(.create, to: actor, through: catalog.privilegeRoles(of: actor)) {
            throw SluiceError(.insufficientPrivilege, "permission denied for database \(session.database)")
        }
        return .createSchema(name.name, oid: catalog.allocateID(), owner: actor.oid)
    }

    /// `DROP SCHEMA [IF EXISTS] name, … [CASCADE]`: without CASCADE a schema holding relations
    /// is refused (2BP01); with it they go too, and what depends on them.
    func bindDropSchema(_ drop: Drop) throws(SluiceError) -> PlannedStatement {
        var names: [String] = []
        var doomed: [RelationDefinition] = []
        var notices: [String] = []
        for name in drop.names {
            let schema = name.name
            if ["pg_catalog", "information_schema", "rw_catalog"].contains(schema) {
                throw SluiceError(.dependentObjectsStillExist, "cannot drop schema \(schema) because it is required by the database system")
            }
            guard catalog.hasSchema(schema) else {
                if drop.ifExists {
                    notices.append("schema \"\(schema)\" does not exist, skipping")
                    continue
                }
                throw SluiceError(.invalidSchemaName, "schema \"\(schema)\" does not exist")
            }
            let actor = try actingRole()
            if !actor.superuser, catalog.schemaAccess(schema).owner != actor.oid {
                throw SluiceError(.insufficientPrivilege, "must be owner of schema \(schema)")
            }
            let members = catalog.relations.filter { $0.schema == schema }
            if !members.isEmpty && !drop.cascade {
                throw SluiceError(
                    .dependentObjectsStillExist, "cannot drop schema \(schema) because other objects depend on it",
                    detail: members.map { "\($0.kind.rawValue) \(schema).\($0.name) depends on schema \(schema)" }.joined(separator: "\n"),
                    hint: "Use DROP ... CASCADE to drop the dependent objects too.")
            }
            for member in members {
                for dependent in allDependents(of: member.id).reversed() where !doomed.contains(where: { $0.id == dependent.id }) {
                    doomed.append(dependent)
                }
                if !doomed.contains(where: { $0.id == member.id }) { doomed.append(member) }
            }
            names.append(schema)
        }
        if names.isEmpty { return .nothing(tag: "DROP_SCHEMA", notice: notices.first) }
        return .dropSchemas(names, relations: doomed)
    }

    /// Fails with 3F000 unless schema `name` exists (for a new relation in it).
    func checkSchemaExists(_ name: String) throws(SluiceError) {
        guard catalog.hasSchema(name) else { throw SluiceError(.invalidSchemaName, "schema \"\(name)\" does not exist") }
    }
}

extension Binder {
    /// The bound expression of `relation`'s watermark, of its time column's type: checked when
    /// the source is created and bound again when it starts. The time column must be a
    /// timestamp or timestamptz, and the expression deterministic.
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

extension Binder {
    /// `CREATE SECRET [IF NOT EXISTS] name [WITH (backend = 'meta')] AS 'value'`: the secrets are
    /// kept with the catalog (RisingWave's `meta` backend, the only one).
    func bindCreateSecret(_ name: String, ifNotExists: Bool, options: [WithOption], value: String) throws(SluiceError) -> PlannedStatement {
        for option in options {
            guard option.key.lowercased() == "backend" else {
                throw SluiceError(.syntaxError, "unknown option \"\(option.key)\" for CREATE SECRET", hint: "CREATE SECRET takes backend = 'meta'.")
            }
            guard option.value.text.lowercased() == "meta" else {
                throw SluiceError(.featureNotSupported, "secret backend '\(option.value.text)' is not supported", hint: "Use backend = 'meta': the secret is kept with the catalog.")
            }
        }
        if catalog.secret(named: name) != nil {
            if ifNotExists { return .nothing(tag: "CREATE_SECRET", notice: "secret \"\(name)\" already exists, skipping") }
            throw SluiceError(.duplicateObject, "secret \"\(name)\" already exists")
        }
        let actor = try actingRole()
        if !catalog.databaseAccess.allows(.create, to: actor, through: catalog.privilegeRoles(of: actor)) {
            throw SluiceError(.insufficientPrivilege, "permission denied for database \(session.database)")
        }
        return .createSecret(name, value: value)
    }

    /// `DROP SECRET [IF EXISTS] name, …`: refused while a table's VALIDATE names it.
    func bindDropSecrets(_ drop: Drop) throws(SluiceError) -> PlannedStatement {
        var names: [String] = []
        for name in drop.names {
            guard catalog.secret(named: name.name) != nil else {
                if drop.ifExists { continue }
                throw SluiceError(.undefinedObject, "secret \"\(name.name)\" does not exist")
            }
            if let user = catalog.relations(usingSecret: name.name).first {
                throw SluiceError(.dependentObjectsStillExist, "cannot drop secret \(name.name) because \(user.kind.rawValue) \(user.name) uses it", hint: "Drop the \(user.kind.rawValue) first.")
            }
            names.append(name.name)
        }
        guard !names.isEmpty else { return .nothing(tag: "DROP_SECRET", notice: nil) }
        let actor = try actingRole()
        if !catalog.databaseAccess.allows(.create, to: actor, through: catalog.privilegeRoles(of: actor)) {
            throw SluiceError(.insufficientPrivilege, "permission denied for database \(session.database)")
        }
        return .dropSecrets(names)
    }
}
