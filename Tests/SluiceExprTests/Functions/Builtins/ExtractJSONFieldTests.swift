import SluiceCore
import Testing

@testable import SluiceExpr

/// ksqlDB's `EXTRACTJSONFIELD(json, path)`, checked against what ksqlDB's documentation gives
/// for its examples: strings without quotes, objects and arrays as JSON text, NULL for what is
/// missing or not JSON.
@Suite struct ExtractJSONFieldTests {
    let document = #"{"match_id": "t20-1", "info": {"city": "Cape Town", "dates": ["2024-01-10", "2024-01-11"], "teams": {"home": "SA"}, "runs": 187, "won": true, "umpire": null}, "odd key": "x\"y"}"#

    @Test func walksMembersAndElements() throws {
        let rows = Array(repeating: Value.string(document), count: 7)
        let paths = text("$.match_id", "$.info.city", "$.info.dates[1]", "$.info.dates[0]", "$.info.runs", "$.info.won", "$['odd key']")
        #expect(try call("extractjsonfield", [(.varchar, rows), paths])
            == strings("t20-1", "Cape Town", "2024-01-11", "2024-01-10", "187", "true", "x\"y"))
    }

    @Test func objectsAndArraysComeBackAsJSONText() throws {
        let rows = Array(repeating: Value.string(document), count: 2)
        #expect(try call("extractjsonfield", [(.varchar, rows), text("$.info.teams", "$.info.dates")])
            == strings(#"{"home": "SA"}"#, #"["2024-01-10", "2024-01-11"]"#))
    }

    @Test func missingNullAndBadInputAreNull() throws {
        let rows: [Value] = [.string(document), .string(document), .string("not json"), .null, .string(document), .string(document)]
        #expect(try call("extractjsonfield", [(.varchar, rows), text("$.info.umpire", "$.nothing", "$.a", "$.a", "info.city", "$.info.dates[9]")])
            == strings(nil, nil, nil, nil, nil, nil))
    }

    @Test func pathSteps() {
        func steps(_ path: String) -> [JSONPathStep]? { Array(path.utf8).withUnsafeBufferPointer { JSONPathStep.parse($0) } }
        #expect(steps("$") == [])
        #expect(steps("$.a.b[2]['c d']") == [.member(Array("a".utf8)), .member(Array("b".utf8)), .element(2), .member(Array("c d".utf8))])
        #expect(steps("$.a[-1]") == [.member(Array("a".utf8)), .element(-1)])
        #expect(steps("a.b") == nil)
        #expect(steps("$.") == nil)
        #expect(steps("$[x]") == nil)
    }
}

/// ksqlDB's `JSON_KEYS` and `ARRAY_CONTAINS`.
@Suite struct KsqlFunctionTests {
    @Test func jsonKeysInDocumentOrder() throws {
        let documents = text(#"{"b": 1, "a": {"x": 2}, "c\"d": null}"#, "[1, 2]", nil, "{}")
        #expect(try call("json_keys", [documents]) == [.list([.string("b"), .string("a"), .string("c\"d")]), .null, .null, .list([])])
    }

    @Test func jsonRecordsMapsKeysToCompactJSONText() throws {
        let documents = text(#"{"b": {"c" : [1, 2]}, "a": "x y", "n": null, "a": 7, "s": "q\"t"}"#, "[1, 2]", nil, "{}", "{not json", #"{"a": tru}"#, "3")
        #expect(try call("json_records", [documents]) == [
            .jsonb(#"{"a": "7", "b": "{\"c\":[1,2]}", "n": "null", "s": "\"q\\\"t\""}"#), .null, .null, .jsonb("{}"), .null, .null, .null,
        ])
    }

    @Test func arrayContainsComparesWithTheElementType() throws {
        let arrays: (DataType, [Value]) = (.list(.int32), [.list([.int32(1), .int32(2)]), .list([.int32(1), .null]), .null, .list([])])
        #expect(try call("array_contains", [arrays, int32(2, nil, 1, 1)]) == [.bool(true), .bool(true), .null, .bool(false)])
        #expect(try call("array_contains", [arrays, int32(3, 2, 1, 1)]) == [.bool(false), .bool(false), .null, .bool(false)])
    }
}
