import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

extension Binder {
    /// Parses a literal's text as `type`, pointing errors at `position`.
    func parseLiteral(_ text: String, as type: DataType, position: Int?) throws(SluiceError) -> Value {
        do {
            return try Value(parsingText: text, as: type, zone: session.zone)
        } catch {
            throw error.at(position: position)
        }
    }

    /// `expression` as a value of `type`: untyped literals and parameters take the type; other
    /// expressions are cast where Postgres casts implicitly, else 42804.
    mutating func coerce(_ expression: ScalarExpr, to type: DataType, position: Int?, clause: String? = nil) throws(SluiceError) -> ScalarExpr {
        if expression.type == type { return expression }
        switch expression {
        case .literal(let value, .unknown):
            if case .string(let text) = value { return .literal(try parseLiteral(text, as: type, position: position), type) }
            return .literal(value.isNull ? .null : value, type)
        case .call(let function, []) where ParameterPlaceholder.number(of: function) != nil && function.resultType == .unknown:
            let number = ParameterPlaceholder.number(of: function)!
            parameterTypes[number - 1] = type
            return .call(ParameterPlaceholder.function(number, type: type), [])
        default:
            break
        }
        if expression.type == .unknown {
            return .cast(expression, type)
        }
        if Self.isImplicitlyCastable(expression.type, to: type) {
            // A literal is converted now rather than once per chunk.
            if case .literal = expression { return try explicitCast(expression, to: type, position: position) }
            return .cast(expression, type)
        }
        if let clause {
            throw SluiceError(
                .datatypeMismatch, "argument of \(clause) must be type \(type.sqlName), not type \(expression.type.sqlName)", position: position)
        }
        throw SluiceError(.datatypeMismatch, "expression is of type \(expression.type.sqlName) but \(type.sqlName) is expected", position: position)
    }

    /// Casts Postgres applies on assignment and in operator resolution without being asked.
    static func isImplicitlyCastable(_ source: DataType, to target: DataType) -> Bool {
        if source == target { return true }
        switch (source, target) {
        case (let a, let b) where a.isNumeric && b.isNumeric: return true
        case (.date, .timestamp), (.date, .timestamptz), (.timestamp, .timestamptz), (.timestamptz, .timestamp), (.timestamp, .date), (.timestamptz, .date), (.time, .interval): return true
        case (.decimal, .decimal): return true
        case (.structure(let a), .structure(let b)): return a.count == b.count
        case (_, .varchar) where source != .jsonb: return true
        case (.varchar, .jsonb), (.jsonb, .varchar): return false
        default: return false
        }
    }

    /// The two operands cast to their common type.
    mutating func unify(_ lhs: ScalarExpr, _ rhs: ScalarExpr, context: String, position: Int?) throws(SluiceError) -> (ScalarExpr, ScalarExpr, DataType) {
        var type = try FunctionRegistry.commonType(lhs.type, rhs.type, context: context)
        if type == .unknown { type = .varchar }
        return (try coerce(lhs, to: type, position: position), try coerce(rhs, to: type, position: position), type)
    }

    /// The type a list of expressions is unified to (CASE, COALESCE, VALUES, ARRAY, …):
    /// untyped literals and NULLs do not vote; with no typed expression it is `varchar`.
    func commonType(of expressions: [ScalarExpr], context: String) throws(SluiceError) -> DataType {
        var type = DataType.unknown
        for expression in expressions where expression.type != .unknown {
            type = try FunctionRegistry.commonType(type, expression.type, context: context)
        }
        return type == .unknown ? .varchar : type
    }

    mutating func explicitCast(_ expression: ScalarExpr, to type: DataType, position: Int?) throws(SluiceError) -> ScalarExpr {
        if case .literal(let value, .unknown) = expression, case .string(let text) = value {
            return .literal(try parseLiteral(text, as: type, position: position), type)
        }
        if expression.type == .unknown { return try coerce(expression, to: type, position: position) }
        if expression.type == type {
            return expression
        }
        guard CastKernels.canCast(from: expression.type, to: type) else {
            throw SluiceError(.cannotCoerce, "cannot cast type \(expression.type.sqlName) to \(type.sqlName)", position: position)
        }
        if expression.isConstant, case .literal = expression {
            // Fold casts of literals now so errors point at the literal.
            do {
                let column = try CastKernels.cast(
                    try ExpressionEvaluator.evaluate(expression, on: Chunk(columns: [], count: 1), context: EvaluationContext(zone: session.zone)), to: type,
                    context: EvaluationContext(zone: session.zone))
                return .literal(column.value(at: 0), type)
            } catch {
                throw error.at(position: position)
            }
        }
        return .cast(expression, type)
    }

    mutating func callOperator(_ symbol: String, _ lhs: ScalarExpr, _ rhs: ScalarExpr, position: Int?) throws(SluiceError) -> ScalarExpr {
        var left = lhs
        var right = rhs
        // An untyped literal meeting a typed operand takes its type (Postgres's unknown rule);
        // for `||` only beside an array (`array || NULL` is array || array), else it is text.
        // jsonb's operators take a key (text), a path (text[]) or an index on their right.
        let isJSONAccess = ["->", "->>", "#>", "#>>", "?"].contains(symbol)
        func lends(_ type: DataType) -> Bool {
            if case .list = type { return !isJSONAccess }
            return type != .unknown && symbol != "||" && !isJSONAccess
        }
        if left.type == .unknown && lends(right.type) { left = try coerce(left, to: right.type, position: position) }
        if right.type == .unknown && lends(left.type) { right = try coerce(right, to: left.type, position: position) }
        if isJSONAccess && left.type == .unknown { left = try coerce(left, to: .jsonb, position: position) }
        if symbol.hasPrefix("#>") && right.type == .unknown { right = try coerce(right, to: .list(.varchar), position: position) }
        if left.type == .unknown { left = try coerce(left, to: .varchar, position: position) }
        if right.type == .unknown { right = try coerce(right, to: .varchar, position: position) }
        let function: ScalarFunction
        do {
            function = try FunctionRegistry.resolveOperator(symbol, left.type, right.type)
        } catch {
            throw error.at(position: position)
        }
        return try folded(.call(function, [try coerce(left, to: function.argumentTypes[0], position: position), try coerce(right, to: function.argumentTypes[1], position: position)]), position: position)
    }

    /// `expression` evaluated now when it is a deterministic call on literals, as Postgres folds
    /// constants while planning (so `SELECT 1 / 0` fails before any row is sent).
    func folded(_ expression: ScalarExpr, position: Int?) throws(SluiceError) -> ScalarExpr {
        guard case .call(let function, let arguments) = expression, function.isDeterministic,
            arguments.allSatisfy({ if case .literal = $0 { return true } else { return false } })
        else { return expression }
        do {
            let context = EvaluationContext(zone: session.zone, timeZones: session.timeZones)
            let value = try ExpressionEvaluator.evaluate(expression, on: Chunk(columns: [], count: 1), context: context).value(at: 0)
            return .literal(value, expression.type)
        } catch {
            if foldingDeferrals > 0 { return expression }
            throw error.at(position: position)
        }
    }

    mutating func callOperator(unary symbol: String, _ operand: ScalarExpr, position: Int?) throws(SluiceError) -> ScalarExpr {
        let typed = operand.type == .unknown ? try coerce(operand, to: .numeric, position: position) : operand
        do {
            let function = try FunctionRegistry.resolveUnary(symbol, typed.type)
            return try folded(.call(function, [try coerce(typed, to: function.argumentTypes[0], position: position)]), position: position)
        } catch {
            throw error.at(position: position)
        }
    }

    mutating func callFunction(_ name: String, _ arguments: [ScalarExpr], position: Int?) throws(SluiceError) -> ScalarExpr {
        let function: ScalarFunction
        do {
            function = try FunctionRegistry.resolve(name: name, argumentTypes: arguments.map(\.type))
        } catch {
            throw error.at(position: position)
        }
        var bound: [ScalarExpr] = []
        for (argument, type) in zip(arguments, function.argumentTypes) { bound.append(try coerce(argument, to: type, position: position)) }
        return try folded(.call(function, bound), position: position)
    }

    mutating func bindFunctionCall(_ call: FunctionCall, _ context: inout ExpressionContext, position: Int?) throws(SluiceError) -> ScalarExpr {
        let name = call.name.name
        if session.dialect == .flink, let lowered = try FlinkFunctions.lower(call, at: SourcePosition(position ?? 0)) {
            return try bindExpression(lowered, &context)
        }
        if call.over != nil {
            // Window calls are bound in the select list and ORDER BY (see Binder+Window.swift).
            throw SluiceError(SQLState("42P20"), "window functions are not allowed in \(context.clause)", position: position)
        }
        if AggregateKind(name: name) != nil || StatisticalAggregate(name: name) != nil || OrderedSetAggregate(name: name) != nil {
            throw SluiceError(.groupingError, "aggregate functions are not allowed in \(context.clause)", position: position)
        }
        if call.isStar || call.isDistinct || call.filter != nil || !call.orderBy.isEmpty {
            throw SluiceError(.wrongObjectType, "\(call.isStar ? "*" : "DISTINCT/FILTER/ORDER BY") specified, but \(name) is not an aggregate function", position: position)
        }
        if name == "timezone", call.arguments.count == 2 {
            // timezone(zone, x) is `x AT TIME ZONE zone`.
            let first = call.arguments[1]
            return try bindExpression(Expression(.atTimeZone(first, zone: call.arguments[0]), at: first.position), &context)
        }
        var arguments: [ScalarExpr] = []
        if name == "coalesce" { foldingDeferrals += 1 }
        for argument in call.arguments { arguments.append(try bindExpression(argument, &context)) }
        if name == "coalesce" { foldingDeferrals -= 1 }
        switch name {
        case SQLParser.ksqlPlus where call.name.qualifier.isEmpty && arguments.count == 2:
            // ksqlDB's `a + b`: strings concatenate, numbers add.
            let isText = arguments.contains { $0.type == .varchar }
            return try callOperator(isText ? "||" : "+", arguments[0], arguments[1], position: position)
        case "coalesce":
            guard !arguments.isEmpty else { throw SluiceError(.syntaxError, "syntax error at or near \")\"", position: position) }
            let type = try commonType(of: arguments, context: "COALESCE")
            var coerced: [ScalarExpr] = []
            for argument in arguments { coerced.append(try coerce(argument, to: type, position: position)) }
            return .coalesce(coerced, type)
        case "nullif":
            guard arguments.count == 2 else { throw SluiceError(.undefinedFunction, "function nullif with \(arguments.count) arguments does not exist", position: position) }
            let (lhs, rhs, type) = try unify(arguments[0], arguments[1], context: "NULLIF", position: position)
            return .caseWhen([SluiceExpr.CaseBranch(condition: .call(.comparison(.equal, type), [lhs, rhs]), result: .literal(.null, type))], otherwise: lhs, type)
        case "greatest", "least":
            let type = try commonType(of: arguments, context: name.uppercased())
            var coerced: [ScalarExpr] = []
            for argument in arguments { coerced.append(try coerce(argument, to: type, position: position)) }
            return .call(try FunctionRegistry.resolve(name: name, argumentTypes: coerced.map(\.type)), coerced)
        default:
            if let inlined = try bindSQLFunctionCall(call, arguments, clause: context.clause, position: position) { return inlined }
            if let special = try SystemFunctions.bind(name, arguments, catalog: catalog, session: session) {
                return special
            }
            return try callFunction(name, arguments, position: position)
        }
    }
}

/// `$n` before its value is known: typed for planning, never evaluated.
enum ParameterPlaceholder {
    static func function(_ number: Int, type: DataType) -> ScalarFunction {
        ScalarFunction(name: "$\(number)", argumentTypes: [], resultType: type, isDeterministic: false) {
            (_: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            Column(type: type, repeating: .null, count: rowCount)
        }
    }

    static func number(of function: ScalarFunction) -> Int? {
        guard function.name.hasPrefix("$"), function.argumentTypes.isEmpty else { return nil }
        return Int(function.name.dropFirst())
    }
}
