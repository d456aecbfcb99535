import SluiceCore
import Testing

@testable import SluiceExpr

@Suite struct PatternMatchingTests {
    @Test func likeWildcardsAndEscapes() throws {
        // Expectations from PostgreSQL 15.
        let cases: [(String, String, Bool)] = [
            ("_", "\\_", true), ("x", "\\_", false), ("ab", "a\\b", true), ("a\\", "a\\\\", true),
            ("é", "_", true), ("abc", "a%%c", true), ("", "%", true), ("a%", "a\\%", true), ("ab", "a\\%", false),
            ("xaby", "%a_y", true), ("a", "a\\", false),
        ]
        let result = try apply("like", (.varchar, cases.map { .string($0.0) }), (.varchar, cases.map { .string($0.1) }))
        #expect(result == cases.map { .bool($0.2) })
    }

    @Test func likeErrorsOnlyWhenTheDanglingEscapeIsReached() throws {
        #expect(try apply("like", text("b"), text("a\\")) == [.bool(false)])
        let error = sluiceError { _ = try apply("like", text("ab"), text("a\\")) }
        #expect(error?.code == SQLState("22025"))
        #expect(error?.message == "LIKE pattern must not end with escape character")
    }

    @Test func likeWithAnEscapeCharacterOfItsOwn() throws {
        // Expectations from PostgreSQL 15: `ESCAPE ''` turns escaping off.
        #expect(try call("like", [text("pg_catalog", "pgxcatalog", "pg_x"), text("pg/_%", "pg/_%", "pg//_x"), text("/", "/", "/")])
            == [.bool(true), .bool(false), .bool(false)])
        #expect(try call("not like", [text("100%", "1000"), text("100!%", "100!%"), text("!", "!")]) == [.bool(false), .bool(true)])
        #expect(try call("like", [text("a\\b"), text("a\\b"), text("")]) == [.bool(true)])
        #expect(try call("ilike", [text("ABC_x"), text("abc#_%"), text("#")]) == [.bool(true)])
        let error = sluiceError { _ = try call("like", [text("a"), text("a"), text("ab")]) }
        #expect(error?.code == SQLState("22025"))
        #expect(error?.message == "invalid escape string")
    }

    @Test func negatedAndCaseInsensitiveVariants() throws {
        #expect(try apply("not like", text("abc", nil), text("a_c", "a")) == [.bool(false), .null])
        #expect(try apply("ilike", text("ÉCOLE", "aXb"), text("école", "AxB")) == [.bool(true), .bool(true)])
        #expect(try apply("not ilike", text("ABC"), text("a%")) == [.bool(false)])
    }

    @Test func regexOperators() throws {
        #expect(try apply("~", text("abc"), text("B")) == [.bool(false)])
        #expect(try apply("~*", text("abc"), text("B")) == [.bool(true)])
        #expect(try apply("!~", text("abc"), text("B")) == [.bool(true)])
        #expect(try apply("!~*", text("abc", nil), text("B", "x")) == [.bool(false), .null])
        let error = sluiceError { _ = try apply("~", text("a"), text("(")) }
        #expect(error?.code == .invalidRegularExpression)
        #expect(error?.message.hasPrefix("invalid regular expression: ") == true)
    }

    @Test func regexpReplaceWithFlagsAndBackReferences() throws {
        #expect(try call("regexp_replace", [text("Hello World"), text("o"), text("0"), text("g")]) == strings("Hell0 W0rld"))
        #expect(try call("regexp_replace", [text("Hello World"), text("O"), text("0"), text("i")]) == strings("Hell0 World"))
        #expect(try call("regexp_replace", [text("abc", nil), text("(b)", "x"), text("[\\1\\&\\\\]", "y")]) == strings("a[bb\\]c", nil))
        #expect(sluiceError { _ = try call("regexp_replace", [text("a"), text("a"), text("b"), text("z")]) }?.message == "invalid regular expression option: \"z\"")
    }

    @Test func regexpMatchReturnsGroups() throws {
        let result = try call("regexp_match", [text("foo123bar456", "abc", "abc"), text("(\\d+)[a-z]+(\\d+)", "x", "b")])
        #expect(result == [.list([.string("123"), .string("456")]), .null, .list([.string("b")])])
    }

    @Test func constantPatternCompilesOnce() throws {
        var cache = RegexCache(caseInsensitive: false)
        let pattern = Array("a+b".utf8)
        for _ in 0 ..< 1000 { _ = try cache.regex(for: pattern[...]) }
        #expect(cache.compilationCount == 1)
        _ = try cache.regex(for: Array("c".utf8)[...])
        _ = try cache.regex(for: pattern[...])
        #expect(cache.compilationCount == 2)
    }
}
