import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// A bound query: its plan and the names and types of its output columns.
struct BoundQuery {
    var plan: BatchPlan
    var scope: Scope

    var outputColumns: [OutputColumn] {
        scope.entries.map { OutputColumn(name: $0.name, type: $0.type, tableID: $0.tableID, columnNumber: $0.columnNumber) }
    }
}

extension Binder {
    mutating func bindQuery(_ query: Query, outerQualifier: String? = nil) throws(SluiceError) -> BoundQuery {
        var pushed = false
        if let with = query.with {
            if with.isRecursive { throw SluiceError(.featureNotSupported, "WITH RECURSIVE is not supported yet") }
            commonTables.append([:])
            pushed = true
            for table in with.tables {
                var bound = try bindQuery(table.query)
                for (index, column) in table.alias.columns.enumerated() where index < bound.scope.entries.count {
                    bound.scope.entries[index].name = column
                }
                for index in bound.scope.entries.indices { bound.scope.entries[index].qualifier = table.alias.name }
                commonTables[commonTables.count - 1][table.alias.name] = (bound.plan, bound.scope)
            }
        }
        defer { if pushed { commonTables.removeLast() } }

        var bound: BoundQuery
        if case .select(let select) = query.body {
            bound = try bindSelect(select, orderBy: query.orderBy)
        } else {
            bound = try bindSetExpression(query.body)
            if !query.orderBy.isEmpty {
                var keys: [SortKey] = []
                for item in query.orderBy {
                    let index = try outputIndex(of: item.expression, in: bound.scope)
                    keys.append(SortKey(column: index, descending: item.ascending == false, nullsFirst: item.nullsFirst))
                }
                bound.plan = .sort(input: bound.plan, keys: keys)
            }
        }
        if query.limit != nil || query.offset != nil {
            let limit = try query.limit.map { (expression) throws(SluiceError) -> Int? in try constantCount(expression, clause: "LIMIT") } ?? nil
            let offset = try query.offset.map { (expression) throws(SluiceError) -> Int? in try constantCount(expression, clause: "OFFSET") } ?? nil
            bound.plan = .limit(input: bound.plan, limit: limit, offset: offset ?? 0)
        }
        return bound
    }

    /// The value of a LIMIT or OFFSET expression (nil for `LIMIT ALL`/`LIMIT NULL`).
    private mutating func constantCount(_ expression: Expression, clause: String) throws(SluiceError) -> Int? {
        var context = ExpressionContext(scope: Scope(), clause: clause)
        let bound = try coerce(try bindExpression(expression, &context), to: .int64, position: expression.position.errorPosition)
        guard bound.isConstant else {
            throw SluiceError(.syntaxError, "argument of \(clause) must not contain variables", position: expression.position.errorPosition)
        }
        let value = try ExpressionEvaluator.evaluate(bound, on: Chunk(columns: [], count: 1), context: EvaluationContext()).value(at: 0)
        guard case .int64(let count) = value else { return nil }
        if count < 0 {
            throw SluiceError(.invalidParameterValue, "\(clause) must not be negative", position: expression.position.errorPosition)
        }
        return Int(count)
    }

    /// The output column an ORDER BY item of a set operation names: by position or by name.
    private func outputIndex(of expression: Expression, in scope: Scope) throws(SluiceError) -> Int {
        switch expression.node {
        case .literal(.integer(let ordinal)):
            guard ordinal >= 1, ordinal <= scope.entries.count else {
                throw SluiceError(.invalidColumnReference, "ORDER BY position \(ordinal) is not in select list", position: expression.position.errorPosition)
            }
            return Int(ordinal) - 1
        case .column(let parts) where parts.count == 1:
            if let index = scope.entries.firstIndex(where: { $0.name == parts[0] }) { return index }
            throw SluiceError(.undefinedColumn, "column \"\(parts[0])\" does not exist", position: expression.position.errorPosition)
        default:
            throw SluiceError(
                .featureNotSupported, "ORDER BY on a UNION/INTERSECT/EXCEPT result must name an output column",
                position: expression.position.errorPosition)
        }
    }

    mutating func bindSetExpression(_ body: SetExpression) throws(SluiceError) -> BoundQuery {
        switch body {
        case .select(let select):
            return try bindSelect(select, orderBy: [])
        case .query(let query):
            return try bindQuery(query)
        case .values(let rows):
            return try bindValues(rows)
        case .corresponding(let op, let isAll, let by, let leftBody, let rightBody):
            // The columns matched by name, then combined as by position.
            var left = try bindSetExpression(leftBody)
            var right = try bindSetExpression(rightBody)
            let leftNames = left.scope.entries.map(\.name)
            let rightNames = right.scope.entries.map(\.name)
            let names: [String]
            if let by {
                for name in by {
                    guard leftNames.count(where: { $0 == name }) == 1, rightNames.count(where: { $0 == name }) == 1 else {
                        throw SluiceError(
                            .undefinedColumn, "column \"\(name)\" of CORRESPONDING BY must be named once on each side of \(op.rawValue)")
                    }
                }
                guard Set(by).count == by.count else { throw SluiceError(.duplicateColumn, "CORRESPONDING BY names a column more than once") }
                names = by
            } else {
                names = leftNames.filter { name in rightNames.contains(name) }
                for name in names where leftNames.count(where: { $0 == name }) > 1 || rightNames.count(where: { $0 == name }) > 1 {
                    throw SluiceError(.duplicateColumn, "column \"\(name)\" is named more than once on one side of \(op.rawValue) CORRESPONDING")
                }
                guard !names.isEmpty else {
                    throw SluiceError(.syntaxError, "the two sides of \(op.rawValue) CORRESPONDING have no column names in common")
                }
            }
            for side in [0, 1] {
                let bound = side == 0 ? left : right
                let indices = names.map { name in bound.scope.entries.firstIndex { $0.name == name }! }
                let projected = BoundQuery(
                    plan: .project(input: bound.plan, expressions: indices.map { ScalarExpr.column($0, bound.scope.entries[$0].type) }),
                    scope: Scope(entries: indices.map { bound.scope.entries[$0] }))
                if side == 0 { left = projected } else { right = projected }
            }
            return try bindSetOperation(op, isAll: isAll, left, right)
        case .setOperation(let op, let isAll, let leftBody, let rightBody):
            return try bindSetOperation(op, isAll: isAll, try bindSetExpression(leftBody), try bindSetExpression(rightBody))
        }
    }

    /// `left op right`, their columns combined by position.
    mutating func bindSetOperation(_ op: SetOperator, isAll: Bool, _ left: BoundQuery, _ right: BoundQuery) throws(SluiceError) -> BoundQuery {
        var left = left
        var right = right
        do {
            guard left.scope.entries.count == right.scope.entries.count else {
                throw SluiceError(.syntaxError, "each \(op.rawValue) query must have the same number of columns")
            }
            // An untyped literal's column takes the other side's type, as PostgreSQL resolves
            // unknown-typed set operation columns (`SELECT 1 UNION SELECT NULL` is integer).
            var types: [DataType] = []
            for (a, b) in zip(left.scope.entries, right.scope.entries) {
                if a.isUntyped != b.isUntyped {
                    types.append(a.isUntyped ? b.type : a.type)
                } else {
                    types.append(try FunctionRegistry.commonType(a.type, b.type, context: op.rawValue))
                }
            }
            left.plan = castPlan(left.plan, from: left.scope.types, to: types)
            right.plan = castPlan(right.plan, from: right.scope.types, to: types)
            var scope = left.scope
            for index in scope.entries.indices {
                scope.entries[index].type = types[index]
                scope.entries[index].qualifier = nil
                scope.entries[index].isUntyped = left.scope.entries[index].isUntyped && right.scope.entries[index].isUntyped
            }
            let plan: BatchPlan
            switch op {
            case .union: plan = .union(inputs: [left.plan, right.plan], distinct: !isAll)
            case .intersect: plan = .setOperation(left: left.plan, right: right.plan, kind: .intersect, all: isAll)
            case .except: plan = .setOperation(left: left.plan, right: right.plan, kind: .except, all: isAll)
            }
            return BoundQuery(plan: plan, scope: scope)
        }
    }

    /// `plan` with its columns cast from `from` to `to` where they differ.
    func castPlan(_ plan: BatchPlan, from: [DataType], to: [DataType]) -> BatchPlan {
        if from == to { return plan }
        let expressions = zip(from, to).enumerated().map { index, pair in
            pair.0 == pair.1 ? ScalarExpr.column(index, pair.0) : ScalarExpr.cast(.column(index, pair.0), pair.1)
        }
        return .project(input: plan, expressions: expressions)
    }

    mutating func bindValues(_ rows: [[Expression]]) throws(SluiceError) -> BoundQuery {
        guard let width = rows.first?.count else { throw SluiceError(.syntaxError, "VALUES must have at least one row") }
        var boundRows: [[ScalarExpr]] = []
        for row in rows {
            guard row.count == width else {
                throw SluiceError(.syntaxError, "VALUES lists must all be the same length", position: row.first?.position.errorPosition)
            }
            var context = ExpressionContext(scope: Scope(), clause: "VALUES")
            var bound: [ScalarExpr] = []
            for expression in row { bound.append(try bindExpression(expression, &context)) }
            boundRows.append(bound)
        }
        var types: [DataType] = []
        for column in 0 ..< width {
            types.append(try commonType(of: boundRows.map { $0[column] }, context: "VALUES"))
        }
        for rowIndex in boundRows.indices {
            for column in 0 ..< width {
                boundRows[rowIndex][column] = try coerce(boundRows[rowIndex][column], to: types[column], position: nil)
            }
        }
        let scope = Scope(entries: types.enumerated().map { Scope.Entry(qualifier: nil, name: "column\($0.offset + 1)", type: $0.element) })
        return BoundQuery(plan: .values(rows: boundRows, types: types), scope: scope)
    }
}
