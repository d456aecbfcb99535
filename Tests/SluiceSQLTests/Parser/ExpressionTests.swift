import SluiceCore
import Testing

@testable import SluiceSQL

@Suite struct ExpressionTests {
    @Test(arguments: [
        ("1 + 2 * 3", "1 + (2 * 3)"),
        ("(1 + 2) * 3", "(1 + 2) * 3"),
        ("a OR b AND NOT c", "a OR (b AND (NOT c))"),
        ("NOT a = b", "NOT (a = b)"),
        ("-x::int", "-(x::int)"),
        ("- 2 ^ 2", "(-2) ^ 2"),
        ("a = b IS NULL", "(a = b) IS NULL"),
        ("a - b - c", "(a - b) - c"),
        ("a || b LIKE c", "(a || b) LIKE c"),
        ("a < b + 1", "a < (b + 1)"),
        ("a BETWEEN 1 AND 2 AND b", "(a BETWEEN 1 AND 2) AND b"),
        ("x::int::text", "(x::int)::text"),
        ("a ~ b = c", "(a ~ b) = c"),
        ("a IS NOT DISTINCT FROM b + 1", "a IS NOT DISTINCT FROM (b + 1)"),
        ("-a COLLATE \"C\"", "(-a) COLLATE \"C\""),
        ("x[1]::int", "(x[1])::int"),
        ("a->'b'->>'c'", "(a -> 'b') ->> 'c'"),
        ("a NOT IN (1, 2) OR b", "(a NOT IN (1, 2)) OR b"),
        ("a * -1", "a * (-1)"),
        ("a OPERATOR(pg_catalog.~) 'x' COLLATE pg_catalog.default", "a ~ ('x' COLLATE pg_catalog.\"default\")"),
    ])
    func precedence(sql: String, expected: String) throws {
        #expect(try grouping(sql) == expected)
    }

    @Test func literals() throws {
        #expect(try SQLParser.parseExpression("9223372036854775807").node == .literal(.integer(Int64.max)))
        #expect(try SQLParser.parseExpression("9223372036854775808").node == .literal(.numeric("9223372036854775808")))
        #expect(try SQLParser.parseExpression("-9223372036854775808").node == .literal(.integer(Int64.min)))
        #expect(try SQLParser.parseExpression("1.5e3").node == .literal(.numeric("1.5e3")))
        #expect(try SQLParser.parseExpression("'a'").node == .literal(.string("a")))
        #expect(try SQLParser.parseExpression("TRUE").node == .literal(.boolean(true)))
        #expect(try SQLParser.parseExpression("null").node == .literal(.null))
        #expect(try SQLParser.parseExpression("$3").node == .parameter(3))
    }

    @Test func intervals() throws {
        #expect(try SQLParser.parseExpression("INTERVAL '15 SECONDS'").node == .interval("15 SECONDS", nil))
        #expect(try SQLParser.parseExpression("INTERVAL '5' SECOND").node == .interval("5", IntervalQualifier(leading: "second")))
        #expect(
            try SQLParser.parseExpression("INTERVAL '1:2' HOUR TO MINUTE").node
                == .interval("1:2", IntervalQualifier(leading: "hour", trailing: "minute")))
        #expect(try SQLParser.parseExpression("TIMESTAMP '2024-01-01'").node == .typedLiteral(TypeName("timestamp"), "2024-01-01"))
    }

    @Test func positionsPointAtTheStartOfEachNode() throws {
        let expression = try SQLParser.parseExpression("a + foo(b)")
        guard case .binary(let left, .plus, let right) = expression.node else {
            Issue.record("unexpected \(expression)")
            return
        }
        #expect(expression.position.value == 1)
        #expect(left.position.value == 1)
        #expect(right.position.value == 5)
    }

    @Test func functionCalls() throws {
        let expression = try SQLParser.parseExpression("pg_catalog.count(DISTINCT x ORDER BY y DESC) FILTER (WHERE x > 0) OVER w")
        #expect(
            expression.node
                == .function(
                    FunctionCall(
                        name: ObjectName(["pg_catalog", "count"]), arguments: [column("x")], isDistinct: true,
                        orderBy: [OrderByItem(expression: column("y"), ascending: false)],
                        filter: Expression(.binary(column("x"), .greater, integer(0))), over: .named("w"))))
        #expect(try SQLParser.parseExpression("count(*)").node == .function(FunctionCall(name: ObjectName("count"), isStar: true)))
    }

    @Test func specialForms() throws {
        #expect(try SQLParser.parseExpression("EXTRACT(year FROM ts)").node == .extract(field: "year", from: column("ts")))
        #expect(try SQLParser.parseExpression("substring(s, 1, 2)").node == .function(FunctionCall(name: ObjectName("substring"), arguments: [column("s"), integer(1), integer(2)])))
        #expect(try SQLParser.parseExpression("SUBSTRING(s FROM 1 FOR 2)").node == .substring(column("s"), from: integer(1), for: integer(2)))
        #expect(try SQLParser.parseExpression("POSITION('a' IN s)").node == .position(Expression(.literal(.string("a"))), in: column("s")))
        #expect(try SQLParser.parseExpression("TRIM(BOTH 'x' FROM s)").node == .trim(column("s"), side: .both, characters: Expression(.literal(.string("x")))))
        #expect(try SQLParser.parseExpression("CURRENT_TIMESTAMP").node == .valueFunction(.currentTimestamp))
        #expect(try SQLParser.parseExpression("current_schema()").node == .function(FunctionCall(name: ObjectName("current_schema"))))
        #expect(try SQLParser.parseExpression("x = ANY (ARRAY[1])").node == .quantified(column("x"), .equal, .any, Expression(.array([integer(1)]))))
        #expect(try SQLParser.parseExpression("a ~~ 'x%'").node == .like(column("a"), pattern: Expression(.literal(.string("x%"))), escape: nil, caseInsensitive: false, negated: false))
    }

    @Test func subqueriesInParentheses() throws {
        #expect(try grouping("((SELECT 1) + 1)") == "(SELECT 1) + 1")
        #expect(try grouping("((SELECT 1))") == "(SELECT 1)")
        #expect(try grouping("x IN ((SELECT 1), 2)") == "x IN ((SELECT 1), 2)")
    }

    @Test func operatorInAnotherSchemaIsCustom() throws {
        #expect(try SQLParser.parseExpression("a OPERATOR(myschema.+) b").node == .binary(column("a"), .custom("OPERATOR(myschema.+)"), column("b")))
    }
}
