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
        for item in select.groupBy {
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
            if !groupExpressions.contains(bound) {
                groupExpressions.append(bound)
                var entry = Scope.Entry(qualifier: nil, name: Self.outputName(of: expression), type: bound.type)
                if case .column(let index, _) = bound { entry = input.scope.entries[index] }
                groupNames.append(entry)
            }
        }

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
                let first = groupExpressions.count + aggregateCalls.count
                aggregateCalls += parts
                callTypes += parts.map(\.resultType)
                callResults.append(.call(statistical.finish(sumType: sumType), [.column(first, .int64), .column(first + 1, sumType), .column(first + 2, sumType)]))
                continue
            }
            guard let kind = AggregateKind(name: name) else { throw SluiceError.internalError("not an aggregate: \(name)") }
            var aggregate: AggregateCall
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
                aggregate = AggregateCall(kind: kind, argument: project(argument), distinct: call.isDistinct, resultType: resultType)
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
            callResults.append(.column(groupExpressions.count + aggregateCalls.count, aggregate.resultType))
            aggregateCalls.append(aggregate)
            callTypes.append(aggregate.resultType)
        }
        let plan = BatchPlan.hashAggregate(
            input: .project(input: input.plan, expressions: projected), groupCount: groupExpressions.count, aggregates: aggregateCalls)
        var entries = groupNames
        for (index, call) in aggregateCalls.enumerated() {
            entries.append(Scope.Entry(qualifier: nil, name: call.kind.rawValue, type: callTypes[index]))
        }
        let mapping = AggregateMapping(groupExpressions: groupExpressions, calls: calls, callResults: callResults, fromScope: input.scope)
        return (BoundQuery(plan: plan, scope: Scope(entries: entries)), mapping)
    }

    /// The aggregate calls in `expressions` (not looking inside subqueries), without duplicates.
    func collectAggregates(_ expressions: [Expression]) -> [FunctionCall] {
        var calls: [FunctionCall] = []
        for expression in expressions {
            Self.walk(expression) { node in
                if case .function(let call) = node.node, call.over == nil,
                    AggregateKind(name: call.name.name) != nil || StatisticalAggregate(name: call.name.name) != nil,
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
