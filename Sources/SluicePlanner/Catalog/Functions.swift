import SluiceCore
import SluiceSQL

/// A SQL function (`CREATE FUNCTION … LANGUAGE SQL`): a named expression over its parameters,
/// inlined where it is called (its body bound with the arguments in place of the parameters,
/// then cast to the return type). Kept with the catalog and saved in its file.
package struct FunctionDefinition: Sendable, Equatable, Codable {
    /// From the catalog's ids (shared with relations): also its `pg_proc.oid`, and what the
    /// relations and functions that call it list among their dependencies.
    package var id: Int
    package var schema: String
    package var name: String
    /// The parameters' names (nil for an unnamed one, read as `$n` only).
    package var parameterNames: [String?]
    package var parameterTypes: [DataType]
    package var returnType: DataType
    /// The body as one SQL expression over the parameters (the `SELECT` of `AS 'SELECT …'`
    /// taken away), parsed again where the function is called.
    package var body: String
    /// The statement that created it, as written (SHOW CREATE FUNCTION's text).
    package var definition: String
    /// `IMMUTABLE`, `STABLE` or `VOLATILE` as written (nil: VOLATILE, PostgreSQL's default).
    package var volatility: FunctionVolatility?
    /// `RETURNS NULL ON NULL INPUT`: a call with a NULL argument is NULL without its body.
    package var isStrict: Bool
    /// The ids of the SQL functions its body calls, directly or through others.
    package var dependencies: [Int]
    /// The role that created it (`pg_roles.oid`), who alone (with superusers) may replace or drop it.
    package var owner: Int

    package init(
        id: Int, schema: String, name: String, parameterNames: [String?], parameterTypes: [DataType], returnType: DataType, body: String,
        definition: String, volatility: FunctionVolatility? = nil, isStrict: Bool = false, dependencies: [Int] = [], owner: Int
    ) {
        self.id = id
        self.schema = schema
        self.name = name
        self.parameterNames = parameterNames
        self.parameterTypes = parameterTypes
        self.returnType = returnType
        self.body = body
        self.definition = definition
        self.volatility = volatility
        self.isStrict = isStrict
        self.dependencies = dependencies
        self.owner = owner
    }

    /// `name(type, …)`, as PostgreSQL's messages show a function.
    package var signature: String {
        "\(name)(\(parameterTypes.map(\.sqlName).joined(separator: ", ")))"
    }

    /// `[name ]type, …`, as `pg_get_function_arguments` and SHOW FUNCTIONS show them.
    package var argumentsText: String {
        zip(parameterNames, parameterTypes).map { name, type in (name.map { quoteIdentifierIfNeeded($0) + " " } ?? "") + type.sqlName }
            .joined(separator: ", ")
    }
}

extension Catalog {
    /// Every SQL function, in creation order.
    package var functions: [FunctionDefinition] {
        functionState.withLock { $0.values.sorted { $0.id < $1.id } }
    }

    /// The SQL functions called `name` in `schema`, in creation order.
    package func functions(named name: String, schema: String) -> [FunctionDefinition] {
        functionState.withLock { $0.values.filter { $0.name == name && $0.schema == schema }.sorted { $0.id < $1.id } }
    }

    package func function(id: Int) -> FunctionDefinition? {
        functionState.withLock { $0[id] }
    }

    /// Adds `function`, or puts it in place of the function with its id; fails with 42723 if
    /// another function of its schema has its name and parameter types.
    package func addFunction(_ function: FunctionDefinition) throws(SluiceError) {
        try functionState.withLock { (functions: inout [Int: FunctionDefinition]) throws(SluiceError) in
            if functions.values.contains(where: {
                $0.id != function.id && $0.schema == function.schema && $0.name == function.name && $0.parameterTypes == function.parameterTypes
            }) {
                throw SluiceError(.duplicateFunction, "function \(function.signature) already exists with same argument types")
            }
            functions[function.id] = function
        }
        reserveIDs(below: function.id + 1)
        bumpGeneration()
    }

    package func removeFunction(id: Int) {
        functionState.withLock { _ = $0.removeValue(forKey: id) }
        bumpGeneration()
    }

    /// The functions a catalog file held.
    package func restoreFunctions(_ functions: [FunctionDefinition]) {
        functionState.withLock { state in
            for function in functions { state[function.id] = function }
        }
        if let last = functions.map(\.id).max() { reserveIDs(below: last + 1) }
        bumpGeneration()
    }

    /// The functions whose bodies call function `id`, directly or not.
    package func functionDependents(of id: Int) -> [FunctionDefinition] {
        functions.filter { $0.dependencies.contains(id) }
    }
}
