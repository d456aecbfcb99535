import SluiceCore
import SluicePlan
import SluiceSQL

extension Binder {
    /// `CREATE SINK [IF NOT EXISTS] s {FROM relation | AS query} WITH (connector = '…', …)`, as
    /// RisingWave writes it. The binder checks what every connector shares, the sink's type:
    /// - `type = 'append-only'` takes inserts only; over an input that updates or deletes it needs
    ///   `force_append_only = 'true'`, which turns each update into an insert of the new row and
    ///   drops deletes, as RisingWave does;
    /// - `type = 'upsert'` keeps one row per `primary_key` (column names, comma-separated).
    /// The connector checks its own options when the statement runs.
    mutating func bindCreateSink(_ create: CreateSink, sourceText: String) throws(SluiceError) -> PlannedStatement {
        let schema = create.name.qualifier.last ?? session.schema
        if let existing = try existingRelation(create.name.name, schema: schema, ifNotExists: create.ifNotExists, tag: "CREATE_SINK") {
            return existing
        }
        let query: Query
        switch create.input {
        case .query(let written):
            query = written
        case .relation(let name):
            let input = try relation(named: name, position: nil)
            if input.kind == .sink { throw SluiceError(.wrongObjectType, "\"\(input.name)\" is a sink, which cannot feed another sink") }
            let statements = try SQLParser.parse("SELECT * FROM \(name.description)")
            guard statements.count == 1, case .query(let parsed) = statements[0].kind else {
                throw SluiceError.internalError("the query over sink input \(name.description) did not parse")
            }
            query = parsed
        }
        let connector = try connectorSpec(create.options, create.format)
        let bound = try bindQuery(query)
        let columns = bound.scope.entries.map { CatalogColumn(name: $0.name, type: $0.type == .unknown ? .varchar : $0.type) }
        var seen = Set<String>()
        for column in columns where !seen.insert(column.name).inserted {
            throw SluiceError(.duplicateColumn, "column \"\(column.name)\" specified more than once", hint: "Give the sink's columns distinct names with AS.")
        }
        let inputPlan = try StreamPlanner.plan(bound.plan, emitOnWindowClose: false)
        var relation = RelationDefinition(
            id: catalog.allocateID(), schema: schema, name: create.name.name, kind: .sink, columns: columns,
            definition: sourceText, dependencies: inputPlan.scannedRelations, connector: connector)
        for id in referencedRelations where !relation.dependencies.contains(id) { relation.dependencies.append(id) }
        try bindSinkType(connector, inputIsAppendOnly: inputPlan.isAppendOnly, into: &relation)
        let streamPlan = StreamPlan(SinkNode(
            input: inputPlan, sink: relation.name, connector: connector.options["connector"]?.lowercased() ?? "",
            type: relation.appendOnly ?? true ? "append-only" : "upsert", primaryKey: relation.primaryKey.map { columns[$0].name }))
        relation.planFingerprint = streamPlan.fingerprint
        relation.storedPlan = streamPlan.storedText
        return .createSink(relation, plan: streamPlan)
    }

    /// Reads `type`, `force_append_only` and `primary_key` into the sink's `appendOnly` and
    /// `primaryKey`. Without `type`, the format says, as RisingWave's newer syntax has it:
    /// `FORMAT PLAIN` is append-only (`FORMAT PLAIN ENCODE JSON (force_append_only = 'true')`
    /// over an input that updates), `FORMAT UPSERT` and `FORMAT DEBEZIUM` keep a primary key.
    private func bindSinkType(_ connector: ConnectorSpec, inputIsAppendOnly: Bool, into relation: inout RelationDefinition) throws(SluiceError) {
        let options = connector.options
        let name = options["connector"]?.lowercased() ?? ""
        // A blackhole keeps nothing: any input will do, as in RisingWave.
        let written = try OptionValues.boolean(options, "force_append_only")
        let inFormat = try OptionValues.boolean(connector.formatOptions, "force_append_only")
        let force = written ?? inFormat ?? (name == "blackhole")
        let formatType: String? = switch connector.format {
        case "PLAIN": "append-only"
        case "UPSERT", "DEBEZIUM": "upsert"
        default: nil
        }
        let type = options["type"]?.lowercased() ?? formatType ?? (name == "blackhole" ? "append-only" : nil)
        if let text = options["commit_checkpoint_interval"], (Int(text) ?? 0) < 1 {
            throw SluiceError(.invalidParameterValue, "commit_checkpoint_interval must be a positive number of checkpoints, not '\(text)'")
        }
        switch type {
        case "append-only":
            if !inputIsAppendOnly && !force {
                throw SluiceError(
                    .invalidParameterValue, "the sink cannot be append-only: its input updates or deletes rows",
                    hint: "Add force_append_only = 'true' to the options to write each new version of a row as an insert and drop deletes, or use type = 'upsert' with a primary_key.")
            }
            relation.appendOnly = true
            if let key = options["primary_key"] { relation.primaryKey = try sinkKey(key, of: relation) }
        case "upsert":
            if force { throw SluiceError(.invalidParameterValue, "force_append_only = 'true' needs type = 'append-only', not 'upsert'") }
            guard let key = options["primary_key"] else {
                throw SluiceError(
                    .invalidParameterValue, "an upsert sink needs a primary_key",
                    hint: "Name the columns that identify a row, as in primary_key = 'player'.")
            }
            relation.appendOnly = false
            relation.primaryKey = try sinkKey(key, of: relation)
        case nil:
            throw SluiceError(
                .invalidParameterValue, "the sink needs a type",
                hint: "Add type = 'append-only' (with force_append_only = 'true' over a view that updates rows) or type = 'upsert' with a primary_key.")
        case let other?:
            throw SluiceError(.invalidParameterValue, "sink type \"\(other)\" is not supported", hint: "Use type = 'append-only' or 'upsert'.")
        }
    }

    /// The columns `text` names ("a, b"), as indexes.
    private func sinkKey(_ text: String, of relation: RelationDefinition) throws(SluiceError) -> [Int] {
        var key: [Int] = []
        for (name, index) in Self.columnList(text, of: relation) {
            guard let index else {
                throw SluiceError(.undefinedColumn, "primary_key names column \"\(name)\", which the sink's input does not have")
            }
            if !key.contains(index) { key.append(index) }
        }
        guard !key.isEmpty else { throw SluiceError(.invalidParameterValue, "primary_key names no column") }
        return key
    }
}
