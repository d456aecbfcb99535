import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// The arguments of the SQL function whose body is being bound: its parameters' names and
/// `$n` stand for them.
struct InlinedArguments {
    var functionName: String
    var names: [String?]
    var values: [ScalarExpr]

    /// The argument a column reference names (`a`, or `f.a` qualified by the function's name).
    func value(named parts: [String]) -> ScalarExpr? {
        guard parts.count == 1 || (parts.count == 2 && parts[0] == functionName) else { return nil }
        guard let index = names.firstIndex(where: { $0 == parts.last }) else { return nil }
        return values[index]
    }
}

// Calls of SQL functions (`CREATE FUNCTION … LANGUAGE SQL`): resolved among the functions of
// the name as PostgreSQL resolves the simple cases, then inlined.

extension Binder {
    /// How deep SQL functions may call SQL functions (CREATE refuses a cycle; this bounds the rest).
    static let maximumInliningDepth = 32
    /// How many calls of SQL functions one statement may inline (a body calling a function
    /// twice, whose body calls another twice, … doubles them at each level).
    static let maximumInlinedCalls = 10_000

    /// `call` when it names a SQL function: the function's body bound over `arguments`. Nil when
    /// no SQL function has the name, or a built-in function fits the arguments better.
    mutating func bindSQLFunctionCall(
        _ call: FunctionCall, _ arguments: [ScalarExpr], clause: String, position: Int?
    ) throws(SluiceError) -> ScalarExpr? {
        let candidates = sqlFunctionCandidates(call.name, argumentCount: arguments.count)
        guard !candidates.isEmpty else { return nil }
        let types = arguments.map(\.type)
        let builtin = try? FunctionRegistry.resolve(name: call.name.name, argumentTypes: types)
        guard let function = try bestSQLFunction(candidates, types: types, call: call, builtin: builtin, position: position) else { return nil }
        var coerced: [ScalarExpr] = []
        for (argument, type) in zip(arguments, function.parameterTypes) { coerced.append(try coerce(argument, to: type, position: position)) }
        return try inline(function, arguments: coerced, clause: clause, position: position)
    }

    /// The SQL functions `name` with `argumentCount` parameters: in its schema if qualified, else
    /// in the session's schema, then `public` (one with the same parameter types in an earlier
    /// schema hides a later one).
    func sqlFunctionCandidates(_ name: ObjectName, argumentCount: Int) -> [FunctionDefinition] {
        let schemas: [String]
        if let qualifier = name.qualifier.last {
            schemas = qualifier == "pg_catalog" ? [] : [qualifier]
        } else {
            schemas = session.schema == "public" ? ["public"] : [session.schema, "public"]
        }
        var found: [FunctionDefinition] = []
        for schema in schemas {
            for function in catalog.functions(named: name.name, schema: schema)
            where function.parameterTypes.count == argumentCount && !found.contains(where: { $0.parameterTypes == function.parameterTypes }) {
                found.append(function)
            }
        }
        return found
    }

    /// The candidate a call with arguments of `types` resolves to (PostgreSQL's rules for the
    /// simple cases): an exact match; else the built-in function if it fits exactly, else the
    /// candidate that fits through implicit casts with the most exact arguments. 42883 when none
    /// fits and no built-in does, 42725 when two fit equally well.
    private func bestSQLFunction(
        _ candidates: [FunctionDefinition], types: [DataType], call: FunctionCall, builtin: ScalarFunction?, position: Int?
    ) throws(SluiceError) -> FunctionDefinition? {
        if let exact = candidates.first(where: { zip($0.parameterTypes, types).allSatisfy { Self.isSameType($0, $1) } }) { return exact }
        if let builtin, builtin.argumentTypes.count == types.count, zip(builtin.argumentTypes, types).allSatisfy({ Self.isSameType($0, $1) }) {
            return nil
        }
        // PostgreSQL's order (typeconv-func): most exact matches, then most preferred types
        // (double precision, text, timestamptz) where a conversion is needed; an untyped
        // literal prefers text.
        var best: [FunctionDefinition] = []
        var bestScore = (exact: -1, preferred: -1)
        for candidate in candidates {
            var score = (exact: 0, preferred: 0)
            var fits = true
            for (parameter, argument) in zip(candidate.parameterTypes, types) {
                if Self.isSameType(parameter, argument) {
                    score.exact += 1
                } else if argument == .unknown {
                    if parameter == .varchar { score.preferred += 1 }
                } else if Self.isImplicitArgumentCast(argument, to: parameter) {
                    if [.float64, .timestamptz].contains(parameter) { score.preferred += 1 }
                } else {
                    fits = false
                    break
                }
            }
            guard fits else { continue }
            if score > bestScore {
                best = [candidate]
                bestScore = score
            } else if score == bestScore {
                best.append(candidate)
            }
        }
        let shown = "\(call.name.name)(\(types.map(\.sqlName).joined(separator: ", ")))"
        if best.isEmpty {
            if builtin != nil { return nil }
            throw SluiceError(
                .undefinedFunction, "function \(shown) does not exist",
                hint: "No function matches the given name and argument types. You might need to add explicit type casts.", position: position)
        }
        guard best.count == 1 else {
            throw SluiceError(
                .ambiguousFunction, "function \(shown) is not unique",
                hint: "Could not choose a best candidate function. You might need to add explicit type casts.", position: position)
        }
        return best[0]
    }

    /// Whether two types are the same for resolution (numerics of any precision are `numeric`).
    static func isSameType(_ lhs: DataType, _ rhs: DataType) -> Bool {
        if case .decimal = lhs, case .decimal = rhs { return true }
        return lhs == rhs
    }

    /// The casts PostgreSQL applies to a function's argument without being asked: widening
    /// numerics (smallint → integer → bigint → numeric → real → double precision), a date to a
    /// timestamp, a timestamp to a timestamp with time zone.
    static func isImplicitArgumentCast(_ source: DataType, to target: DataType) -> Bool {
        if let from = TypeCoercion.numericRank(source), let to = TypeCoercion.numericRank(target) { return from <= to }
        if let from = TypeCoercion.dateTimeRank(source), let to = TypeCoercion.dateTimeRank(target) { return from <= to }
        return isSameType(source, target)
    }

    /// `function`'s body bound with `arguments` (already of the parameters' types) in place of
    /// its parameters, cast to its return type; NULL when an argument is NULL, for a function
    /// that RETURNS NULL ON NULL INPUT. The body sees no column of the query calling it.
    mutating func inline(_ function: FunctionDefinition, arguments: [ScalarExpr], clause: String, position: Int?) throws(SluiceError) -> ScalarExpr {
        if inliningFunctions.count >= Self.maximumInliningDepth {
            throw SluiceError(
                .statementTooComplex, "SQL functions nest more than \(Self.maximumInliningDepth) deep",
                hint: "SQL functions are inlined where they are called; call fewer levels of them.", position: position)
        }
        inlinedCallCount += 1
        if inlinedCallCount > Self.maximumInlinedCalls {
            throw SluiceError(
                .statementTooComplex, "the statement inlines more than \(Self.maximumInlinedCalls) calls of SQL functions",
                hint: "Each call of a SQL function is replaced by its body, with the calls in it: call fewer of them.", position: position)
        }
        if inliningFunctions.contains(function.id) {
            throw SluiceError(
                .invalidFunctionDefinition, "function \(function.signature) calls itself",
                detail: "SQL functions are inlined where they are called, so a function may not call itself, directly or through another.",
                position: position)
        }
        let body: Expression
        if let parsed = parsedFunctionBodies[function.id], parsed.text == function.body {
            body = parsed.expression
        } else {
            do {
                body = try Self.functionBodyExpression(function.body)
            } catch {
                throw SluiceError.internalError("the stored body of function \(function.signature) does not parse: \(error.message)")
            }
            parsedFunctionBodies[function.id] = (function.body, body)
        }
        if !referencedRelations.contains(function.id) { referencedRelations.append(function.id) }
        let saved = (inlinedArguments, outerScope, usesOuterReferences)
        inlinedArguments = InlinedArguments(functionName: function.name, names: function.parameterNames, values: arguments)
        outerScope = nil
        inliningFunctions.append(function.id)
        defer {
            (inlinedArguments, outerScope, usesOuterReferences) = saved
            inliningFunctions.removeLast()
        }
        var context = ExpressionContext(scope: Scope(), clause: clause)
        context.allowsSubqueries = false
        var result: ScalarExpr
        do {
            result = try functionResult(try bindExpression(body, &context), function)
        } catch {
            var moved = error
            moved.position = position
            throw moved
        }
        // A strict function's NULL arguments: known now for literals, else checked per row.
        let unknownNulls = arguments.filter { argument in
            if case .literal(let value, _) = argument { return value.isNull } else { return true }
        }
        if function.isStrict, !unknownNulls.isEmpty {
            if unknownNulls.contains(where: { if case .literal = $0 { return true } else { return false } }) {
                return .literal(.null, function.returnType)
            }
            let anyNull = ScalarExpr.or(unknownNulls.map { .isNull($0, negated: false) })
            result = .caseWhen([SluiceExpr.CaseBranch(condition: anyNull, result: .literal(.null, function.returnType))], otherwise: result, function.returnType)
        }
        return result
    }

    /// The bound body as a value of the function's return type: implicitly or, as PostgreSQL
    /// allows in a function's result, by assignment cast; else 42P13.
    func functionResult(_ body: ScalarExpr, _ function: FunctionDefinition) throws(SluiceError) -> ScalarExpr {
        var copy = self
        if let coerced = try? copy.coerce(body, to: function.returnType, position: nil) { return coerced }
        throw SluiceError(
            .invalidFunctionDefinition, "return type mismatch in function declared to return \(function.returnType.sqlName)",
            detail: "Actual return type is \(body.type.sqlName).")
    }

    /// A SQL function's body as one expression: `SELECT expression` (one column, no FROM or any
    /// other clause) or the expression alone.
    static func functionBodyExpression(_ text: String) throws(SluiceError) -> Expression {
        let statements: [Statement]
        do {
            statements = try SQLParser.parse(text)
        } catch {
            // Not a statement: an expression, unless it began as a query.
            let start = text.drop { $0.isWhitespace || $0 == "(" }.prefix(6).lowercased()
            if start.hasPrefix("select") || start.hasPrefix("values") || start.hasPrefix("with") { throw error }
            return try SQLParser.parseExpression(text)
        }
        guard statements.count == 1 else {
            throw SluiceError(.featureNotSupported, "a SQL function's body must be one statement")
        }
        guard case .query(let query) = statements[0].kind else {
            throw SluiceError(.featureNotSupported, "a SQL function's body must be a SELECT of one expression")
        }
        guard query.with == nil, query.orderBy.isEmpty, query.limit == nil, query.offset == nil, case .select(let select) = query.body,
            select.from.isEmpty, select.filter == nil, select.groupBy.isEmpty, select.having == nil, select.distinct == nil,
            select.windows.isEmpty,
            select.projection.count == 1, case .expression(let expression, _) = select.projection[0]
        else {
            throw SluiceError(
                .featureNotSupported, "a SQL function's body must be a SELECT of one expression, without FROM or other clauses",
                hint: "Write the body as 'SELECT expression' or RETURN expression.")
        }
        return expression
    }
}
