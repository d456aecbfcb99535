import SluiceCore
import Testing

@testable import SluiceSQL

@Suite struct RoundTripTests {
    /// parse → print → parse gives an equal statement, and printing is stable.
    @Test(arguments: Corpus.all)
    func roundTrips(sql: String) throws {
        let statements = try SQLParser.parse(sql)
        for statement in statements {
            let printed = statement.description
            let reparsed = try SQLParser.parse(printed)
            #expect(reparsed == [statement], "printed: \(printed)")
            #expect(reparsed.first?.description == printed)
        }
    }

    @Test func printsReadableSQL() throws {
        #expect(try parseOne("select a+1 as x from t where b>2").description == "SELECT a + 1 AS x FROM t WHERE b > 2")
        #expect(try parseOne("select \"Mixed\", \"select\" from t").description == "SELECT \"Mixed\", \"select\" FROM t")
        #expect(try parseOne("select 'it''s'").description == "SELECT 'it''s'")
    }
}
