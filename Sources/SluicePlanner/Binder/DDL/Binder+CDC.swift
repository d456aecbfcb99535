import SluiceCore
import SluiceSQL

extension Binder {
    /// RisingWave's `CREATE TABLE t (… PRIMARY KEY …) [WITH (…)] FROM source TABLE 'schema.t'`
    /// (and `(*)`): a table fed by one upstream table of a CDC source. The table's connector is
    /// the source's, with the upstream table named in it; the table depends on the source.
    mutating func bindCreateCDCTable(_ create: CreateTable, _ reference: CDCTableReference, sourceText: String) throws(SluiceError) -> PlannedStatement {
        let schema = create.name.qualifier.last ?? session.schema
        if let existing = try existingRelation(create.name.name, schema: schema, ifNotExists: create.ifNotExists, tag: "CREATE_TABLE") {
            return existing
        }
        let source = try relation(named: reference.source, position: nil)
        guard source.kind == .source, let sourceConnector = source.connector, sourceConnector.connector.hasSuffix("-cdc") else {
            throw SluiceError(
                .wrongObjectType, "\"\(reference.source)\" is not a CDC source",
                hint: "FROM … TABLE reads a source made WITH (connector = 'postgres-cdc', …).")
        }
        guard create.format == nil, create.query == nil, create.validate == nil, create.includes.isEmpty else {
            throw SluiceError(.featureNotSupported, "a table FROM a CDC source takes no FORMAT, AS, VALIDATE or INCLUDE")
        }
        if create.isAppendOnly {
            throw SluiceError(.invalidTableDefinition, "a table FROM a CDC source cannot be APPEND ONLY: its rows are updated and deleted upstream")
        }
        // Upstream's rows are taken as they are: no watermark drops them, no version or repeat
        // rule second-guesses them.
        if !create.watermarks.isEmpty || create.versionColumn != nil || create.options.contains(where: { $0.key.hasPrefix("dedup.") }) {
            throw SluiceError(
                .featureNotSupported, "a table FROM a CDC source takes no WATERMARK, WITH VERSION COLUMN or dedup options",
                hint: "Define them on a view over the table, or on a source of the events.")
        }
        var columns: [CatalogColumn] = []
        var primaryKey: [Int] = []
        if !create.takesUpstreamColumns {
            (columns, primaryKey) = try bindColumnDefinitions(create.columns, create.constraints, relation: create.name.name)
            if columns.isEmpty { throw SluiceError(.invalidTableDefinition, "a table needs at least one column") }
            guard !primaryKey.isEmpty else {
                throw SluiceError(
                    .invalidTableDefinition, "a table FROM a CDC source needs a primary key",
                    hint: "Declare the upstream table's primary key, as in PRIMARY KEY (id); changes are applied by it.")
            }
        }
        let upstream = reference.upstream.split(separator: ".", maxSplits: 1).map(String.init)
        guard !upstream.isEmpty, !upstream.contains(where: \.isEmpty) else {
            throw SluiceError(.invalidParameterValue, "FROM \(reference.source) TABLE '\(reference.upstream)' names no table", hint: "Write TABLE 'schema.table'.")
        }
        var connector = sourceConnector
        let tableOptions = try optionValues(create.options)
        if tableOptions["connector"] != nil {
            throw SluiceError(.syntaxError, "a table FROM a CDC source takes its connector from the source")
        }
        connector.options["schema.name"] = upstream.count == 2 ? upstream[0] : connector.options["schema.name"] ?? "public"
        connector.options["table.name"] = upstream.last!
        connector.forAllTables = nil
        connector.options.merge(tableOptions) { _, table in table }
        connector.startPositions = nil
        var relation = RelationDefinition(
            id: catalog.allocateID(), schema: schema, name: create.name.name, kind: .table, columns: columns, primaryKey: primaryKey,
            definition: sourceText, dependencies: [source.id], connector: connector)
        relation.onConflict = try cdcConflictBehavior(create.onConflict)
        return .createSource(relation)
    }

    /// Changes from upstream replace rows by key: only the default conflict behaviour fits.
    private func cdcConflictBehavior(_ behavior: ConflictBehavior?) throws(SluiceError) -> ConflictBehavior? {
        guard behavior == nil || behavior == .overwrite else {
            throw SluiceError(.featureNotSupported, "a table FROM a CDC source keeps upstream's rows: ON CONFLICT can only be DO UPDATE FULL")
        }
        return behavior
    }
}
