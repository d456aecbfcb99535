import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// How a query's aggregates map onto the aggregate operator's output.
struct AggregateMapping {
    /// GROUP BY expressions, bound over the FROM scope; output columns 0 ..< count.
    var groupExpressions: [ScalarExpr]
    /// Aggregate calls by their syntax, and the value of each over the aggregate's output
    /// (its column, or a function of several: `var_samp` is one of count, sum and sum of squares).
    var calls: [FunctionCall]
    var callResults: [ScalarExpr]
    /// The scope below the aggregate, for binding the candidates of group expressions.
    var fromScope: Scope
    /// With GROUPING SETS, ROLLUP or CUBE: each set's group expressions (indexes); the set's
    /// number is output column `groupExpressions.count`.
    var groupingSets: [[Int]]?
}

/// Context for binding one expression: what is visible and what is allowed.
struct ExpressionContext {
    var scope: Scope
    var clause: String
    /// Set after GROUP BY: references must be group expressions or aggregates.
    var aggregates: AggregateMapping?
    /// Scalar and EXISTS subqueries met while binding; the caller attaches each as one more
    /// column after the scope's columns (see ``Binder/attachScalarSubqueries``).
    var scalarSubqueries: [PendingSubquery] = []
    var allowsSubqueries = true
    /// Set when the select list has window calls: the column holding each call's value.
    var windows: [FunctionCall: Int] = [:]

    init(scope: Scope, clause: String, aggregates: AggregateMapping? = nil) {
        self.scope = scope
        self.clause = clause
        self.aggregates = aggregates
    }
}

/// A subquery used as a value, waiting to be attached to the plan of its enclosing query.
struct PendingSubquery {
    var query: BoundQuery
    var kind: ApplyKind
    var isCorrelated: Bool
}

extension Binder {
    mutating func bindSelect(_ select: Select, orderBy: [OrderByItem]) throws(SluiceError) -> BoundQuery {
        var input = try bindFrom(select.from)
        if let filter = select.filter {
            try checkNoAggregates(filter, clause: "WHERE")
            input = try bindWhere(filter, input: input)
        }

        // Aggregation.
        let projected = select.projection.compactMap { item -> Expression? in
            if case .expression(let expression, _) = item { return expression } else { return nil }
        }
        // Aggregates in a window's PARTITION BY or ORDER BY are the query's too, as in PostgreSQL
        // (`rank() OVER (ORDER BY sum(v))` with sum(v) nowhere else).
        let aggregateCalls = collectAggregates(
            projected + (select.having.map { [$0] } ?? []) + orderBy.map(\.expression)
                + Self.windowDefinitionExpressions(collectWindowCalls(projected + orderBy.map(\.expression)), named: select.windows))
        var mapping: AggregateMapping?
        if !select.groupBy.isEmpty || !aggregateCalls.isEmpty || select.having != nil {
            let aggregated = try bindAggregation(select, calls: aggregateCalls, input: input)
            input = aggregated.query
            mapping = aggregated.mapping
        }
        if let having = select.having {
            var context = ExpressionContext(scope: input.scope, clause: "HAVING", aggregates: mapping)
            let predicate = try coerce(try bindExpression(having, &context), to: .boolean, position: having.position.errorPosition, clause: "HAVING")
            let width = input.scope.entries.count
            input.plan = .filter(input: try attachScalarSubqueries(input.plan, context.scalarSubqueries, width: width), predicate: predicate)
            if !context.scalarSubqueries.isEmpty {
                input.plan = .project(input: input.plan, expressions: input.scope.types.enumerated().map { .column($0.offset, $0.element) })
            }
        }

        // Window functions, over the rows that WHERE, GROUP BY and HAVING leave.
        let windowCalls = collectWindowCalls(select.projection.compactMap {
            if case .expression(let expression, _) = $0 { return expression } else { return nil }
        } + orderBy.map(\.expression))
        var windowColumns: [FunctionCall: Int] = [:]
        if !windowCalls.isEmpty {
            (input, windowColumns) = try bindWindows(windowCalls, input: input, aggregates: mapping, named: select.windows)
        }

        // Projection.
        var context = ExpressionContext(scope: input.scope, clause: "SELECT", aggregates: mapping)
        context.windows = windowColumns
        var expressions: [ScalarExpr] = []
        var expands: [Bool] = []
        var entries: [Scope.Entry] = []
        for item in select.projection {
            switch item {
            case .wildcard(let qualifier, let position):
                if mapping != nil {
                    throw SluiceError(.groupingError, "SELECT * is not allowed with GROUP BY or aggregates here", position: position.errorPosition)
                }
                let visible = input.scope.entries.enumerated().filter { !$0.element.isHidden }
                let matching = visible.filter { qualifier.isEmpty || $0.element.qualifier == qualifier.last }
                if matching.isEmpty {
                    if qualifier.isEmpty {
                        throw SluiceError(.syntaxError, "SELECT * with no tables specified is not valid", position: position.errorPosition)
                    }
                    throw SluiceError(.undefinedTable, "missing FROM-clause entry for table \"\(qualifier.joined(separator: "."))\"", position: position.errorPosition)
                }
                for (index, entry) in matching {
                    expressions.append(.column(index, entry.type))
                    expands.append(false)
                    var expanded = Scope.Entry(qualifier: nil, name: entry.name, type: entry.type, tableID: entry.tableID, columnNumber: entry.columnNumber)
                    expanded.vectorOID = entry.vectorOID
                    entries.append(expanded)
                }
            case .expression(let expression, let alias):
                if case .function(let call) = expression.node, call.over == nil, let set = try bindSetReturning(call, &context) {
                    expressions.append(set.array)
                    expands.append(true)
                    entries.append(Scope.Entry(qualifier: nil, name: alias ?? call.name.name, type: set.element))
                    continue
                }
                // `(f(…)).field` over a set-returning function of rows: that field of each row.
                if case .fieldAccess(let base, let field) = expression.node, case .function(let call) = base.node, call.over == nil,
                    let set = try bindSetReturning(call, &context)
                {
                    guard case .structure(let fields) = set.element, let index = fields.firstIndex(where: { $0.name == field }) else {
                        throw SluiceError(
                            .undefinedColumn, "column \"\(field)\" not found in data type \(set.element.sqlName)",
                            position: expression.position.errorPosition)
                    }
                    expressions.append(.call(SetReturningFunctions.field(index, of: set.element), [set.array]))
                    expands.append(true)
                    entries.append(Scope.Entry(qualifier: nil, name: alias ?? field, type: fields[index].type))
                    continue
                }
                let bound = try bindExpression(expression, &context)
                let resolved = bound.type == .unknown ? try coerce(bound, to: .varchar, position: nil) : bound
                expressions.append(resolved)
                expands.append(false)
                var entry = Scope.Entry(qualifier: nil, name: alias ?? Self.outputName(of: expression), type: resolved.type)
                entry.isUntyped = bound.type == .unknown
                if case .column(let index, _) = resolved, mapping == nil, index < input.scope.entries.count {
                    entry.vectorOID = input.scope.entries[index].vectorOID
                    if alias == nil {
                        entry.tableID = input.scope.entries[index].tableID
                        entry.columnNumber = input.scope.entries[index].columnNumber
                    }
                }
                entries.append(entry)
            }
        }

        // ORDER BY (and DISTINCT ON): output names and positions first, then expressions over
        // the input.
        var keys: [SortKey] = []
        var hiddenCount = 0
        var distinctOnColumns: [Int] = []
        var items: [(expression: Expression, order: OrderByItem?)] = orderBy.map { ($0.expression, $0) }
        if case .on(let onExpressions)? = select.distinct { items += onExpressions.map { ($0, nil) } }
        for (expression, item) in items {
            let clause = item == nil ? "SELECT DISTINCT ON" : "ORDER BY"
            var index: Int?
            switch expression.node {
            case .literal(.integer(let ordinal)):
                guard ordinal >= 1, ordinal <= entries.count else {
                    throw SluiceError(.invalidColumnReference, "\(clause) position \(ordinal) is not in select list", position: expression.position.errorPosition)
                }
                index = Int(ordinal) - 1
            case .column(let parts) where parts.count == 1:
                let matches = entries.indices.filter { entries[$0].name == parts[0] }
                if matches.count == 1 || (matches.count > 1 && matches.allSatisfy { expressions[$0] == expressions[matches[0]] }) {
                    index = matches.first
                } else if matches.count > 1 {
                    throw SluiceError(.ambiguousColumn, "\(clause) \"\(parts[0])\" is ambiguous", position: expression.position.errorPosition)
                }
            default:
                break
            }
            if index == nil {
                let bound = try bindExpression(expression, &context)
                if let existing = expressions.firstIndex(of: bound) {
                    index = existing
                } else {
                    if case .distinct? = select.distinct {
                        throw SluiceError(
                            .invalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list",
                            position: expression.position.errorPosition)
                    }
                    expressions.append(bound)
                    expands.append(false)
                    entries.append(Scope.Entry(qualifier: nil, name: "?order?", type: bound.type, isHidden: true))
                    hiddenCount += 1
                    index = expressions.count - 1
                }
            }
            if let item {
                keys.append(SortKey(column: index!, descending: item.ascending == false, nullsFirst: item.nullsFirst))
            } else if !distinctOnColumns.contains(index!) {
                distinctOnColumns.append(index!)
            }
        }

        var plan = try attachScalarSubqueries(input.plan, context.scalarSubqueries, width: input.scope.entries.count)
        if expands.contains(true) {
            if mapping != nil {
                throw SluiceError(.featureNotSupported, "set-returning functions with GROUP BY or aggregates are not supported yet", position: select.position.errorPosition)
            }
            plan = .projectSet(input: plan, expressions: expressions, expands: expands)
        } else {
            plan = .project(input: plan, expressions: expressions)
        }
        switch select.distinct {
        case .distinct?:
            plan = .union(inputs: [plan], distinct: true)
        case .on?:
            // The first row of each run of equal DISTINCT ON values, in ORDER BY's order: rows
            // sorted by ORDER BY (its leading keys must be the DISTINCT ON expressions) and then
            // the rest of them, numbered within each run, and those numbered 1 kept.
            let width = expressions.count
            if keys.prefix(distinctOnColumns.count).contains(where: { !distinctOnColumns.contains($0.column) }) {
                throw SluiceError(.invalidColumnReference, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions", position: select.position.errorPosition)
            }
            let sortKeys = keys + distinctOnColumns.filter { column in !keys.contains { $0.column == column } }.map { SortKey(column: $0) }
            plan = .window(input: .sort(input: plan, keys: sortKeys), partitionColumns: distinctOnColumns, orderColumns: [], functions: [.rowNumber])
            let first = ScalarExpr.call(ScalarFunction.comparison(.equal, .int64), [.column(width, .int64), .literal(.int64(1), .int64)])
            plan = .project(input: .filter(input: plan, predicate: first), expressions: entries.indices.map { .column($0, entries[$0].type) })
            keys = []  // (already in ORDER BY's order)
        case nil:
            break
        }
        if !keys.isEmpty { plan = .sort(input: plan, keys: keys) }
        if hiddenCount > 0 {
            let visible = entries.count - hiddenCount
            plan = .project(input: plan, expressions: (0 ..< visible).map { .column($0, entries[$0].type) })
            entries.removeLast(hiddenCount)
        }
        return BoundQuery(plan: plan, scope: Scope(entries: entries))
    }

    /// Appends one column per subquery after `plan`'s columns: an uncorrelated scalar subquery
    /// is left-joined once (checked to yield at most one row); a correlated one, or EXISTS, runs
    /// per row through an apply.
    func attachScalarSubqueries(_ plan: BatchPlan, _ subqueries: [PendingSubquery], width: Int) throws(SluiceError) -> BatchPlan {
        var result = plan
        for subquery in subqueries {
            if subquery.isCorrelated {
                result = .apply(input: result, subquery: subquery.query.plan, kind: subquery.kind)
            } else if subquery.kind == .scalar {
                result = .nestedLoopJoin(left: result, right: .maxOneRow(input: subquery.query.plan), kind: .left, predicate: nil)
            } else {
                let type = subquery.kind.resultType(subquery.query.scope.types.first ?? .unknown)
                let once = BatchPlan.project(
                    input: .apply(input: .values(rows: [[]], types: []), subquery: subquery.query.plan, kind: subquery.kind),
                    expressions: [.column(0, type)])
                result = .nestedLoopJoin(left: result, right: once, kind: .inner, predicate: nil)
            }
        }
        return result
    }

    /// Binds a subquery that may refer to the columns of `outer`.
    mutating func bindSubquery(_ query: Query, outer: Scope) throws(SluiceError) -> (query: BoundQuery, isCorrelated: Bool) {
        var inner = Binder(catalog: catalog, session: session, parameterTypes: parameterTypes, parameterValues: parameterValues)
        inner.commonTables = commonTables
        inner.outerScope = outer
        inner.rowIDs = rowIDs
        let bound = try inner.bindQuery(query)
        parameterTypes = inner.parameterTypes
        return (bound, inner.usesOuterReferences)
    }

    /// WHERE: IN/EXISTS subqueries among the top-level conjuncts become semi and anti joins;
    /// everything else is a filter.
    private mutating func bindWhere(_ filter: Expression, input: BoundQuery) throws(SluiceError) -> BoundQuery {
        var result = input
        var predicates: [Expression] = []
        for conjunct in Self.astConjuncts(filter) {
            switch conjunct.node {
            case .inSubquery(let operand, let query, false):
                let negated = false
                var context = ExpressionContext(scope: result.scope, clause: "WHERE")
                let left = try bindExpression(operand, &context)
                let (subquery, isCorrelated) = try bindSubquery(query, outer: result.scope)
                guard subquery.scope.entries.count == 1 else {
                    throw SluiceError(.syntaxError, "subquery has too many columns", position: conjunct.position.errorPosition)
                }
                let type = try FunctionRegistry.commonType(left.type, subquery.scope.types[0], context: "IN")
                let width = result.scope.entries.count
                if isCorrelated {
                    // `x IN (correlated)` in WHERE is `EXISTS (… WHERE column = x)`, x passed to the
                    // subquery as one more outer column; the optimizer makes it a semi join.
                    let widened = BatchPlan.project(
                        input: result.plan,
                        expressions: result.scope.types.enumerated().map { .column($0.offset, $0.element) } + [try coerce(left, to: type, position: nil)])
                    let matching = BatchPlan.filter(
                        input: castPlan(subquery.plan, from: subquery.scope.types, to: [type]),
                        predicate: .call(.comparison(.equal, type), [.column(0, type), .call(OuterReference.function(width, type: type), [])]))
                    let exists = BatchPlan.filter(
                        input: .apply(input: widened, subquery: matching, kind: .exists), predicate: .column(width + 1, .boolean))
                    result.plan = .project(input: exists, expressions: result.scope.types.enumerated().map { .column($0.offset, $0.element) })
                    continue
                }
                let probe = BatchPlan.project(
                    input: result.plan,
                    expressions: result.scope.types.enumerated().map { .column($0.offset, $0.element) } + [try coerce(left, to: type, position: nil)])
                let build = castPlan(subquery.plan, from: subquery.scope.types, to: [type])
                let join = BatchPlan.hashJoin(HashJoin(left: probe, right: build, kind: negated ? .anti : .semi, leftKeys: [width], rightKeys: [0], residual: nil))
                result.plan = .project(input: join, expressions: result.scope.types.enumerated().map { .column($0.offset, $0.element) })
            case .exists(let query):
                let subquery = try bindSubquery(query, outer: result.scope)
                if subquery.isCorrelated {
                    predicates.append(conjunct)
                } else {
                    result.plan = .nestedLoopJoin(left: result.plan, right: .limit(input: subquery.query.plan, limit: 1, offset: 0), kind: .semi, predicate: nil)
                }
            case .unary(.not, let inner):
                if case .exists(let query) = inner.node, !(try bindSubquery(query, outer: result.scope).isCorrelated) {
                    let subquery = try bindQuery(query)
                    result.plan = .nestedLoopJoin(left: result.plan, right: .limit(input: subquery.plan, limit: 1, offset: 0), kind: .anti, predicate: nil)
                } else {
                    predicates.append(conjunct)
                }
            default:
                predicates.append(conjunct)
            }
        }
        if predicates.isEmpty { return result }
        var context = ExpressionContext(scope: result.scope, clause: "WHERE")
        var bound: [ScalarExpr] = []
        for predicate in predicates {
            bound.append(try coerce(try bindExpression(predicate, &context), to: .boolean, position: predicate.position.errorPosition, clause: "WHERE"))
        }
        let width = result.scope.entries.count
        var plan = try attachScalarSubqueries(result.plan, context.scalarSubqueries, width: width)
        plan = .filter(input: plan, predicate: bound.count == 1 ? bound[0] : .and(bound))
        if !context.scalarSubqueries.isEmpty {
            plan = .project(input: plan, expressions: result.scope.types.enumerated().map { .column($0.offset, $0.element) })
        }
        result.plan = plan
        return result
    }

    /// A set-returning function at the top of a select item, bound to the array whose elements
    /// become rows: `unnest(array)`, `generate_subscripts(array, 1)`, `generate_series(a, b[, step])`.
    mutating func bindSetReturning(_ call: FunctionCall, _ context: inout ExpressionContext) throws(SluiceError) -> (array: ScalarExpr, element: DataType)? {
        let name = call.name.name
        guard ["unnest", "explode", "generate_subscripts", "generate_series", "_pg_expandarray"].contains(name) || Self.jsonbSetReturning(name) != nil
        else { return nil }
        var arguments: [ScalarExpr] = []
        for argument in call.arguments { arguments.append(try bindExpression(argument, &context)) }
        if let function = Self.jsonbSetReturning(name), arguments.count == 1 {
            let document = try coerce(arguments[0], to: .jsonb, position: nil)
            guard case .list(let element) = function.resultType else { return nil }
            return (.call(function, [document]), element)
        }
        switch (name, arguments.count) {
        // ksqlDB's EXPLODE is unnest.
        case ("unnest", 1), ("explode", 1):
            guard case .list(let element) = arguments[0].type else {
                throw SluiceError(.undefinedFunction, "function \(name)(\(arguments[0].type.sqlName)) does not exist")
            }
            return (arguments[0], element)
        case ("generate_subscripts", 2):
            guard case .list = arguments[0].type else {
                throw SluiceError(.undefinedFunction, "function generate_subscripts(\(arguments[0].type.sqlName), integer) does not exist")
            }
            return (.call(SetReturningFunctions.subscripts(of: arguments[0].type), [arguments[0]]), .int32)
        case ("_pg_expandarray", 1):
            guard case .list(let element) = arguments[0].type else {
                throw SluiceError(.undefinedFunction, "function _pg_expandarray(\(arguments[0].type.sqlName)) does not exist")
            }
            let expand = SetReturningFunctions.expandArray(elementType: element)
            return (.call(expand.function, [arguments[0]]), expand.element)
        case ("generate_series", 2), ("generate_series", 3):
            var coerced: [ScalarExpr] = []
            for argument in arguments { coerced.append(try coerce(argument, to: .int64, position: nil)) }
            return (.call(SetReturningFunctions.series(count: coerced.count), coerced), .int64)
        default:
            return nil
        }
    }

    /// The list function behind a jsonb set-returning function (its rows are the list's
    /// elements), nil for another name.
    static func jsonbSetReturning(_ name: String) -> ScalarFunction? {
        switch name {
        case "jsonb_array_elements", "json_array_elements": JSONFunctions.arrayElements(asText: false)
        case "jsonb_array_elements_text", "json_array_elements_text": JSONFunctions.arrayElements(asText: true)
        case "jsonb_each", "json_each": JSONFunctions.members(asText: false)
        case "jsonb_each_text", "json_each_text": JSONFunctions.members(asText: true)
        case "jsonb_object_keys", "json_object_keys": JSONFunctions.members(asText: true, keysOnly: true)
        default: nil
        }
    }

    static func astConjuncts(_ expression: Expression) -> [Expression] {
        if case .binary(let left, .and, let right) = expression.node { return astConjuncts(left) + astConjuncts(right) }
        return [expression]
    }
}
