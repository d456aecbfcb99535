import SluiceCore
import Testing

@testable import SluiceSQL

@Suite struct LexerTests {
    private func tokens(_ sql: String) throws -> [Token] {
        var lexer = Lexer(sql)
        return try lexer.tokenize()
    }

    private func kindsAndTexts(_ sql: String) throws -> [String] {
        try tokens(sql).dropLast().map { "\($0.kind):\($0.text)" }
    }

    @Test func foldsUnquotedIdentifiersAndKeepsQuotedOnes() throws {
        #expect(try kindsAndTexts(#"SELECT Foo, "Bar""x", `3ds`"#) == [
            "word:select", "word:foo", "symbol:,", "quotedIdentifier:Bar\"x", "symbol:,", "quotedIdentifier:3ds",
        ])
    }

    @Test func numbers() throws {
        #expect(try kindsAndTexts("1 1.5 .5 1e10 2.5E-3 1.") == [
            "integer:1", "decimal:1.5", "decimal:.5", "decimal:1e10", "decimal:2.5E-3", "decimal:1.",
        ])
    }

    @Test func strings() throws {
        #expect(try kindsAndTexts("'it''s' E'a\\tb\\x41\\101\\u00e9' $$a'b$$ $q$x$$y$q$ U&'d\\0061t\\+000061'") == [
            "string:it's", "string:a\tbAAé", "string:a'b", "string:x$$y", "string:data",
        ])
        #expect(try kindsAndTexts("'a'\n'b' 'c' 'd'") == ["string:ab", "string:c", "string:d"])
    }

    @Test func parametersAndOperators() throws {
        let lexed = try tokens("$1 :: -> ->> #> #>> @> <@ <> != <= >= || ~* !~ !~* && ? >> <<").dropLast()
        #expect(lexed.first?.kind == .parameter)
        #expect(lexed.map(\.text) == [
            "1", "::", "->", "->>", "#>", "#>>", "@>", "<@", "<>", "!=", "<=", ">=", "||", "~*", "!~", "!~*", "&&", "?", ">>", "<<",
        ])
    }

    @Test func skipsNestedCommentsAndLineComments() throws {
        #expect(try kindsAndTexts("a /* x /* y */ z */ b -- c\n d") == ["word:a", "word:b", "word:d"])
    }

    @Test func positionsCountCharactersNotBytes() throws {
        let lexed = try tokens("SELECT 'é', x")
        #expect(lexed.map(\.position) == [1, 8, 11, 13, 14])
        #expect(lexed.map(\.start) == [0, 7, 11, 13, 14])
    }

    @Test func unterminatedForms() {
        #expect(throws: SluiceError(.syntaxError, "unterminated quoted string at or near \"'abc\"", position: 8)) {
            _ = try tokens("SELECT 'abc")
        }
        #expect(throws: SluiceError(.syntaxError, "unterminated quoted identifier at or near \"\"ab\"", position: 8)) {
            _ = try tokens("SELECT \"ab")
        }
        #expect(throws: SluiceError(.syntaxError, "zero-length delimited identifier at or near \"\"\"\"", position: 8)) {
            _ = try tokens("SELECT \"\"")
        }
        #expect(throws: SluiceError(.syntaxError, "unterminated /* comment at or near \"/* x\"", position: 3)) {
            _ = try tokens("a /* x")
        }
        #expect(throws: SluiceError(.syntaxError, "unterminated dollar-quoted string at or near \"$$x\"", position: 1)) {
            _ = try tokens("$$x")
        }
    }
}
