import SluiceCore
import Testing

@testable import SluiceSQL

/// The single statement of `sql`.
func parseOne(_ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Statement {
    let statements = try SQLParser.parse(sql)
    #expect(statements.count == 1, sourceLocation: sourceLocation)
    return try #require(statements.first, sourceLocation: sourceLocation)
}

/// The query of a single query statement.
func parseQuery(_ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Query {
    let statement = try parseOne(sql, sourceLocation: sourceLocation)
    guard case .query(let query) = statement.kind else {
        Issue.record("not a query: \(statement)", sourceLocation: sourceLocation)
        throw SluiceError(.internalError, "not a query")
    }
    return query
}

/// The error `sql` fails with.
func parseError(_ sql: String, sourceLocation: SourceLocation = #_sourceLocation) -> SluiceError? {
    do {
        let statements = try SQLParser.parse(sql)
        Issue.record("parsed without error: \(statements)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The expression printed fully parenthesized, to check grouping.
func grouping(_ sql: String) throws -> String {
    try SQLParser.parseExpression(sql).description
}

func column(_ parts: String...) -> Expression { Expression(.column(parts)) }
func integer(_ value: Int64) -> Expression { Expression(.literal(.integer(value))) }
