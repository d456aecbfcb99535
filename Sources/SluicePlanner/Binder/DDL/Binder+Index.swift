import SluiceCore
import SluiceSQL

/// `CREATE INDEX` and `DROP INDEX`: a table's secondary index, kept sorted by its key columns and
/// used by queries for point and range lookups on them.
extension Binder {
    mutating func bindCreateIndex(_ create: CreateIndex) throws(SluiceError) -> PlannedStatement {
        let table = try relation(named: create.table, position: nil)
        guard table.kind == .table || table.kind == .materializedView else {
            throw SluiceError(.wrongObjectType, "cannot create index on relation \"\(table.name)\"", detail: "This operation is not supported for \(table.kind.rawValue)s.")
        }
        try requireOwner(table)
        if create.isUnique {
            throw SluiceError(.featureNotSupported, "unique indexes are not supported", hint: "Use a PRIMARY KEY on the table.")
        }
        var keys: [IndexDefinition.Key] = []
        for item in create.keys {
            guard case .column(let parts) = item.expression.node, let name = parts.last,
                  let column = table.columnIndex(named: name), parts.count == 1 || parts.dropLast() == [table.name] || parts.dropLast() == [table.schema, table.name]
            else {
                if case .column(let parts) = item.expression.node, let name = parts.last {
                    throw SluiceError(.undefinedColumn, "column \"\(name)\" does not exist")
                }
                throw SluiceError(.featureNotSupported, "index keys must be columns of the table", hint: "Index a column, not an expression.")
            }
            if keys.contains(where: { $0.column == column }) {
                throw SluiceError(.duplicateColumn, "column \"\(name)\" appears twice in the index key")
            }
            let descending = item.ascending == false
            keys.append(IndexDefinition.Key(column: column, descending: descending, nullsFirst: item.nullsFirst ?? descending))
        }
        guard !keys.isEmpty else { throw SluiceError(.syntaxError, "an index needs at least one key column") }
        var include: [Int] = []
        for name in create.include {
            guard let column = table.columnIndex(named: name) else { throw SluiceError(.undefinedColumn, "column \"\(name)\" does not exist") }
            include.append(column)
        }
        let name = create.name?.name ?? defaultIndexName(table: table, keys: keys)
        if let existing = catalog.index(named: name, schema: table.schema) {
            if create.ifNotExists { return .nothing(tag: "CREATE_INDEX", notice: "relation \"\(existing.index.name)\" already exists, skipping") }
            throw SluiceError(.duplicateTable, "relation \"\(name)\" already exists")
        }
        if catalog.relation(named: name, schema: table.schema) != nil {
            if create.ifNotExists { return .nothing(tag: "CREATE_INDEX", notice: "relation \"\(name)\" already exists, skipping") }
            throw SluiceError(.duplicateTable, "relation \"\(name)\" already exists")
        }
        return .createIndex(table: table, index: IndexDefinition(id: catalog.allocateID(), name: name, keys: keys, include: include))
    }

    /// Postgres's name for an unnamed index: `table_col1_col2_idx`, numbered if taken.
    private func defaultIndexName(table: RelationDefinition, keys: [IndexDefinition.Key]) -> String {
        let base = ([table.name] + keys.map { table.columns[$0.column].name } + ["idx"]).joined(separator: "_")
        var name = base
        var number = 0
        while catalog.index(named: name, schema: table.schema) != nil || catalog.relation(named: name, schema: table.schema) != nil {
            number += 1
            name = base + String(number)
        }
        return name
    }

    mutating func bindDropIndex(_ drop: Drop) throws(SluiceError) -> PlannedStatement {
        var doomed: [(table: RelationDefinition, index: IndexDefinition)] = []
        var notices: [String] = []
        for name in drop.names {
            let schema = name.qualifier.last ?? session.schema
            guard let found = catalog.index(named: name.name, schema: schema) else {
                if catalog.relation(named: name.name, schema: schema) != nil {
                    throw SluiceError(.wrongObjectType, "\"\(name.name)\" is not an index")
                }
                if drop.ifExists {
                    notices.append("index \"\(name.name)\" does not exist, skipping")
                    continue
                }
                throw SluiceError(.undefinedObject, "index \"\(name.name)\" does not exist")
            }
            try requireOwner(found.table)
            if !doomed.contains(where: { $0.index.id == found.index.id }) { doomed.append(found) }
        }
        if doomed.isEmpty { return .nothing(tag: "DROP_INDEX", notice: notices.first) }
        return .dropIndexes(doomed)
    }
}
