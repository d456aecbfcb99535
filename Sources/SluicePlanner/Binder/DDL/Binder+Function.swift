import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

// CREATE FUNCTION … LANGUAGE SQL and DROP FUNCTION.

extension Binder {
    /// Names that are not functions of the registry but forms the binder reads itself: a SQL
    /// function could never be called by them.
    static let reservedFunctionNames: Set<String> = ["coalesce", "nullif", "greatest", "least", "timezone", "grouping"]

    /// `CREATE [OR REPLACE] FUNCTION … LANGUAGE SQL`: the body is bound now, over the
    /// parameters, so that a body that does not bind, or calls the function itself, fails here.
    mutating func bindCreateFunction(_ create: CreateFunction, sourceText: String) throws(SluiceError) -> PlannedStatement {
        guard let language = create.language else {
            throw SluiceError(.invalidFunctionDefinition, "no language specified", hint: "Write LANGUAGE SQL.")
        }
        guard language == "sql" else {
            throw SluiceError(.featureNotSupported, "functions in language \(language) are not supported", hint: "Only LANGUAGE SQL functions are.")
        }
        try checkCatalog(of: create.name, position: nil)
        let schema = create.name.qualifier.last ?? session.schema
        let name = create.name.name
        try checkSchemaExists(schema)
        try requireSchemaPrivilege(.create, on: schema)
        var names: [String?] = []
        var types: [DataType] = []
        for parameter in create.parameters {
            if let parameterName = parameter.name, names.contains(parameterName) {
                throw SluiceError(.invalidFunctionDefinition, "parameter name \"\(parameterName)\" used more than once")
            }
            names.append(parameter.name)
            // (A parameter's type modifiers are not kept, as in PostgreSQL: numeric(10, 2) is numeric.)
            var type = try parameter.type.resolvedDataType()
            if case .decimal = type { type = .decimal(precision: nil, scale: nil) }
            types.append(type)
        }
        let returnType = try create.returnType.resolvedDataType()
        let signature = "\(name)(\(types.map(\.sqlName).joined(separator: ", ")))"
        if Self.reservedFunctionNames.contains(name) || AggregateKind(name: name) != nil || StatisticalAggregate(name: name) != nil
            || OrderedSetAggregate(name: name) != nil
            || ((try? FunctionRegistry.resolve(name: name, argumentTypes: types)).map { $0.argumentTypes.count == types.count && zip($0.argumentTypes, types).allSatisfy { Self.isSameType($0, $1) } } ?? false)
        {
            throw SluiceError(
                .duplicateFunction, "function \(signature) already exists with same argument types",
                detail: "\(name) is a built-in function.", hint: "Give the function another name, or other argument types.")
        }
        let existing = catalog.functions(named: name, schema: schema).first { $0.parameterTypes == types }
        if let existing {
            guard create.orReplace else {
                throw SluiceError(.duplicateFunction, "function \(signature) already exists with same argument types")
            }
            try requireFunctionOwner(existing)
            if existing.returnType != returnType {
                throw SluiceError(
                    .invalidFunctionDefinition, "cannot change return type of existing function", hint: "Use DROP FUNCTION \(signature) first.")
            }
            for (old, new) in zip(existing.parameterNames, names) where old != nil && old != new {
                throw SluiceError(
                    .invalidFunctionDefinition, "cannot change name of input parameter \"\(old!)\"", hint: "Use DROP FUNCTION \(signature) first.")
            }
            // A materialized view or sink keeps the body it inlined: replacing it would leave
            // them computing the old one. A view binds the function again where it is used.
            // (Also through a view: a materialized view reading it inlined the view's query.)
            let users = catalog.relations.filter { $0.dependencies.contains(existing.id) }
            if let user = (users + users.flatMap { allDependents(of: $0.id) }).first(where: { $0.kind != .view }) {
                throw SluiceError(
                    .dependentObjectsStillExist, "cannot replace function \(signature) because \(user.kind.rawValue) \(user.name) uses it",
                    detail: "The \(user.kind.rawValue) inlined the function's body when it was created.",
                    hint: "Drop the \(user.kind.rawValue) first, or create the function under another name.")
            }
        }
        let body: String
        switch create.body {
        case .string(let text): body = text
        // (RETURN expr is kept as SELECT expr: one form to read back.)
        case .returnExpression(let expression): body = "SELECT \(expression)"
        }
        let owner = if let existing { existing.owner } else { try actingRole().oid }
        var function = FunctionDefinition(
            id: existing?.id ?? catalog.allocateID(), schema: schema, name: name, parameterNames: names, parameterTypes: types,
            returnType: returnType, body: body, definition: sourceText, volatility: create.volatility, isStrict: create.isStrict ?? false,
            owner: owner)
        do throws(SluiceError) {
            let expression = try Self.functionBodyExpression(body)
            if Self.containsSubquery(expression) {
                throw SluiceError(.featureNotSupported, "subqueries in a SQL function's body are not supported")
            }
            let arguments = types.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
            _ = try inline(function, arguments: arguments, clause: "a SQL function's body", position: nil)
        } catch {
            var unplaced = error
            unplaced.position = nil
            throw unplaced
        }
        function.dependencies = referencedRelations.filter { $0 != function.id && catalog.function(id: $0) != nil }
        return .createFunction(function, replacing: existing != nil)
    }

    /// `DROP FUNCTION [IF EXISTS] name [(types)], … [CASCADE|RESTRICT]`: refused while a
    /// relation or another function uses one, unless CASCADE, which drops them too.
    mutating func bindDropFunction(_ drop: DropFunction) throws(SluiceError) -> PlannedStatement {
        var doomed: [FunctionDefinition] = []
        var notices: [String] = []
        for target in drop.targets {
            guard let function = try functionToDrop(target, ifExists: drop.ifExists, notices: &notices) else { continue }
            try requireFunctionOwner(function)
            if !doomed.contains(where: { $0.id == function.id }) { doomed.append(function) }
        }
        guard !doomed.isEmpty else { return .nothing(tag: "DROP_FUNCTION", notice: notices.first) }
        let (functions, relations) = try functionDrop(doomed, cascade: drop.cascade)
        return .dropFunctions(functions, relations: relations)
    }

    /// What dropping functions `named` takes with it: the functions that call them and the
    /// relations that use any of those, dependents first; without `cascade`, 2BP01 if any.
    func functionDrop(_ named: [FunctionDefinition], cascade: Bool) throws(SluiceError) -> (functions: [FunctionDefinition], relations: [RelationDefinition]) {
        let doomed = named
        // Functions that call a doomed one (their dependencies hold every function they reach).
        var callers: [FunctionDefinition] = []
        for function in named {
            for caller in catalog.functionDependents(of: function.id) where !doomed.contains(where: { $0.id == caller.id }) && !callers.contains(where: { $0.id == caller.id }) {
                callers.append(caller)
            }
        }
        let functionIDs = Set((named + callers).map(\.id))
        var relations: [RelationDefinition] = []
        for relation in catalog.relations where !Set(relation.dependencies).isDisjoint(with: functionIDs) {
            for dependent in [relation] + allDependents(of: relation.id) where !relations.contains(where: { $0.id == dependent.id }) {
                relations.append(dependent)
            }
        }
        if !cascade && (!callers.isEmpty || !relations.isEmpty) {
            let function = named[0]
            let lines = callers.map { "function \($0.signature) depends on function \(function.signature)" }
                + relations.map { "\($0.kind.rawValue) \($0.name) depends on function \(function.signature)" }
            throw SluiceError(
                .dependentObjectsStillExist, "cannot drop function \(function.signature) because other objects depend on it",
                detail: lines.joined(separator: "\n"), hint: "Use DROP ... CASCADE to drop the dependent objects too.")
        }
        for relation in relations { try requireOwner(relation) }
        // Dependents first: a relation is made after what it reads.
        relations.sort { $0.id > $1.id }
        return (callers + named, relations)
    }

    /// The function `target` names: by its parameter types when given, else the one function of
    /// its name (42725 when there are several). Nil, with a notice, for IF EXISTS of none.
    private func functionToDrop(_ target: DropFunction.Target, ifExists: Bool, notices: inout [String]) throws(SluiceError) -> FunctionDefinition? {
        let schemas = target.name.qualifier.last.map { [$0] } ?? (session.schema == "public" ? ["public"] : [session.schema, "public"])
        var found: [FunctionDefinition] = []
        for schema in schemas where found.isEmpty { found = catalog.functions(named: target.name.name, schema: schema) }
        let shown: String
        if let parameterTypes = target.parameterTypes {
            var types: [DataType] = []
            for typeName in parameterTypes { types.append(try typeName.resolvedDataType()) }
            found = found.filter { $0.parameterTypes.count == types.count && zip($0.parameterTypes, types).allSatisfy { Self.isSameType($0, $1) } }
            shown = "function \(target.name.name)(\(types.map(\.sqlName).joined(separator: ", ")))"
        } else {
            shown = "function \(target.name.name)()"
            if found.count > 1 {
                throw SluiceError(
                    .ambiguousFunction, "function name \"\(target.name.name)\" is not unique",
                    hint: "Specify the argument list to select the function unambiguously.")
            }
        }
        guard let function = found.first else {
            let message = target.parameterTypes == nil ? "could not find a function named \"\(target.name.name)\"" : "\(shown) does not exist"
            if ifExists {
                notices.append("\(target.parameterTypes == nil ? "function \(target.name.name)()" : shown) does not exist, skipping")
                return nil
            }
            throw SluiceError(.undefinedFunction, message)
        }
        return function
    }

    /// Fails with 42501 unless the acting role owns `function` (or is a superuser).
    func requireFunctionOwner(_ function: FunctionDefinition) throws(SluiceError) {
        let role = try actingRole()
        guard !role.superuser, !catalog.privilegeRoles(of: role).contains(function.owner) else { return }
        throw SluiceError(.insufficientPrivilege, "must be owner of function \(function.name)")
    }
}
