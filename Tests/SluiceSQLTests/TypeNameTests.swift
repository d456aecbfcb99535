import SluiceCore
import Testing

@testable import SluiceSQL

@Suite struct TypeNameTests {
    @Test(arguments: [
        ("boolean", DataType.boolean), ("bool", .boolean), ("smallint", .int16), ("int2", .int16), ("int", .int32),
        ("integer", .int32), ("int4", .int32), ("bigint", .int64), ("int8", .int64), ("real", .float32), ("float4", .float32),
        ("double precision", .float64), ("float8", .float64), ("float", .float64), ("double", .float64),
        ("numeric", .numeric), ("decimal(10, 2)", .decimal(precision: 10, scale: 2)), ("varchar", .varchar), ("text", .varchar),
        ("string", .varchar), ("char(3)", .varchar), ("character varying(20)", .varchar), ("bpchar", .varchar), ("name", .varchar),
        ("date", .date), ("time", .time), ("time without time zone", .time), ("timestamp", .timestamp),
        ("timestamp(3)", .timestamp), ("timestamp without time zone", .timestamp), ("timestamptz", .timestamptz),
        ("timestamp(3) with time zone", .timestamptz), ("interval", .interval), ("interval day to second", .interval),
        ("jsonb", .jsonb), ("json", .jsonb), ("bytea", .bytea), ("int[]", .list(.int32)), ("text[][]", .list(.list(.varchar))),
        ("int ARRAY", .list(.int32)), ("pg_catalog.int4", .int32), ("STRING", .varchar),
        ("STRUCT<a int, b varchar>", .structure([StructField(name: "a", type: .int32), StructField(name: "b", type: .varchar)])),
        ("ROW<a STRING, b ROW<c INT>>", .structure([
            StructField(name: "a", type: .varchar), StructField(name: "b", type: .structure([StructField(name: "c", type: .int32)])),
        ])),
        ("struct<a struct<b int>>[]", .list(.structure([StructField(name: "a", type: .structure([StructField(name: "b", type: .int32)]))]))),
    ])
    func resolves(sql: String, expected: DataType) throws {
        #expect(try SQLParser.parseTypeName(sql).resolvedDataType() == expected)
    }

    @Test func unknownTypeNamesThePosition() throws {
        let type = try SQLParser.parseTypeName("public.foo")
        #expect(throws: SluiceError(.undefinedObject, "type \"public.foo\" does not exist", position: 1)) {
            _ = try type.resolvedDataType()
        }
    }

    @Test func printsMultiWordNames() throws {
        #expect(try SQLParser.parseTypeName("timestamp(3) with time zone").description == "timestamp(3) with time zone")
        #expect(try SQLParser.parseTypeName("CHARACTER VARYING(20)[]").description == "character varying(20)[]")
        #expect(try SQLParser.parseTypeName("ROW<a STRING>").description == "STRUCT<a string>")
    }
}
