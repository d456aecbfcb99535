import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

extension Binder {
    mutating func bindInsert(_ insert: Insert) throws(SluiceError) -> PlannedStatement {
        let table = try writableTable(insert.table, verb: "insert into")
        try requirePrivilege(insert.returning.isEmpty ? .insert : [.insert, .select], on: table)
        let returning = try bindReturning(insert.returning, table: table, alias: nil)
        // Target columns: named ones in order, or all.
        var targets: [Int] = []
        if insert.columns.isEmpty {
            // Without a column list the values fill the first columns; the rest take their
            // defaults (NULL), as in PostgreSQL.
            targets = Array(table.columns.indices)
            if let width = try insert.source.flatMap({ (query) throws(SluiceError) in try sourceWidth(query) }), width < targets.count {
                targets = Array(targets.prefix(width))
            }
        } else {
            for name in insert.columns {
                guard let index = table.columnIndex(named: name) else {
                    throw SluiceError(.undefinedColumn, "column \"\(name)\" of relation \"\(table.name)\" does not exist")
                }
                if targets.contains(index) { throw SluiceError(.duplicateColumn, "column \"\(name)\" specified more than once") }
                targets.append(index)
            }
        }
        guard let sourceQuery = insert.source else {
            // DEFAULT VALUES: one row of the columns' defaults.
            var row: [ScalarExpr] = []
            for column in table.columns { row.append(try defaultValue(of: column)) }
            return .insert(table: table, source: .values(rows: [row], types: table.columns.map(\.type)), returning: returning)
        }
        var source: BoundQuery
        var rowsForTypes: [[ScalarExpr]]? = nil
        if case .values(let rows) = sourceQuery.body, sourceQuery.orderBy.isEmpty, sourceQuery.limit == nil {
            // VALUES rows take the target columns' types directly, so '2024-01-01' becomes a date.
            var boundRows: [[ScalarExpr]] = []
            for row in rows {
                guard row.count <= targets.count else {
                    throw SluiceError(.syntaxError, "INSERT has more expressions than target columns", position: row[targets.count].position.errorPosition)
                }
                guard row.count == targets.count else {
                    throw SluiceError(.syntaxError, "INSERT has more target columns than expressions", position: row.last?.position.errorPosition)
                }
                var context = ExpressionContext(scope: Scope(), clause: "VALUES")
                var bound: [ScalarExpr] = []
                for (position, expression) in row.enumerated() {
                    let column = table.columns[targets[position]]
                    if case .defaultValue = expression.node {
                        bound.append(try defaultValue(of: column))
                        continue
                    }
                    let value = try bindExpression(expression, &context)
                    bound.append(try assign(value, to: column, position: expression.position.errorPosition))
                }
                boundRows.append(bound)
            }
            rowsForTypes = boundRows
            source = BoundQuery(
                plan: .values(rows: boundRows, types: targets.map { table.columns[$0].type }),
                scope: Scope(entries: targets.map { Scope.Entry(qualifier: nil, name: table.columns[$0].name, type: table.columns[$0].type) }))
        } else {
            source = try bindQuery(sourceQuery)
            guard source.scope.entries.count <= targets.count else {
                throw SluiceError(.syntaxError, "INSERT has more expressions than target columns")
            }
            guard source.scope.entries.count == targets.count else {
                throw SluiceError(.syntaxError, "INSERT has more target columns than expressions")
            }
            var casts: [ScalarExpr] = []
            for (position, target) in targets.enumerated() {
                casts.append(try assign(.column(position, source.scope.types[position]), to: table.columns[target], position: nil))
            }
            source.plan = .project(input: source.plan, expressions: casts)
        }
        _ = rowsForTypes
        // Reorder into the table's column order, filling unnamed columns with their defaults.
        if targets != Array(table.columns.indices) {
            var expressions: [ScalarExpr] = []
            for index in table.columns.indices {
                if let position = targets.firstIndex(of: index) {
                    expressions.append(.column(position, table.columns[index].type))
                } else {
                    expressions.append(try defaultValue(of: table.columns[index]))
                }
            }
            source.plan = .project(input: source.plan, expressions: expressions)
        }
        return .insert(table: table, source: source.plan, returning: returning)
    }

    /// The number of columns `query` yields, when it is fewer than it could be bound to
    /// (a VALUES list's width; a query's select list, when it names no `*`).
    private func sourceWidth(_ query: Query) throws(SluiceError) -> Int? {
        switch query.body {
        case .values(let rows):
            guard let width = rows.first?.count else { return nil }
            if let row = rows.first(where: { $0.count != width }) {
                throw SluiceError(.syntaxError, "VALUES lists must all be the same length", position: row.first?.position.errorPosition)
            }
            return width
        case .select(let select):
            if select.projection.contains(where: { if case .wildcard = $0 { true } else { false } }) { return nil }
            return select.projection.count
        default:
            return nil
        }
    }

    /// Column `column`'s `DEFAULT` bound for this statement, cast to its type (NULL without one).
    mutating func defaultValue(of column: CatalogColumn) throws(SluiceError) -> ScalarExpr {
        guard let text = column.defaultExpression else { return .literal(.null, column.type) }
        var context = ExpressionContext(scope: Scope(), clause: "DEFAULT")
        context.allowsSubqueries = false
        return try assign(try bindExpression(try SQLParser.parseExpression(text), &context), to: column, position: nil)
    }

    /// `value` converted for storing into `column` (assignment cast), or 42804.
    mutating func assign(_ value: ScalarExpr, to column: CatalogColumn, position: Int?) throws(SluiceError) -> ScalarExpr {
        if value.type == column.type { return value }
        if value.type == .unknown || Self.isImplicitlyCastable(value.type, to: column.type) {
            if case .literal = value, value.type != .unknown { return try explicitCast(value, to: column.type, position: position) }
            return try coerce(value, to: column.type, position: position)
        }
        throw SluiceError(
            .datatypeMismatch, "column \"\(column.name)\" is of type \(column.type.sqlName) but expression is of type \(value.type.sqlName)",
            hint: "You will need to rewrite or cast the expression.", position: position)
    }

    mutating func bindUpdate(_ update: Update) throws(SluiceError) -> PlannedStatement {
        let table = try writableTable(update.table, verb: "update")
        if !update.from.isEmpty { throw SluiceError(.featureNotSupported, "UPDATE … FROM is not supported yet") }
        let scope = rowScope(table, alias: update.alias)
        var context = ExpressionContext(scope: scope, clause: "UPDATE")
        var assignments: [Int: ScalarExpr] = [:]
        for assignment in update.assignments {
            guard let index = table.columnIndex(named: assignment.column) else {
                throw SluiceError(
                    .undefinedColumn, "column \"\(assignment.column)\" of relation \"\(table.name)\" does not exist",
                    position: assignment.position.errorPosition)
            }
            if assignments[index] != nil {
                throw SluiceError(.syntaxError, "multiple assignments to same column \"\(assignment.column)\"", position: assignment.position.errorPosition)
            }
            try checkNoAggregates(assignment.value, clause: "UPDATE")
            let value: ScalarExpr
            if case .defaultValue = assignment.value.node {
                value = try defaultValue(of: table.columns[index])
            } else {
                value = try assign(try bindExpression(assignment.value, &context), to: table.columns[index], position: assignment.value.position.errorPosition)
            }
            assignments[index] = value
        }
        let filter = try bindDMLFilter(update.filter, &context)
        // Reading the rows (WHERE, RETURNING, values from old columns) takes SELECT too, as in Postgres.
        let reads = filter != nil || !update.returning.isEmpty || assignments.values.contains { !$0.referencedColumns.isEmpty }
        try requirePrivilege(reads ? [.update, .select] : .update, on: table)
        return .update(
            table: table, filter: filter, assignments: assignments, subqueries: try dmlSubqueries(context),
            returning: try bindReturning(update.returning, table: table, alias: update.alias))
    }

    /// The subqueries of an UPDATE or DELETE; they may not refer to the row being changed.
    private func dmlSubqueries(_ context: ExpressionContext) throws(SluiceError) -> [DMLSubquery] {
        var result: [DMLSubquery] = []
        for pending in context.scalarSubqueries {
            if pending.isCorrelated {
                throw SluiceError(.featureNotSupported, "correlated subqueries in UPDATE and DELETE are not supported yet")
            }
            let plan = pending.kind == .scalar ? BatchPlan.maxOneRow(input: pending.query.plan) : pending.query.plan
            result.append(DMLSubquery(plan: plan, kind: pending.kind, type: pending.kind.resultType(pending.query.scope.types.first ?? .unknown)))
        }
        return result
    }

    mutating func bindDelete(_ delete: Delete) throws(SluiceError) -> PlannedStatement {
        let table = try writableTable(delete.table, verb: "delete from")
        try requirePrivilege(delete.filter == nil && delete.returning.isEmpty ? .delete : [.delete, .select], on: table)
        if !delete.using.isEmpty { throw SluiceError(.featureNotSupported, "DELETE … USING is not supported yet") }
        var context = ExpressionContext(scope: rowScope(table, alias: delete.alias), clause: "WHERE")
        let filter = try bindDMLFilter(delete.filter, &context)
        return .delete(
            table: table, filter: filter, subqueries: try dmlSubqueries(context), returning: try bindReturning(delete.returning, table: table, alias: delete.alias))
    }

    /// The RETURNING list over the table's row: `*` and `t.*` name its columns, expressions
    /// may not hold aggregates or subqueries.
    private mutating func bindReturning(_ items: [SelectItem], table: RelationDefinition, alias: String?) throws(SluiceError) -> DMLReturning? {
        guard !items.isEmpty else { return nil }
        var scope = tableScope(table, alias: alias)
        for index in scope.entries.indices {
            scope.entries[index].tableID = table.id
            scope.entries[index].columnNumber = index + 1
        }
        var context = ExpressionContext(scope: scope, clause: "RETURNING")
        context.allowsSubqueries = false
        var returning = DMLReturning(expressions: [], columns: [])
        for item in items {
            switch item {
            case .wildcard(let qualifier, let position):
                if let name = qualifier.last, name != (alias ?? table.name) {
                    throw SluiceError(.undefinedTable, "missing FROM-clause entry for table \"\(qualifier.joined(separator: "."))\"", position: position.errorPosition)
                }
                for (index, column) in table.columns.enumerated() {
                    returning.expressions.append(.column(index, column.type))
                    returning.columns.append(OutputColumn(name: column.name, type: column.type, tableID: table.id, columnNumber: index + 1))
                }
            case .expression(let expression, let name):
                try checkNoAggregates(expression, clause: "RETURNING")
                var bound = try bindExpression(expression, &context)
                if bound.type == .unknown { bound = try coerce(bound, to: .varchar, position: nil) }
                var column = OutputColumn(name: name ?? Self.outputName(of: expression), type: bound.type)
                if name == nil, case .column(let index, _) = bound {
                    column.tableID = table.id
                    column.columnNumber = index + 1
                }
                returning.expressions.append(bound)
                returning.columns.append(column)
            }
        }
        return returning
    }

    private mutating func bindDMLFilter(_ filter: Expression?, _ context: inout ExpressionContext) throws(SluiceError) -> ScalarExpr? {
        guard let filter else { return nil }
        try checkNoAggregates(filter, clause: "WHERE")
        context.clause = "WHERE"
        return try coerce(try bindExpression(filter, &context), to: .boolean, position: filter.position.errorPosition, clause: "WHERE")
    }

    private func tableScope(_ table: RelationDefinition, alias: String?) -> Scope {
        Scope(entries: table.columns.map { Scope.Entry(qualifier: alias ?? table.name, name: $0.name, type: $0.type) })
    }

    /// What UPDATE's and DELETE's expressions read of a row: its columns, and a table without a
    /// primary key's hidden row id after them (`WHERE _row_id = …`; the subqueries' values
    /// come after it).
    private func rowScope(_ table: RelationDefinition, alias: String?) -> Scope {
        var scope = tableScope(table, alias: alias)
        if table.hasRowIDs {
            // A column of that name hides it.
            let name = table.columnIndex(named: Self.rowIDName) == nil ? Self.rowIDName : "?row id?"
            scope.entries.append(Scope.Entry(qualifier: alias ?? table.name, name: name, type: TableScan.rowIDType, isHidden: true))
        }
        return scope
    }

    private func writableTable(_ name: ObjectName, verb: String) throws(SluiceError) -> RelationDefinition {
        let table = try relation(named: name, position: nil)
        if table.kind == .view {
            // Views are not automatically updatable here (PostgreSQL's are when simple).
            throw SluiceError(.objectNotInPrerequisiteState, "cannot \(verb) view \"\(table.name)\"", detail: "Views are not updatable in Sluice.")
        }
        guard table.kind == .table else {
            throw SluiceError(.wrongObjectType, "cannot change \(table.kind.rawValue) \"\(table.name)\"")
        }
        if table.appendOnly == true && verb != "insert into" {
            throw SluiceError(
                .featureNotSupported, "cannot \(verb) APPEND ONLY table \"\(table.name)\"", hint: "Rows of an APPEND ONLY table are only ever inserted.")
        }
        return table
    }
}
