import SluiceCore
import Testing

@testable import SluiceSQL

@Suite struct CopyTests {
    private func copy(_ sql: String) throws -> Copy {
        guard case .copy(let copy) = try parseOne(sql).kind else { throw SluiceError(.syntaxError, "not a COPY") }
        return copy
    }

    @Test func parenthesizedOptions() throws {
        let parsed = try copy("COPY s.t (a, \"B\") FROM STDIN WITH (FORMAT csv, HEADER, DELIMITER ';', NULL '', FORCE_NULL (a), header_x -1)")
        #expect(parsed.relation == .table(ObjectName(["s", "t"]), columns: ["a", "B"]))
        #expect(parsed.isFrom && parsed.endpoint == .client)
        #expect(parsed.options == [
            CopyOption(name: "format", argument: .text("csv")), CopyOption(name: "header"),
            CopyOption(name: "delimiter", argument: .text(";")), CopyOption(name: "null", argument: .text("")),
            CopyOption(name: "force_null", argument: .columns(["a"])), CopyOption(name: "header_x", argument: .text("-1")),
        ])
        #expect(parsed.description == "COPY s.t (a, \"B\") FROM STDIN (format 'csv', header, delimiter ';', null '', force_null (a), header_x '-1')")
    }

    @Test func oldOptionWords() throws {
        let parsed = try copy("copy t from stdin with csv header delimiter as ',' null 'x' force not null a, b")
        #expect(parsed.options == [
            CopyOption(name: "format", argument: .text("csv")), CopyOption(name: "header", argument: .text("true")),
            CopyOption(name: "delimiter", argument: .text(",")), CopyOption(name: "null", argument: .text("x")),
            CopyOption(name: "force_not_null", argument: .columns(["a", "b"])),
        ])
        #expect(try copy("COPY BINARY t TO STDOUT").options == [CopyOption(name: "format", argument: .text("binary"))])
        #expect(try copy("COPY t TO STDOUT CSV FORCE QUOTE *").options.last == CopyOption(name: "force_quote", argument: .star))
    }

    @Test func queriesFilesAndPrograms() throws {
        let query = try copy("COPY (SELECT 1 AS x) TO STDOUT (FORMAT csv)")
        guard case .query = query.relation else { Issue.record("not a query"); return }
        #expect(!query.isFrom)
        #expect(try copy("COPY t FROM '/tmp/x.csv'").endpoint == .file("/tmp/x.csv"))
        #expect(try copy("COPY t TO PROGRAM 'gzip'").endpoint == .program("gzip"))
        #expect(throws: SluiceError.self) { try SQLParser.parse("COPY (SELECT 1) FROM STDIN") }
        #expect(throws: SluiceError.self) { try SQLParser.parse("COPY t FROM STDOUT") }
        #expect(throws: SluiceError.self) { try SQLParser.parse("COPY t TO STDOUT WITH") }
    }
}
