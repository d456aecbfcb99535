import SluiceCore

/// Entry points of the SQL parser.
package enum SQLParser {
    /// The function ksqlDB's `a + b` becomes when neither side is a string literal: `||` for
    /// strings, `+` otherwise, as the binder finds the operands' types.
    package static let ksqlPlus = "ksql_plus"

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

    /// ``parse(_:)`` with `?` as a positional parameter (`$1`, `$2`, … left to right), as JDBC
    /// and Trino write them; `?` is then no operator.
    package static func parse(_ sql: String, questionMarkParameters: Bool) throws(SluiceError) -> [Statement] {
        var parser = try Parser(sql, questionMarkParameters: questionMarkParameters)
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

/// A fuzzing entry point for a libFuzzer driver: parses arbitrary bytes, which must return or
/// throw a `SluiceError`; what parses is printed and parsed again, and must still parse.
package enum SQLFuzz {
    /// Printing recurses without a stack guard, so only modestly nested input is reprinted.
    static let maximumReprintedNesting = 100

    package static func run(_ bytes: [UInt8]) {
        let sql = String(decoding: bytes, as: UTF8.self)
        guard let statements = try? SQLParser.parse(sql) else { return }
        guard nesting(of: bytes) <= maximumReprintedNesting else { return }
        for statement in statements {
            let printed = statement.description
            do {
                let reparsed = try SQLParser.parse(printed)
                precondition(reparsed == [statement], "reprinted statement differs: \(printed)")
            } catch {
                preconditionFailure("reprinted statement does not parse: \(printed): \(error)")
            }
        }
    }

    /// The deepest nesting of brackets and prefix operators, roughly.
    private static func nesting(of bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        var prefixRun = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: ")"), UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "~"), UInt8(ascii: "@"):
                prefixRun += 1
                deepest = max(deepest, depth + prefixRun)
                continue
            default:
                break
            }
            if byte != UInt8(ascii: " ") { prefixRun = 0 }
        }
        return deepest
    }
}

/// Which SQL a session speaks: Sluice's own (RisingWave's and PostgreSQL's), or Flink SQL
/// lowered onto it (``FlinkDialect``). One parser and one engine beneath both.
package enum SQLDialect: String, Sendable, CaseIterable {
    case native = "risingwave"
    case flink

    /// The dialect a `sql_dialect` setting names (`risingwave`, `postgres` or `flink`).
    package init?(setting: String) {
        switch setting.lowercased() {
        case "risingwave", "postgres", "postgresql", "native", "default": self = .native
        case "flink": self = .flink
        default: return nil
        }
    }
}

extension SQLParser {
    /// Parses every statement of `sql` in `dialect`.
    package static func parse(_ sql: String, dialect: SQLDialect, questionMarkParameters: Bool = false) throws(SluiceError) -> [Statement] {
        let statements = try parse(sql, questionMarkParameters: questionMarkParameters)
        switch dialect {
        case .native: return statements
        case .flink: return try statements.map { (statement) throws(SluiceError) in try FlinkDialect.lower(statement) }
        }
    }
}
