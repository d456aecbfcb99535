import Testing
@testable import SluiceCore

/// Expectations copied from PostgreSQL 15 (`SELECT row(…)::text`, `SELECT array[…]::text`).
@Suite("Record and array text forms")
struct CompositeTextTests {
    @Test func recordsQuoteLikeRecordOut() {
        #expect(Value.structure([.int32(1), .string("abc")]).textForm == "(1,abc)")
        #expect(Value.structure([.int32(1), .string("a b"), .null, .string("")]).textForm == #"(1,"a b",,"")"#)
        #expect(Value.structure([.string("x\"y"), .string(#"back\slash"#), .string("(p)"), .string("a,b")]).textForm
            == #"("x""y","back\\slash","(p)","a,b")"#)
        #expect(Value.structure([.decimal(Decimal(mantissa: 150, scale: 2)), .date(19737), .bool(true)]).textForm == "(1.50,2024-01-15,t)")
        #expect(Value.structure([.list([.int32(1), .int32(2)]), .structure([.int32(1), .string("x y")])]).textForm
            == #"("{1,2}","(1,""x y"")")"#)
    }

    @Test func arraysQuoteLikeArrayOut() {
        let strings: [Value] = ["a", "", nil, "NULL", "null", "a b", "q\"u", #"b\s"#, "{x}", "a,b"].map { $0.map(Value.string) ?? .null }
        #expect(Value.list(strings).textForm == #"{a,"",NULL,"NULL","null","a b","q\"u","b\\s","{x}","a,b"}"#)
        #expect(Value.list([.float64(1.5), .null]).textForm == "{1.5,NULL}")
        #expect(Value.list([.structure([.int32(1), .string("a")])]).textForm == #"{"(1,a)"}"#)
        #expect(Value.list([.list([.int32(1), .int32(2)]), .list([.int32(3), .int32(4)])]).textForm == "{{1,2},{3,4}}")
        #expect(Value.list([.interval(Interval(days: 1)), .interval(Interval(microseconds: -1_000_000))]).textForm == #"{"1 day",-00:00:01}"#)
        #expect(Value.list([.timestamp(1_705_314_600_000_000)]).textForm == #"{"2024-01-15 10:30:00"}"#)
        #expect(Value.list([.bytea([1])]).textForm == #"{"\\x01"}"#)
        #expect(Value.list([.jsonb(#"{"a": 1}"#)]).textForm == #"{"{\"a\": 1}"}"#)
    }

    @Test func recordsParseBack() throws {
        let type = DataType.structure([StructField(name: "a", type: .int32), StructField(name: "b", type: .varchar),
                                       StructField(name: "c", type: .varchar), StructField(name: "d", type: .varchar)])
        let value = try Value(parsingText: #"(1,"a b",,"")"#, as: type)
        #expect(value == .structure([.int32(1), .string("a b"), .null, .string("")]))
        let quoted = try Value(parsingText: #"(2,"x""y","back\\slash",plain)"#, as: type)
        #expect(quoted == .structure([.int32(2), .string("x\"y"), .string(#"back\slash"#), .string("plain")]))
    }

    @Test func malformedRecordsReportPostgresDetails() {
        let type = DataType.structure([StructField(name: "a", type: .int32), StructField(name: "b", type: .int32)])
        #expect(throws: SluiceError(.invalidTextRepresentation, "malformed record literal: \"1,2\"", detail: "Missing left parenthesis.")) {
            try Value(parsingText: "1,2", as: type)
        }
        #expect(throws: SluiceError(.invalidTextRepresentation, "malformed record literal: \"(1)\"", detail: "Too few columns.")) {
            try Value(parsingText: "(1)", as: type)
        }
        #expect(throws: SluiceError(.invalidTextRepresentation, "malformed record literal: \"(1,2,3)\"", detail: "Too many columns.")) {
            try Value(parsingText: "(1,2,3)", as: type)
        }
        #expect(throws: SluiceError(.invalidTextRepresentation, "malformed record literal: \"(1,2\"", detail: "Unexpected end of input.")) {
            try Value(parsingText: "(1,2", as: type)
        }
    }

    @Test func raggedArraysAreMalformed() {
        #expect(throws: SluiceError.self) { try Value(parsingText: "{{1,2},{3}}", as: .list(.int32)) }
        #expect(throws: SluiceError.self) { try Value(parsingText: "{{1,2},3}", as: .list(.int32)) }
    }

    @Test func columnTextMatchesValueText() {
        let cases: [(DataType, Value, String)] = [
            (.boolean, .bool(true), "t"),
            (.int16, .int16(-5), "-5"),
            (.int32, .int32(42), "42"),
            (.int64, .int64(Int64.min), "-9223372036854775808"),
            (.float32, .float32(1.5e-7), "1.5e-07"),
            (.float64, .float64(1e20), "1e+20"),
            (.numeric, .decimal(Decimal(mantissa: -1, scale: 3)), "-0.001"),
            (.varchar, .string("héllo"), "héllo"),
            (.date, .date(-735_160), "0044-03-15 BC"),  // date '0044-03-15 BC' - date '1970-01-01'
            (.time, .time(37_800_123_000), "10:30:00.123"),
            (.timestamp, .timestamp(1_705_314_600_500_000), "2024-01-15 10:30:00.5"),
            (.timestamptz, .timestamptz(1_705_314_600_000_000), "2024-01-15 10:30:00+00"),
            (.interval, .interval(Interval(months: 14, days: 3, microseconds: 14_706_500_000)), "1 year 2 mons 3 days 04:05:06.5"),
            (.jsonb, .jsonb(#"{"a": 1}"#), #"{"a": 1}"#),
            (.bytea, .bytea([1, 2, 0xFF]), #"\x0102ff"#),
        ]
        for (type, value, expected) in cases {
            let column = Column(type: type, values: [value])
            var out: [UInt8] = []
            column.appendText(at: 0, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == expected, "\(type.sqlName)")
            #expect(value.textForm == expected, "\(type.sqlName)")
        }
    }
}
