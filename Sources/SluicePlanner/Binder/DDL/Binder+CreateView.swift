import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

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
