import SluiceCore
import Testing

@testable import SluiceExpr

/// Expectations come from PostgreSQL 15 in a C.UTF-8 database.
@Suite struct StringFunctionsTests {
    @Test func caseMappingIsUnicodeAware() throws {
        #expect(try call("upper", [text("héllo wörld", nil, "abc")]) == strings("HÉLLO WÖRLD", nil, "ABC"))
        #expect(try call("lower", [text("ÀBC", nil)]) == strings("àbc", nil))
        #expect(try call("initcap", [text("hi THERE foo_bar 3rd éclair", nil)]) == strings("Hi There Foo_Bar 3rd Éclair", nil))
    }

    @Test func lengthsCountCharactersAndBytes() throws {
        #expect(try call("length", [text("héllo", nil, "")]) == [.int32(5), .null, .int32(0)])
        #expect(try call("char_length", [text("日本語")]) == [.int32(3)])
        #expect(try call("octet_length", [text("héllo", nil)]) == [.int32(6), .null])
    }

    @Test func substrCutsByCharacters() throws {
        #expect(try call("substr", [text("héllo", "héllo", "abc", nil), int32(2, 0, 2, 1), int32(3, 3, 0, 1)]) == strings("éll", "hé", "", nil))
        #expect(try call("substr", [text("héllo", "héllo"), int32(-2, 3)]) == strings("héllo", "llo"))
        let error = sluiceError { _ = try call("substr", [text("abc"), int32(1), int32(-1)]) }
        #expect(error?.code == SQLState("22011"))
        #expect(error?.message == "negative substring length not allowed")
    }

    @Test func positionLeftRightAndPads() throws {
        #expect(try call("strpos", [text("héllo", "héllo", "abc"), text("lo", "", "x")]) == [.int32(4), .int32(1), .int32(0)])
        #expect(try call("left", [text("héllo", "héllo"), int32(2, -2)]) == strings("hé", "hél"))
        #expect(try call("right", [text("héllo", "héllo"), int32(2, -2)]) == strings("lo", "llo"))
        #expect(try call("lpad", [text("hé", "hi"), int32(5, 5), text("xy", "")]) == strings("xyxhé", "hi"))
        #expect(try call("lpad", [text("héllo"), int32(3)]) == strings("hél"))
        #expect(try call("rpad", [text("hé", "hi"), int32(5, -1), text("xy", "x")]) == strings("héxyx", ""))
    }

    @Test func trims() throws {
        #expect(try call("ltrim", [text("  xa b  ")]) == strings("xa b  "))
        #expect(try call("rtrim", [text("xxaxx"), text("x")]) == strings("xxa"))
        #expect(try call("btrim", [text("éaé", "abcba", nil), text("é", "ab", "x")]) == strings("a", "c", nil))
    }

    @Test func replaceAndSplitPart() throws {
        #expect(try call("replace", [text("abcabc", "abc"), text("b", ""), text("XY", "x")]) == strings("aXYcaXYc", "abc"))
        let parts = try call("split_part", [text("a,b,c", "a,b,c", "a,b,c", "abc", "abc", "abc"), text(",", ",", ",", "", "", ""), int32(2, -1, 5, 1, 2, -1)])
        #expect(parts == strings("b", "c", "", "abc", "", "abc"))
        let error = sluiceError { _ = try call("split_part", [text("a,b"), text(","), int32(0)]) }
        #expect(error?.code == .invalidParameterValue)
        #expect(error?.message == "field position must not be zero")
    }

    @Test func concatSkipsNullsButOperatorPropagatesThem() throws {
        let values = try call("concat", [text("a"), text(nil), int32(1), (.boolean, [.bool(true)])])
        #expect(values == strings("a1t"))
        #expect(try call("concat_ws", [text(",", nil), text("a", "a"), text(nil, nil), text("b", "b")]) == strings("a,b", nil))
        #expect(try apply("||", text("a", nil), text("b", "b")) == strings("ab", nil))
        let mixed = try FunctionRegistry.resolveOperator("||", .varchar, .int32)
        #expect(mixed.argumentTypes == [.varchar, .varchar])
    }

    @Test func reverseRepeatStartsWithAsciiChr() throws {
        #expect(try call("reverse", [text("héllo")]) == strings("olléh"))
        #expect(try call("repeat", [text("ab", "ab"), int32(3, -1)]) == strings("ababab", ""))
        #expect(try call("starts_with", [text("hello", "hello", nil), text("he", "lo", "x")]) == [.bool(true), .bool(false), .null])
        #expect(try call("ascii", [text("é", "")]) == [.int32(233), .int32(0)])
        #expect(try call("chr", [int32(233, 65)]) == strings("é", "A"))
        #expect(sluiceError { _ = try call("chr", [int32(0)]) }?.message == "null character not permitted")
        #expect(sluiceError { _ = try call("chr", [int32(-1)]) }?.code == .invalidParameterValue)
        #expect(sluiceError { _ = try call("chr", [int32(55296)]) }?.message == "requested character not valid for encoding: 55296")
    }

    @Test func md5MatchesPostgres() throws {
        // select md5(''), md5('abc')
        #expect(try call("md5", [text("", "abc")]) == strings("d41d8cd98f00b204e9800998ecf8427e", "900150983cd24fb0d6963f7d28e17f72"))
    }
}
