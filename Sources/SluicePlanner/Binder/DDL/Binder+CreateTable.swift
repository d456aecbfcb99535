import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

// CREATE TABLE: columns, primary key, APPEND ONLY, ON CONFLICT and watermark.

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
}
