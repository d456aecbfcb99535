import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

extension Binder {
    /// The columns and primary key of a CREATE TABLE or CREATE SOURCE column list.
    /// Generated columns (`name [type] AS expr`) only where `allowsGenerated` (a source's).
    mutating func bindColumnDefinitions(
        _ definitions: [ColumnDefinition], _ constraints: [TableConstraint], relation: String, allowsGenerated: Bool = false
    ) throws(SluiceError) -> ([CatalogColumn], [Int]) {
        var columns: [CatalogColumn] = []
        var primaryKey: [Int] = []
        var generated: [(column: Int, expression: Expression)] = []
        for definition in definitions {
            if definition.constraints.contains(where: { if case .metadata = $0 { true } else { false } }) {
                throw SluiceError(
                    .featureNotSupported, "METADATA columns are Flink SQL's (column \"\(definition.name)\")",
                    hint: "Write INCLUDE timestamp AS \(definition.name) after the columns, or SET sql_dialect = 'flink'.",
                    position: definition.position.errorPosition)
            }
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
                case .unique, .generated, .metadata:
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
}
