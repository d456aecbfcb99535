import SluiceCore
import Testing

@testable import SluiceSQL

/// `?` placeholders (JDBC's, Trino's) as positional parameters, numbered left to right.
@Suite struct QuestionMarkParameterTests {
    @Test func questionMarksAreNumberedLeftToRight() throws {
        let statement = try #require(try SQLParser.parse("SELECT ? + ?, '?' FROM t WHERE a = ? -- ?", questionMarkParameters: true).first)
        #expect(statement.description == (try SQLParser.parse("SELECT $1 + $2, '?' FROM t WHERE a = $3")[0]).description)
        // A subquery the parser may try twice keeps its numbers.
        let nested = try SQLParser.parse("SELECT * FROM ((SELECT ?)) AS s WHERE s.x = ?", questionMarkParameters: true)[0]
        #expect(nested.description == (try SQLParser.parse("SELECT * FROM ((SELECT $1)) AS s WHERE s.x = $2")[0]).description)
    }

    @Test func withoutTheOptionAQuestionMarkIsNoParameter() {
        #expect(throws: SluiceError.self) { try SQLParser.parse("SELECT ?") }
    }
}
