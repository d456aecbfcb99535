import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// GROUP BY and aggregate calls: the projection feeding the hash aggregate and the mapping of
/// the query's expressions onto its output.
extension Binder {
    mutating func bindAggregation(
        _ select: Select, calls: [FunctionCall], input: BoundQuery
    ) throws(SluiceError) -> (query: BoundQuery, mapping: AggregateMapping) {
        var fromContext = ExpressionContext(scope: input.scope, clause: "GROUP BY")
        fromContext.allowsSubqueries = false
        var groupExpressions: [ScalarExpr] = []
        var groupNames: [Scope.Entry] = []
        let grouping = try GroupingSets.of(select.groupBy)
        // Each GROUP BY column's place among the group expressions (equal ones are one).
        var elementColumns: [Int] = []
        for item in grouping?.columns ?? select.groupBy {
            var expression = item
            // GROUP BY 1 and GROUP BY output-alias refer to select items.
            if case .literal(.integer(let ordinal)) = item.node {
                guard ordinal >= 1, ordinal <= select.projection.count, case .expression(let target, _) = select.projection[Int(ordinal) - 1] else {
                    throw SluiceError(.invalidColumnReference, "GROUP BY position \(ordinal) is not in select list", position: item.position.errorPosition)
                }
                expression = target
            } else if case .column(let parts) = item.node, parts.count == 1,
                (try? input.scope.resolve(nil, parts[0], position: nil)) ?? nil == nil
            {
                for case .expression(let target, let alias?) in select.projection where alias == parts[0] { expression = target }
            }
            try checkNoAggregates(expression, clause: "GROUP BY")
            let bound = try bindExpression(expression, &fromContext)
            if let existing = groupExpressions.firstIndex(of: bound) {
                elementColumns.append(existing)
            } else {
                elementColumns.append(groupExpressions.count)
                groupExpressions.append(bound)
                var entry = Scope.Entry(qualifier: nil, name: Self.outputName(of: expression), type: bound.type)
                if case .column(let index, _) = bound { entry = input.scope.entries[index] }
                groupNames.append(entry)
            }
        }
        let sets = grouping.map { grouping in grouping.sets.map { set in set.map { elementColumns[$0] } } }
        // With grouping sets the set number follows the group columns.
        let keyCount = groupExpressions.count + (sets == nil ? 0 : 1)

        // The aggregate's input: group keys, then each distinct argument, filter and sort key once.
        var projected = groupExpressions
        func project(_ expression: ScalarExpr) -> Int {
            if let index = projected[groupExpressions.count...].firstIndex(of: expression) { return index }
            projected.append(expression)
            return projected.count - 1
        }
        var aggregateCalls: [AggregateCall] = []
        var callTypes: [DataType] = []
        var callResults: [ScalarExpr] = []
        for call in calls {
            let name = call.name.name
            var argumentContext = ExpressionContext(scope: input.scope, clause: "aggregate function calls")
            argumentContext.allowsSubqueries = false
            for argument in call.arguments { try checkNoAggregates(argument, clause: "aggregate function calls") }
            if let statistical = StatisticalAggregate(name: name) {
                // count(x), sum(x) and sum(x * x), finished by a function of the three.
                guard call.arguments.count == 1, !call.isStar else {
                    throw SluiceError(.undefinedFunction, "function \(name) with \(call.arguments.count) arguments does not exist")
                }
                if call.isDistinct { throw SluiceError(.featureNotSupported, "\(name)(DISTINCT …) is not supported yet") }
                var argument = try bindExpression(call.arguments[0], &argumentContext)
                if argument.type == .unknown { argument = try coerce(argument, to: .float64, position: nil) }
                guard let sumType = StatisticalAggregate.sumType(for: argument.type) else {
                    throw SluiceError(
                        .undefinedFunction, "function \(name)(\(argument.type.sqlName)) does not exist",
                        hint: "No function matches the given name and argument types. You might need to add explicit type casts.")
                }
                let value = argument.type == sumType ? argument : ScalarExpr.cast(argument, sumType)
                let square = ScalarExpr.call(try FunctionRegistry.resolveOperator("*", sumType, sumType), [value, value])
                var parts = [
                    AggregateCall(kind: .count, argument: project(argument), resultType: .int64),
                    AggregateCall(kind: .sum, argument: project(value), resultType: sumType),
                    AggregateCall(kind: .sum, argument: project(square), resultType: sumType),
                ]
                if let filter = call.filter {
                    try checkNoAggregates(filter, clause: "FILTER")
                    let column = project(try coerce(try bindExpression(filter, &argumentContext), to: .boolean, position: filter.position.errorPosition, clause: "FILTER"))
                    for index in parts.indices { parts[index].filter = column }
                }
                let first = keyCount + aggregateCalls.count
                aggregateCalls += parts
                callTypes += parts.map(\.resultType)
                callResults.append(.call(statistical.finish(sumType: sumType), [.column(first, .int64), .column(first + 1, sumType), .column(first + 2, sumType)]))
                continue
            }
            if let ordered = OrderedSetAggregate(name: name) {
                // An array_agg of the values in order, finished by a function of the array.
                if call.isStar { throw SluiceError(.featureNotSupported, "\(name) with * is not supported") }
                if call.isDistinct {
                    // first_value(DISTINCT x ORDER BY x): the first of the distinct values is the
                    // first value. As in PostgreSQL, a DISTINCT aggregate orders by its argument.
                    guard ordered == .firstValue || ordered == .lastValue else {
                        throw SluiceError(.featureNotSupported, "\(name) with DISTINCT is not supported")
                    }
                    guard call.arguments.count == 1, call.orderBy.allSatisfy({ $0.expression == call.arguments[0] }) else {
                        throw SluiceError(SQLState("42P10"), "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list")
                    }
                }
                var value: ScalarExpr
                var fraction: ScalarExpr?
                var keys: [SortKey] = []
                if ordered.ignoresNulls {
                    guard call.orderBy.count == 1, call.arguments.count == (ordered.takesFraction ? 1 : 0) else {
                        throw SluiceError(
                            .wrongObjectType, "WITHIN GROUP is required for ordered-set aggregate \(name), with one ORDER BY expression"
                                + (ordered.takesFraction ? " and a fraction" : " and no argument"))
                    }
                    value = try bindExpression(call.orderBy[0].expression, &argumentContext)
                    if value.type == .unknown { value = try coerce(value, to: ordered == .percentileContinuous ? .float64 : .varchar, position: nil) }
                    if ordered == .percentileContinuous {
                        guard value.type.isNumeric else {
                            throw SluiceError(.undefinedFunction, "function percentile_cont(double precision ORDER BY \(value.type.sqlName)) does not exist")
                        }
                        value = try coerce(value, to: .float64, position: nil)
                    }
                    if ordered.takesFraction {
                        let bound = try bindExpression(call.arguments[0], &argumentContext)
                        guard bound.referencedColumns.isEmpty else {
                            throw SluiceError(.groupingError, "the fraction of \(name) must not refer to the rows it aggregates")
                        }
                        fraction = try coerce(bound, to: .float64, position: nil)
                    }
                    let item = call.orderBy[0]
                    keys = [SortKey(column: project(value), descending: item.ascending == false, nullsFirst: item.nullsFirst)]
                } else {
                    guard call.arguments.count == 1, !call.orderBy.isEmpty else {
                        throw SluiceError(.undefinedFunction, "\(name) takes one argument and an ORDER BY: \(name)(value ORDER BY key)")
                    }
                    value = try bindExpression(call.arguments[0], &argumentContext)
                    if value.type == .unknown { value = try coerce(value, to: .varchar, position: nil) }
                    for item in call.orderBy {
                        keys.append(SortKey(column: project(try bindExpression(item.expression, &argumentContext)), descending: item.ascending == false, nullsFirst: item.nullsFirst))
                    }
                }
                var aggregate = AggregateCall(kind: .arrayAgg, argument: project(value), resultType: .list(value.type))
                aggregate.orderBy = keys
                var conditions: [ScalarExpr] = ordered.ignoresNulls ? [.isNull(value, negated: true)] : []
                if let filter = call.filter {
                    try checkNoAggregates(filter, clause: "FILTER")
                    conditions.append(try coerce(try bindExpression(filter, &argumentContext), to: .boolean, position: filter.position.errorPosition, clause: "FILTER"))
                }
                if !conditions.isEmpty { aggregate.filter = project(conditions.count == 1 ? conditions[0] : .and(conditions)) }
                let column = ScalarExpr.column(keyCount + aggregateCalls.count, aggregate.resultType)
                callResults.append(.call(ordered.finish(elementType: value.type), [column] + (fraction.map { [$0] } ?? [])))
                aggregateCalls.append(aggregate)
                callTypes.append(aggregate.resultType)
                continue
            }
            guard let kind = AggregateKind(name: name) else { throw SluiceError.internalError("not an aggregate: \(name)") }
            var aggregate: AggregateCall
            // Trino's approx_distinct(x), answered exactly: count(DISTINCT x).
            let countsDistinct = call.isDistinct || name == "approx_distinct"
            if name == "approx_distinct", call.isStar || call.arguments.count != 1 {
                throw SluiceError(.undefinedFunction, "function approx_distinct takes one argument")
            }
            if call.isStar || (kind == .count && call.arguments.isEmpty) {
                aggregate = AggregateCall(kind: .countStar, argument: nil, resultType: .int64)
            } else {
                let expectedArguments = kind == .stringAgg ? 2 : 1
                guard call.arguments.count == expectedArguments else {
                    throw SluiceError(.undefinedFunction, "function \(name) with \(call.arguments.count) arguments does not exist", position: nil)
                }
                var argument = try bindExpression(call.arguments[0], &argumentContext)
                if argument.type == .unknown { argument = try coerce(argument, to: kind == .count ? .varchar : (kind == .boolAnd || kind == .boolOr ? .boolean : .varchar), position: nil) }
                if kind == .sum || kind == .avg, argument.type == .varchar {
                    throw SluiceError(.undefinedFunction, "function \(name)(text) does not exist", hint: "No function matches the given name and argument types. You might need to add explicit type casts.")
                }
                guard let resultType = kind.resultType(for: argument.type) else {
                    throw SluiceError(
                        .undefinedFunction, "function \(name)(\(argument.type.sqlName)) does not exist",
                        hint: "No function matches the given name and argument types. You might need to add explicit type casts.")
                }
                aggregate = AggregateCall(kind: kind, argument: project(argument), distinct: countsDistinct, resultType: resultType)
                if kind == .stringAgg {
                    aggregate.delimiter = project(try coerce(try bindExpression(call.arguments[1], &argumentContext), to: .varchar, position: nil))
                }
            }
            if let filter = call.filter {
                try checkNoAggregates(filter, clause: "FILTER")
                aggregate.filter = project(try coerce(try bindExpression(filter, &argumentContext), to: .boolean, position: filter.position.errorPosition, clause: "FILTER"))
            }
            for item in call.orderBy {
                let key = project(try bindExpression(item.expression, &argumentContext))
                aggregate.orderBy.append(SortKey(column: key, descending: item.ascending == false, nullsFirst: item.nullsFirst))
            }
            if aggregate.kind == .countStar, call.isDistinct {
                throw SluiceError(.syntaxError, "count(DISTINCT *) is not valid")
            }
            callResults.append(.column(keyCount + aggregateCalls.count, aggregate.resultType))
            aggregateCalls.append(aggregate)
            callTypes.append(aggregate.resultType)
        }
        let plan: BatchPlan
        var entries = groupNames
        if let sets {
            plan = Self.groupingSetsPlan(
                input: input.plan, projected: projected, groupCount: groupExpressions.count, sets: sets, aggregates: aggregateCalls)
            entries.append(Scope.Entry(qualifier: nil, name: "?grouping set?", type: .int32, isHidden: true))
        } else {
            plan = .hashAggregate(
                input: .project(input: input.plan, expressions: projected), groupCount: groupExpressions.count, aggregates: aggregateCalls)
        }
        for (index, call) in aggregateCalls.enumerated() {
            entries.append(Scope.Entry(qualifier: nil, name: call.kind.rawValue, type: callTypes[index]))
        }
        var mapping = AggregateMapping(groupExpressions: groupExpressions, calls: calls, callResults: callResults, fromScope: input.scope)
        mapping.groupingSets = sets
        return (BoundQuery(plan: plan, scope: Scope(entries: entries)), mapping)
    }

    /// The aggregate calls in `expressions` (not looking inside subqueries), without duplicates.
    func collectAggregates(_ expressions: [Expression]) -> [FunctionCall] {
        var calls: [FunctionCall] = []
        for expression in expressions {
            Self.walk(expression) { node in
                if case .function(let call) = node.node, call.over == nil,
                    AggregateKind(name: call.name.name) != nil || StatisticalAggregate(name: call.name.name) != nil
                        || OrderedSetAggregate(name: call.name.name) != nil,
                    call.name.qualifier.isEmpty || call.name.qualifier == ["pg_catalog"]
                {
                    if !calls.contains(call) { calls.append(call) }
                    return false
                }
                return true
            }
        }
        return calls
    }

    func checkNoAggregates(_ expression: Expression, clause: String) throws(SluiceError) {
        if let call = collectAggregates([expression]).first {
            throw SluiceError(.groupingError, "aggregate functions are not allowed in \(clause)", position: call.name.parts.isEmpty ? nil : expression.position.errorPosition)
        }
    }
}
