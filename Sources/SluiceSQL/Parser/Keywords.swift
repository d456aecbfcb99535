/// Keyword classes of the grammar, after PostgreSQL's `kwlist.h`.
enum Keywords {
    /// Reserved words: never a column name, table name or alias unless quoted.
    static let reserved: Set<String> = [
        "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "both", "case", "cast", "check",
        "collate", "column", "constraint", "create", "current_catalog", "current_date", "current_role", "current_time",
        "current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except",
        "false", "fetch", "for", "foreign", "from", "grant", "group", "having", "in", "initially", "intersect", "into",
        "lateral", "leading", "limit", "localtime", "localtimestamp", "not", "null", "offset", "on", "only", "or",
        "order", "placing", "primary", "references", "returning", "select", "session_user", "some", "symmetric", "table",
        "then", "to", "trailing", "true", "union", "unique", "user", "using", "variadic", "when", "where", "window", "with",
    ]

    /// Words that may name functions and types but not columns or tables (`type_func_name_keyword`).
    static let typeOrFunctionOnly: Set<String> = [
        "authorization", "binary", "collation", "concurrently", "cross", "current_schema", "freeze", "full", "ilike",
        "inner", "is", "isnull", "join", "left", "like", "natural", "notnull", "outer", "overlaps", "right", "similar",
        "tablesample", "verbose",
    ]

    /// Words that end an expression and so cannot be an alias written without `AS`.
    static let notImplicitAlias: Set<String> = reserved.union(typeOrFunctionOnly).union([
        "emit", "filter", "over", "escape", "within", "format", "at", "between", "nulls", "rows", "range", "groups", "asof",
    ])

    /// Column-name keywords (`col_name_keyword`) the parser does not read as special forms, so a
    /// following parenthesis would otherwise make them a function call.
    static let notFunctionName: Set<String> = ["values", "none", "setof", "inout", "out", "between"]

    /// Words that may not be a column reference or bare name in an expression.
    static let notColumnName: Set<String> = reserved.union(typeOrFunctionOnly)

    /// Words a printer must quote so that they read back as identifiers.
    static let quotedWhenPrinted: Set<String> = notImplicitAlias.union(["interval", "timestamp", "date", "time", "row"])

    static func isReserved(_ word: String) -> Bool { reserved.contains(word) }
}
