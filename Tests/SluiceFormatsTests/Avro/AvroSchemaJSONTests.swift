import SluiceCore
import Testing
@testable import SluiceFormats

@Suite struct AvroSchemaJSONTests {
    /// A schema in the shape Iceberg writes: field ids, a map as an array of key/value records,
    /// element ids, logical types and a name used twice.
    static let icebergShaped = #"""
    {"type": "record", "name": "manifest_entry", "fields": [
      {"name": "status", "field-id": 0, "type": "int"},
      {"name": "snapshot_id", "field-id": 1, "type": ["null", "long"], "default": null},
      {"name": "sizes", "field-id": 108, "type": ["null", {"type": "array", "logicalType": "map",
        "items": {"type": "record", "name": "k117_v118", "fields": [
          {"name": "key", "type": "int", "field-id": 117}, {"name": "value", "type": "long", "field-id": 118}]}}], "default": null},
      {"name": "offsets", "field-id": 132, "type": ["null", {"type": "array", "element-id": 133, "items": "long"}], "default": null},
      {"name": "day", "type": {"type": "int", "logicalType": "date"}},
      {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": true}},
      {"name": "t", "type": {"type": "long", "logicalType": "time-micros"}},
      {"name": "price", "type": {"type": "fixed", "name": "d9", "namespace": "x.y", "size": 4, "logicalType": "decimal", "precision": 9, "scale": 2}},
      {"name": "price2", "type": "x.y.d9"},
      {"name": "id", "type": {"type": "fixed", "name": "uuid16", "size": 16, "logicalType": "uuid"}},
      {"name": "tags", "type": {"type": "map", "values": "string", "key-id": 10, "value-id": 11}},
      {"name": "nanos", "type": {"type": "long", "logicalType": "timestamp-nanos"}},
      {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}, "doc": "what it is"}
    ]}
    """#

    @Test func parsesFieldIDsLogicalTypesAndNamedTypes() throws {
        let schema = try AvroSchema(json: Self.icebergShaped)
        let fields = try #require(schema.fields)
        #expect(schema.name == "manifest_entry")
        #expect(fields.map(\.fieldID) == [0, 1, 108, 132, nil, nil, nil, nil, nil, nil, nil, nil, nil])
        #expect(fields[1].defaultValue == .null)
        #expect(fields[0].defaultValue == nil)
        let sizes = fields[2].type.nonNullBranch
        #expect(sizes.logicalType == .map)
        guard case .array(let entry) = sizes.kind else { Issue.record("sizes is not an array"); return }
        #expect(entry.name == "k117_v118")
        #expect(entry.fields?.map(\.fieldID) == [117, 118])
        #expect(fields[3].type.nonNullBranch.elementID == 133)
        #expect(fields[4].type.logicalType == .date)
        #expect(fields[5].type.logicalType == .timestampMicros)
        #expect(fields[5].type.property("adjust-to-utc") == .bool(true))
        #expect(fields[6].type.logicalType == .timeMicros)
        #expect(fields[7].type.logicalType == .decimal(precision: 9, scale: 2))
        #expect(fields[7].type.name == "x.y.d9")
        // The second use of the name is the same definition.
        #expect(fields[8].type == fields[7].type)
        #expect(fields[9].type.logicalType == .uuid)
        #expect(fields[10].type.keyID == 10 && fields[10].type.valueID == 11)
        #expect(fields[11].type.logicalType == .other("timestamp-nanos"))
        #expect(fields[12].doc == "what it is")
        #expect(schema.fieldIndex(named: "day") == 4)
        #expect(schema.fieldIndex(withID: 132) == 3)
    }

    @Test func writtenJSONParsesBackToTheSameSchema() throws {
        let schema = try AvroSchema(json: Self.icebergShaped)
        let text = schema.jsonText
        #expect(try AvroSchema(json: text) == schema)
        // The repeated named type is written once, then by name.
        #expect(text.split(separator: "\"size\":4", omittingEmptySubsequences: false).count == 2)
        #expect(text.contains(#""price2","type":"x.y.d9""#))
        #expect(AvroSchema.long.jsonText == #""long""#)
        #expect(AvroSchema.optional(.string).jsonText == #"["null","string"]"#)
    }

    @Test func invalidSchemasAreRefused() {
        for text in [
            "", "{", #"{"type": "nope"}"#, #"{"type": "record", "name": "r"}"#, #"["null", ["int"]]"#, "42",
            #"{"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}, {"name": "a", "type": "int"}]}"#,
            #"{"type": "record", "name": "r", "fields": [{"name": "a", "type": {"type": "fixed", "name": "f", "size": 1}}, {"name": "b", "type": {"type": "fixed", "name": "f", "size": 2}}]}"#,
            String(repeating: "[", count: 500),
        ] {
            #expect(throws: SluiceError.self, "\(text)") { try AvroSchema(json: text) }
        }
    }

    /// pyiceberg 0.12 writes a repeated decimal partition type in full each time (checked on a
    /// manifest it wrote for two decimal(9, 2) partition fields); the same definition again reads
    /// as the one type, a different one is refused (the invalid cases above).
    @Test func anIdenticalSecondDefinitionIsTheSameType() throws {
        let decimal = #"{"type": "fixed", "name": "decimal_9_2", "size": 4, "logicalType": "decimal", "precision": 9, "scale": 2}"#
        let schema = try AvroSchema(json: #"{"type": "record", "name": "r2", "fields": [{"name": "a", "type": ["null", \#(decimal)]}, {"name": "b", "type": ["null", \#(decimal)]}]}"#)
        #expect(schema.fields?.count == 2)
        #expect(schema.fields?[0].type == schema.fields?[1].type)
    }

    @Test func logicalTypesOnTheWrongTypeAreKeptButNotInterpreted() throws {
        let schema = try AvroSchema(json: #"{"type": "string", "logicalType": "date"}"#)
        #expect(schema.logicalType == .other("date"))
        let tooPrecise = try AvroSchema(json: #"{"type": "fixed", "name": "f", "size": 2, "logicalType": "decimal", "precision": 9}"#)
        #expect(tooPrecise.logicalType == .other("decimal"))
        #expect(tooPrecise.property("precision") == .int(9))
    }

    @Test func jsonTextEscapesAndParsesUnicode() throws {
        let value = try JSONDocument.parse(#"{"a": "x\"\n\u00e9\ud83d\ude00", "b": [1, -2.5e3, true, null]}"#)
        #expect(value["a"] == .string("x\"\n\u{e9}\u{1F600}"))
        #expect(value["b"] == .array([.int(1), .double(-2500), .bool(true), .null]))
        #expect(try JSONDocument.parse(value.text) == value)
        #expect(throws: SluiceError.self) { try JSONDocument.parse(#""\ud800""#) }
        #expect(throws: SluiceError.self) { try JSONDocument.parse("01") }
    }
}
