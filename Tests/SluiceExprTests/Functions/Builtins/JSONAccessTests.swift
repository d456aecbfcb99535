import SluiceCore
import Testing

@testable import SluiceExpr

@Suite struct JSONAccessTests {
    let document: (DataType, [Value]) = (.jsonb, [.jsonb(#"{"a": 1, "b": {"c": [1, "x\"y", null]}, "d": "\u00e9\n"}"#), .null, .jsonb("[10, 20, 30]")])

    @Test func fieldAccess() throws {
        #expect(try apply("->", document, text("b", "b", "b")) == [.jsonb(#"{"c": [1, "x\"y", null]}"#), .null, .null])
        #expect(try apply("->>", document, text("d", "a", "a")) == [.string("é\n"), .null, .null])
        #expect(try apply("->>", document, text("a", nil, nil)) == [.string("1"), .null, .null])
    }

    @Test func elementAccessCountsFromEitherEnd() throws {
        let array: (DataType, [Value]) = (.jsonb, [.jsonb("[10, 20, 30]"), .jsonb("[10, 20, 30]"), .jsonb("[10, 20, 30]"), .jsonb("[1, null]")])
        #expect(try apply("->>", array, int32(0, -1, 3, 1)) == [.string("10"), .string("30"), .null, .null])
        #expect(try apply("->", array, int32(0, -1, 3, 1)) == [.jsonb("10"), .jsonb("30"), .null, .jsonb("null")])
    }
}
