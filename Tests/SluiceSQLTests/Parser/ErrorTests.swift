import SluiceCore
import Testing

@testable import SluiceSQL

@Suite struct ErrorTests {
    @Test(arguments: [
        ("SELEC 1", "syntax error at or near \"SELEC\"", 1),
        ("SELECT * FROM", "syntax error at end of input", 14),
        ("SELECT * FROM;", "syntax error at or near \";\"", 14),
        ("SELECT (1", "syntax error at end of input", 10),
        ("SELECT 1 FROM t WHERE", "syntax error at end of input", 22),
        ("SELECT a b c FROM t", "syntax error at or near \"c\"", 12),
        ("SELECT * FROM t WHERE a = = 1", "syntax error at or near \"=\"", 27),
        ("CREATE TABLE t (a int,)", "syntax error at or near \")\"", 23),
        ("SELECT 1; SELECT FROM", "syntax error at or near \"FROM\"", 18),
        ("select 'é' from where", "syntax error at or near \"where\"", 17),
        ("INSERT t VALUES (1)", "syntax error at or near \"t\"", 8),
    ])
    func syntaxErrors(sql: String, message: String, position: Int) throws {
        let error = try #require(parseError(sql))
        #expect(error.code == .syntaxError)
        #expect(error.message == message)
        #expect(error.position == position)
    }

    @Test func unterminatedString() throws {
        let error = try #require(parseError("SELECT 'abc"))
        #expect(error == SluiceError(.syntaxError, "unterminated quoted string at or near \"'abc\"", position: 8))
    }

    @Test func zeroLengthIdentifier() throws {
        let error = try #require(parseError("SELECT \"\" FROM t"))
        #expect(error.message == "zero-length delimited identifier at or near \"\"\"\"")
        #expect(error.position == 8)
    }

    @Test func unknownType() throws {
        let statement = try parseOne("CREATE TABLE t (a foo)")
        guard case .createTable(let table) = statement.kind else { return }
        #expect(throws: SluiceError(.undefinedObject, "type \"foo\" does not exist", position: 19)) {
            _ = try table.columns[0].type?.resolvedDataType()
        }
    }

    @Test func deepNestingIsTooComplexNotACrash() throws {
        for (open, close) in [("(", ")"), ("- ", ""), ("NOT ", ""), ("ARRAY[", "]")] {
            let sql = "SELECT " + String(repeating: open, count: 100_000) + "1" + String(repeating: close, count: 100_000)
            let error = try #require(parseError(sql))
            #expect(error.code == .statementTooComplex)
            #expect(error.message == "stack depth limit exceeded")
        }
        let subqueries = String(repeating: "SELECT * FROM (", count: 5_000) + "SELECT 1" + String(repeating: ")", count: 5_000)
        #expect(parseError(subqueries)?.code == .statementTooComplex)
    }

    @Test func moderateNestingParses() throws {
        let sql = "SELECT " + String(repeating: "(", count: 300) + "1" + String(repeating: ")", count: 300)
        #expect(try SQLParser.parse(sql).count == 1)
    }
}
