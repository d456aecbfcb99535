/// `CREATE [OR REPLACE] FUNCTION name ([argname] argtype, …) RETURNS type LANGUAGE SQL
/// {AS 'body' | RETURN expression} [IMMUTABLE|STABLE|VOLATILE] [RETURNS NULL ON NULL INPUT|…]`
/// (PostgreSQL's and RisingWave's SQL functions). The options may come in any order.
package struct CreateFunction: Hashable, Sendable {
    package var name: ObjectName
    package var orReplace: Bool
    package var parameters: [FunctionParameter]
    package var returnType: TypeName
    /// The `LANGUAGE`, lower-cased; nil when not written.
    package var language: String?
    package var body: FunctionBody
    package var volatility: FunctionVolatility?
    /// `RETURNS NULL ON NULL INPUT` (or `STRICT`): true; `CALLED ON NULL INPUT`: false; nil when
    /// not written (called).
    package var isStrict: Bool?

    package init(
        name: ObjectName, orReplace: Bool = false, parameters: [FunctionParameter], returnType: TypeName, language: String? = "sql",
        body: FunctionBody, volatility: FunctionVolatility? = nil, isStrict: Bool? = nil
    ) {
        self.name = name
        self.orReplace = orReplace
        self.parameters = parameters
        self.returnType = returnType
        self.language = language
        self.body = body
        self.volatility = volatility
        self.isStrict = isStrict
    }
}

/// One parameter of a function: `[name] type`.
package struct FunctionParameter: Hashable, Sendable {
    /// nil for an unnamed parameter, read in the body as `$n` only.
    package var name: String?
    package var type: TypeName

    package init(name: String? = nil, type: TypeName) {
        self.name = name
        self.type = type
    }
}

/// A SQL function's body as written.
package enum FunctionBody: Hashable, Sendable {
    /// `AS 'SELECT $1 + 1'` or `AS $$ … $$`: the string's contents.
    case string(String)
    /// `RETURN expression` (SQL-standard body).
    case returnExpression(Expression)
}

/// `IMMUTABLE`, `STABLE` or `VOLATILE` (`pg_proc.provolatile`'s `i`, `s`, `v`).
package enum FunctionVolatility: String, Hashable, Sendable, Codable {
    case immutable = "IMMUTABLE"
    case stable = "STABLE"
    case volatile = "VOLATILE"
}

/// `DROP FUNCTION [IF EXISTS] name [(argtypes)], … [CASCADE|RESTRICT]`.
package struct DropFunction: Hashable, Sendable {
    /// One function named: its name and, when written, its parameter types.
    package struct Target: Hashable, Sendable {
        package var name: ObjectName
        /// nil when no parenthesized list was written (the name alone must pick one function).
        package var parameterTypes: [TypeName]?

        package init(name: ObjectName, parameterTypes: [TypeName]? = nil) {
            self.name = name
            self.parameterTypes = parameterTypes
        }
    }

    package var ifExists: Bool
    package var targets: [Target]
    package var cascade: Bool

    package init(ifExists: Bool = false, targets: [Target], cascade: Bool = false) {
        self.ifExists = ifExists
        self.targets = targets
        self.cascade = cascade
    }
}
