import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

extension Binder {
    /// Binds `expression` in `context`, typing it; `unknown` types remain for untyped literals.
    mutating func bindExpression(_ expression: Expression, _ context: inout ExpressionContext) throws(SluiceError) -> ScalarExpr {
        let position = expression.position.errorPosition
        if case .function(let call) = expression.node, call.over != nil, let column = context.windows[call] {
            return .column(column, context.scope.entries[column].type)
        }
        if let mapping = context.aggregates {
            if case .function(let call) = expression.node, let index = mapping.calls.firstIndex(of: call) {
                return mapping.callResults[index]
            }
            if case .function(let call) = expression.node, call.name.name == "grouping", call.name.qualifier.isEmpty, call.over == nil {
                return try bindGroupingCall(call, mapping: mapping, position: position)
            }
            if collectAggregates([expression]).isEmpty, !Self.containsSubquery(expression), collectWindowCalls([expression]).isEmpty {
                var below = ExpressionContext(scope: mapping.fromScope, clause: context.clause)
                let candidate = try bindExpression(expression, &below)
                if let index = mapping.groupExpressions.firstIndex(of: candidate) {
                    return .column(index, candidate.type)
                }
                if candidate.referencedColumns.isEmpty { return candidate }
                if case .column(let parts) = expression.node {
                    let name = parts.joined(separator: ".")
                    throw SluiceError(
                        .groupingError, "column \"\(name)\" must appear in the GROUP BY clause or be used in an aggregate function",
                        position: position)
                }
            }
        }
        switch expression.node {
        case .column(let parts):
            return try bindColumn(parts, context: context, position: position)
        case .literal(let literal):
            return try bindLiteral(literal, position: position)
        case .typedLiteral(let typeName, let text):
            let type = try typeName.resolvedDataType()
            return .literal(try parseLiteral(text, as: type, position: position), type)
        case .interval(let text, let qualifier):
            var input = text
            if let qualifier, !text.contains(where: { $0.isLetter }) { input += " " + qualifier.leading }
            return .literal(try parseLiteral(input, as: .interval, position: position), .interval)
        case .parameter(let number):
            return try bindParameter(number, position: position)
        case .unary(let op, let operand):
            let bound = try bindExpression(operand, &context)
            switch op {
            case .not:
                return .not(try coerce(bound, to: .boolean, position: operand.position.errorPosition, clause: "NOT"))
            case .plus:
                return bound
            case .minus:
                if case .literal(let value, let type) = bound, type.isNumeric {
                    if let negated = try? ExpressionEvaluator.evaluate(
                        .call(try FunctionRegistry.resolveUnary("-", type), [bound]), on: Chunk(columns: [], count: 1), context: EvaluationContext()
                    ).value(at: 0) {
                        _ = value
                        return .literal(negated, type)
                    }
                }
                return try callOperator(unary: "-", bound, position: position)
            default:
                return try callOperator(unary: op.rawValue, bound, position: position)
            }
        case .binary(let left, let op, let right):
            switch op {
            case .and, .or:
                let lhs = try coerce(try bindExpression(left, &context), to: .boolean, position: left.position.errorPosition, clause: op == .and ? "AND" : "OR")
                let rhs = try coerce(try bindExpression(right, &context), to: .boolean, position: right.position.errorPosition, clause: op == .and ? "AND" : "OR")
                var operands: [ScalarExpr] = []
                for operand in [lhs, rhs] {
                    if op == .and, case .and(let inner) = operand { operands += inner } else if op == .or, case .or(let inner) = operand { operands += inner } else { operands.append(operand) }
                }
                return op == .and ? .and(operands) : .or(operands)
            default:
                let lhs = try bindExpression(left, &context)
                let rhs = try bindExpression(right, &context)
                return try callOperator(op.symbol, lhs, rhs, position: position)
            }
        case .quantified(let left, let op, let quantifier, let right):
            let lhs = try bindExpression(left, &context)
            if case .array(let elements) = right.node {
                // x op ANY (ARRAY[...]): expanded to OR/AND of comparisons.
                var comparisons: [ScalarExpr] = []
                for element in elements {
                    comparisons.append(try callOperator(op.symbol, lhs, try bindExpression(element, &context), position: position))
                }
                if comparisons.isEmpty { return .literal(.bool(quantifier == .all), .boolean) }
                return quantifier == .any ? .or(comparisons) : .and(comparisons)
            }
            guard let comparison = ComparisonOperator(rawValue: op.symbol == "!=" ? "<>" : op.symbol) else {
                throw SluiceError(.featureNotSupported, "\(op.symbol) \(quantifier.rawValue) is not supported yet", position: position)
            }
            var array: ScalarExpr
            if case .subquery(let query) = right.node {
                // x op ANY (SELECT y …) compares with the subquery's values as an array, as IN does.
                array = try pendSubquery(query, kind: .array, &context, position: right.position.errorPosition).column
            } else {
                array = try bindExpression(right, &context)
            }
            var element = lhs.type == .unknown ? DataType.varchar : lhs.type
            if case .list(let arrayElement) = array.type {
                element = try FunctionRegistry.commonType(element, arrayElement, context: quantifier.rawValue)
            }
            if case .list(let arrayElement) = array.type, arrayElement != element {
                // (The elements widen to the common type, as IN's do.)
                array = .cast(array, .list(element))
            } else {
                array = try coerce(array, to: .list(element), position: right.position.errorPosition)
            }
            return .call(ArrayFunctions.quantified(comparison, all: quantifier == .all, elementType: element), [try coerce(lhs, to: element, position: position), array])
        case .isNull(let operand, let negated):
            let bound = try bindExpression(operand, &context)
            return .isNull(bound.type == .unknown ? try coerce(bound, to: .varchar, position: nil) : bound, negated: negated)
        case .isBoolean(let operand, let value, let negated):
            let bound = try coerce(try bindExpression(operand, &context), to: .boolean, position: operand.position.errorPosition, clause: "IS")
            guard let value else { return .isNull(bound, negated: negated) }
            // IS TRUE: true, not null; IS NOT TRUE: false or null.
            let test = ScalarExpr.call(.distinctFrom(.boolean, negated: true), [bound, .literal(.bool(value), .boolean)])
            return negated ? .not(test) : test
        case .isDistinctFrom(let left, let right, let negated):
            let (lhs, rhs, type) = try unify(try bindExpression(left, &context), try bindExpression(right, &context), context: "IS DISTINCT FROM", position: position)
            return .call(.distinctFrom(type, negated: negated), [lhs, rhs])
        case .between(let operand, let low, let high, let negated, let symmetric):
            let value = try bindExpression(operand, &context)
            let lower = try bindExpression(low, &context)
            let upper = try bindExpression(high, &context)
            var test = ScalarExpr.and([
                try callOperator(">=", value, lower, position: position), try callOperator("<=", value, upper, position: position),
            ])
            if symmetric {
                test = .or([test, .and([try callOperator(">=", value, upper, position: position), try callOperator("<=", value, lower, position: position)])])
            }
            return negated ? .not(test) : test
        case .inList(let operand, let list, let negated):
            let value = try bindExpression(operand, &context)
            var comparisons: [ScalarExpr] = []
            for item in list { comparisons.append(try callOperator("=", value, try bindExpression(item, &context), position: position)) }
            let test = comparisons.count == 1 ? comparisons[0] : ScalarExpr.or(comparisons)
            return negated ? .not(test) : test
        case .like(let operand, let pattern, let escape, let caseInsensitive, let negated):
            var arguments = [try bindExpression(operand, &context), try bindExpression(pattern, &context)]
            if let escape { arguments.append(try bindExpression(escape, &context)) }
            let name = (negated ? "not " : "") + (caseInsensitive ? "ilike" : "like")
            if arguments.count == 3 { return try callFunction(name, arguments, position: position) }
            return try callOperator(name, arguments[0], arguments[1], position: position)
        case .similarTo(let operand, let pattern, let escape, let negated):
            // `x SIMILAR TO p [ESCAPE e]` is `x ~ similar_to_escape(p [, e])`, as in PostgreSQL.
            var arguments = [try bindExpression(pattern, &context)]
            if let escape { arguments.append(try bindExpression(escape, &context)) }
            let regex = try callFunction("similar_to_escape", arguments, position: position)
            return try callOperator(negated ? "!~" : "~", try bindExpression(operand, &context), regex, position: position)
        case .caseWhen(let operand, let branches, let otherwise):
            return try bindCase(operand: operand, branches: branches, otherwise: otherwise, &context, position: position)
        case .cast(let operand, let typeName, _):
            if typeName.arrayDimensions == 0, let objectIdentifier = ObjectIdentifierType(rawValue: typeName.simpleName) {
                return try bindObjectIdentifierCast(try bindExpression(operand, &context), to: objectIdentifier, position: position)
            }
            let type = try typeName.resolvedDataType()
            let bound = try bindExpression(operand, &context)
            return try explicitCast(bound, to: type, position: position)
        case .collate(let operand, _):
            return try bindExpression(operand, &context)
        case .atTimeZone(let operand, let zone):
            var value = try bindExpression(operand, &context)
            if value.type != .timestamp { value = try coerce(value, to: .timestamptz, position: position) }
            var zoneValue = try bindExpression(zone, &context)
            if zoneValue.type != .interval { zoneValue = try coerce(zoneValue, to: .varchar, position: zone.position.errorPosition) }
            // (Not folded here: the optimizer folds it with the server's time zones.)
            return .call(TimeZoneFunctions.atTimeZone(value.type, zoneType: zoneValue.type), [zoneValue, value])
        case .function(let call):
            return try bindFunctionCall(call, &context, position: position)
        case .extract(let field, let source):
            return try callFunction("extract", [.literal(.string(field.lowercased()), .varchar), try bindExpression(source, &context)], position: position)
        case .substring(let operand, let from, let length):
            var arguments = [try bindExpression(operand, &context)]
            arguments.append(try from.map { (e) throws(SluiceError) -> ScalarExpr in try bindExpression(e, &context) } ?? .literal(.int32(1), .int32))
            if let length { arguments.append(try bindExpression(length, &context)) }
            return try callFunction("substr", arguments, position: position)
        case .position(let needle, let haystack):
            return try callFunction("strpos", [try bindExpression(haystack, &context), try bindExpression(needle, &context)], position: position)
        case .trim(let operand, let side, let characters):
            var arguments = [try bindExpression(operand, &context)]
            if let characters { arguments.append(try bindExpression(characters, &context)) }
            let name = side == .both ? "btrim" : (side == .leading ? "ltrim" : "rtrim")
            return try callFunction(name, arguments, position: position)
        case .overlay:
            throw SluiceError(.featureNotSupported, "OVERLAY is not supported yet", position: position)
        case .exists(let query):
            return try pendSubquery(query, kind: .exists, &context, position: position).column
        case .inSubquery(let operand, let query, let negated):
            // x IN (SELECT y …) is x = ANY (ARRAY(SELECT y …)), which also gives NOT IN its
            // SQL meaning when the subquery yields a NULL.
            let value = try bindExpression(operand, &context)
            let (array, bound) = try pendSubquery(query, kind: .array, &context, position: position)
            let elementType = bound.scope.types[0]
            let type = try FunctionRegistry.commonType(value.type == .unknown ? elementType : value.type, elementType, context: "IN")
            let coercedArray = type == elementType ? array : .cast(array, .list(type))
            let test = ScalarExpr.call(ArrayFunctions.quantified(.equal, all: false, elementType: type), [try coerce(value, to: type, position: position), coercedArray])
            return negated ? .not(test) : test
        case .subquery(let query):
            return try pendSubquery(query, kind: .scalar, &context, position: position).column
        case .array(let elements):
            var bound: [ScalarExpr] = []
            for element in elements { bound.append(try bindExpression(element, &context)) }
            let type = try commonType(of: bound, context: "ARRAY")
            var coerced: [ScalarExpr] = []
            for element in bound { coerced.append(try coerce(element, to: type, position: position)) }
            return .call(ArrayFunctions.constructor(elementType: type, count: coerced.count), coerced)
        case .arraySubquery(let query):
            return try pendSubquery(query, kind: .array, &context, position: position).column
        case .element(let base, let index):
            let array = try bindExpression(base, &context)
            guard case .list(let elementType) = array.type else {
                throw SluiceError(
                    .datatypeMismatch, "cannot subscript type \(array.type.sqlName) because it does not support subscripting", position: position)
            }
            let elementIndex = try coerce(try bindExpression(index, &context), to: .int32, position: index.position.errorPosition)
            return .call(ArrayFunctions.element(elementType: elementType), [array, elementIndex])
        case .slice(let base, let lower, let upper):
            let array = try bindExpression(base, &context)
            guard case .list(let elementType) = array.type else {
                throw SluiceError(
                    .datatypeMismatch, "cannot subscript type \(array.type.sqlName) because it does not support subscripting", position: position)
            }
            var arguments = [array]
            for bound in [lower, upper].compactMap({ $0 }) {
                arguments.append(try coerce(try bindExpression(bound, &context), to: .int32, position: bound.position.errorPosition))
            }
            return .call(ArrayFunctions.slice(elementType: elementType, hasLower: lower != nil, hasUpper: upper != nil), arguments)
        case .fieldAccess(let base, let field):
            let bound = try bindExpression(base, &context)
            guard case .structure(let fields) = bound.type, let index = fields.firstIndex(where: { $0.name == field }) else {
                throw SluiceError(.undefinedColumn, "column \"\(field)\" not found in data type \(bound.type.sqlName)", position: position)
            }
            return .call(StructFunctions.field(index, of: bound.type), [bound])
        case .row(let elements, _):
            var fields: [ScalarExpr] = []
            for element in elements {
                let bound = try bindExpression(element, &context)
                fields.append(bound.type == .unknown ? try coerce(bound, to: .varchar, position: element.position.errorPosition) : bound)
            }
            return .call(StructFunctions.constructor(fields.map(\.type)), fields)
        case .valueFunction(let function):
            return try bindValueFunction(function, position: position)
        case .defaultValue:
            throw SluiceError(.featureNotSupported, "DEFAULT is not supported here", position: position)
        }
    }

    /// Binds a subquery used as a value and queues it on `context`; returns the column it will
    /// occupy after the scope's columns (see ``attachScalarSubqueries``) and the bound query.
    private mutating func pendSubquery(
        _ query: Query, kind: ApplyKind, _ context: inout ExpressionContext, position: Int?
    ) throws(SluiceError) -> (column: ScalarExpr, query: BoundQuery) {
        guard context.allowsSubqueries else {
            throw SluiceError(.featureNotSupported, "subqueries are not supported in this position yet", position: position)
        }
        let (bound, isCorrelated) = try bindSubquery(query, outer: context.scope)
        if kind != .exists, bound.scope.entries.count != 1 {
            throw SluiceError(.syntaxError, "subquery must return only one column", position: position)
        }
        let index = context.scope.entries.count + context.scalarSubqueries.count
        context.scalarSubqueries.append(PendingSubquery(query: bound, kind: kind, isCorrelated: isCorrelated))
        return (.column(index, kind.resultType(bound.scope.types.first ?? .unknown)), bound)
    }

    private mutating func bindColumn(_ parts: [String], context: ExpressionContext, position: Int?) throws(SluiceError) -> ScalarExpr {
        let name = parts.last!
        let qualifier = parts.count >= 2 ? parts[parts.count - 2] : nil
        if let argument = inlinedArguments?.value(named: parts) { return argument }
        if let index = try context.scope.resolve(qualifier, name, position: position) {
            return .column(index, context.scope.entries[index].type)
        }
        // Struct field access written as table.column.field or column.field.
        if parts.count >= 2, let index = try context.scope.resolve(parts.count >= 3 ? parts[parts.count - 3] : nil, parts[parts.count - 2], position: position),
            case .structure(let fields) = context.scope.entries[index].type, let field = fields.firstIndex(where: { $0.name == name })
        {
            let base = ScalarExpr.column(index, context.scope.entries[index].type)
            return .call(StructFunctions.field(field, of: base.type), [base])
        }
        if let outerScope, let index = try outerScope.resolve(qualifier, name, position: position) {
            usesOuterReferences = true
            return .call(OuterReference.function(index, type: outerScope.entries[index].type), [])
        }
        if let qualifier, !context.scope.hasQualifier(qualifier), !(outerScope?.hasQualifier(qualifier) ?? false) {
            throw SluiceError(.undefinedTable, "missing FROM-clause entry for table \"\(qualifier)\"", position: position)
        }
        let shown = parts.joined(separator: ".")
        throw SluiceError(.undefinedColumn, "column \"\(shown)\" does not exist", position: position)
    }

    private func bindLiteral(_ literal: Literal, position: Int?) throws(SluiceError) -> ScalarExpr {
        switch literal {
        case .integer(let value):
            if let small = Int32(exactly: value) { return .literal(.int32(small), .int32) }
            return .literal(.int64(value), .int64)
        case .numeric(let text):
            return .literal(try parseLiteral(text, as: .numeric, position: position), .numeric)
        case .string(let text):
            return .literal(.string(text), .unknown)
        case .boolean(let value):
            return .literal(.bool(value), .boolean)
        case .null:
            return .literal(.null, .unknown)
        }
    }

    private mutating func bindParameter(_ number: Int, position: Int?) throws(SluiceError) -> ScalarExpr {
        guard number >= 1 else { throw SluiceError(.undefinedParameter, "there is no parameter $\(number)", position: position) }
        if let inlinedArguments {
            guard number <= inlinedArguments.values.count else {
                throw SluiceError(.undefinedParameter, "there is no parameter $\(number)", position: position)
            }
            return inlinedArguments.values[number - 1]
        }
        while parameterTypes.count < number { parameterTypes.append(.unknown) }
        let type = parameterTypes[number - 1]
        if let parameterValues {
            guard number <= parameterValues.count else {
                throw SluiceError(.undefinedParameter, "there is no parameter $\(number)", position: position)
            }
            let value = parameterValues[number - 1]
            if type == .unknown {
                if case .string = value { return .literal(value, .unknown) }
                return value.isNull ? .literal(.null, .unknown) : .literal(value, .varchar)
            }
            return .literal(value, type)
        }
        return .call(ParameterPlaceholder.function(number, type: type), [])
    }

    private mutating func bindValueFunction(_ function: SQLValueFunction, position: Int?) throws(SluiceError) -> ScalarExpr {
        switch function {
        case .currentDate:
            return .cast(try callFunction("now", [], position: position), .date)
        case .currentTimestamp, .localTimestamp, .currentTime, .localTime:
            return try callFunction("now", [], position: position)
        case .currentUser, .currentRole, .user:
            return .literal(.string(session.user), .varchar)
        case .sessionUser:
            return .literal(.string(session.sessionUser), .varchar)
        case .currentSchema:
            return .literal(.string(session.schema), .varchar)
        case .currentCatalog:
            return .literal(.string(session.database), .varchar)
        }
    }

    private mutating func bindCase(
        operand: Expression?, branches: [SluiceSQL.CaseBranch], otherwise: Expression?, _ context: inout ExpressionContext, position: Int?
    ) throws(SluiceError) -> ScalarExpr {
        let subject = try operand.map { (e) throws(SluiceError) -> ScalarExpr in try bindExpression(e, &context) }
        foldingDeferrals += 1
        defer { foldingDeferrals -= 1 }
        var conditions: [ScalarExpr] = []
        var results: [ScalarExpr] = []
        for branch in branches {
            let condition = try bindExpression(branch.condition, &context)
            if let subject {
                conditions.append(try callOperator("=", subject, condition, position: branch.condition.position.errorPosition))
            } else {
                conditions.append(try coerce(condition, to: .boolean, position: branch.condition.position.errorPosition, clause: "CASE/WHEN"))
            }
            results.append(try bindExpression(branch.result, &context))
        }
        let elseResult = try otherwise.map { (e) throws(SluiceError) -> ScalarExpr in try bindExpression(e, &context) }
        let type = try commonType(of: results + (elseResult.map { [$0] } ?? []), context: "CASE")
        var bound: [SluiceExpr.CaseBranch] = []
        for (condition, result) in zip(conditions, results) {
            bound.append(SluiceExpr.CaseBranch(condition: condition, result: try coerce(result, to: type, position: position)))
        }
        return .caseWhen(bound, otherwise: try elseResult.map { (e) throws(SluiceError) -> ScalarExpr in try coerce(e, to: type, position: position) }, type)
    }
}
