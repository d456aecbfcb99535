import SluiceCore
import Testing
@testable import SluiceFormats

/// Schema resolution (Avro specification, "Schema Resolution") and the registry's compatibility
/// levels built on it.
@Suite struct AvroSchemaCompatibilityTests {
    private func schema(_ json: String) throws -> AvroSchema {
        try AvroSchema(json: json)
    }

    private func record(_ fields: String, name: String = "r") throws -> AvroSchema {
        try schema(#"{"type": "record", "name": "\#(name)", "fields": [\#(fields)]}"#)
    }

    @Test func primitivesResolveToThemselvesAndPromote() {
        let promotions: [(writer: AvroSchema, reader: AvroSchema)] = [
            (.int, .long), (.int, .float), (.int, .double), (.long, .float), (.long, .double), (.float, .double), (.string, .bytes), (.bytes, .string),
        ]
        for (writer, reader) in promotions {
            #expect(reader.canRead(dataWrittenWith: writer), "\(writer.typeName) → \(reader.typeName)")
        }
        for primitive in [AvroSchema.null, .boolean, .int, .long, .float, .double, .bytes, .string] {
            #expect(primitive.canRead(dataWrittenWith: primitive))
        }
        // No demotions, and nothing between unrelated types.
        for (writer, reader) in [(AvroSchema.long, AvroSchema.int), (.double, .float), (.float, .long), (.string, .int), (.boolean, .int)] {
            #expect(!reader.canRead(dataWrittenWith: writer), "\(writer.typeName) → \(reader.typeName)")
        }
    }

    @Test func recordsNeedEveryReaderFieldWrittenOrDefaulted() throws {
        let v1 = try record(#"{"name": "a", "type": "int"}"#)
        let withDefault = try record(#"{"name": "a", "type": "int"}, {"name": "b", "type": "string", "default": "x"}"#)
        let withoutDefault = try record(#"{"name": "a", "type": "int"}, {"name": "b", "type": "string"}"#)
        #expect(withDefault.canRead(dataWrittenWith: v1))
        #expect(withoutDefault.incompatibilities(readingDataWrittenWith: v1) == ["reader field b is not in the writer's schema and has no default"])
        // A writer field the reader lacks is skipped.
        #expect(v1.canRead(dataWrittenWith: withoutDefault))
        // Field types resolve recursively, promotions included.
        #expect(try record(#"{"name": "a", "type": "long"}"#).canRead(dataWrittenWith: v1))
        #expect(!v1.canRead(dataWrittenWith: try record(#"{"name": "a", "type": "long"}"#)))
        // Names must match (unqualified), or a reader alias name the writer's.
        #expect(!v1.canRead(dataWrittenWith: try record(#"{"name": "a", "type": "int"}"#, name: "other")))
        #expect(try schema(#"{"type": "record", "name": "ns.r", "fields": [{"name": "a", "type": "int"}]}"#).canRead(dataWrittenWith: v1))
        #expect(try schema(#"{"type": "record", "name": "r", "aliases": ["old"], "fields": [{"name": "a", "type": "int"}]}"#)
            .canRead(dataWrittenWith: try record(#"{"name": "a", "type": "int"}"#, name: "old")))
        // A field alias reads a renamed field.
        #expect(try record(#"{"name": "c", "type": "int", "aliases": ["a"]}"#).canRead(dataWrittenWith: v1))
    }

    @Test func enumsFixedArraysAndMapsResolveByTheirParts() throws {
        let ab = try schema(#"{"type": "enum", "name": "e", "symbols": ["A", "B"]}"#)
        let abc = try schema(#"{"type": "enum", "name": "e", "symbols": ["A", "B", "C"]}"#)
        let abWithDefault = try schema(#"{"type": "enum", "name": "e", "symbols": ["A", "B"], "default": "A"}"#)
        #expect(abc.canRead(dataWrittenWith: ab))
        #expect(!ab.canRead(dataWrittenWith: abc))
        #expect(abWithDefault.canRead(dataWrittenWith: abc))
        #expect(!(try schema(#"{"type": "fixed", "name": "f", "size": 4}"#)).canRead(dataWrittenWith: try schema(#"{"type": "fixed", "name": "f", "size": 8}"#)))
        #expect(try schema(#"{"type": "array", "items": "long"}"#).canRead(dataWrittenWith: try schema(#"{"type": "array", "items": "int"}"#)))
        #expect(!(try schema(#"{"type": "map", "values": "int"}"#)).canRead(dataWrittenWith: try schema(#"{"type": "map", "values": "string"}"#)))
    }

    @Test func unionsResolveBranchByBranch() throws {
        let nullableString = try schema(#"["null", "string"]"#)
        #expect(nullableString.canRead(dataWrittenWith: .string))
        #expect(nullableString.canRead(dataWrittenWith: .null))
        #expect(!AvroSchema.string.canRead(dataWrittenWith: nullableString), "a null the writer may write has no reader branch")
        #expect(try schema(#"["null", "long", "string"]"#).canRead(dataWrittenWith: try schema(#"["int", "string"]"#)))
        #expect(!(try schema(#"["null", "long"]"#)).canRead(dataWrittenWith: try schema(#"["int", "string"]"#)))
    }

    @Test func recursiveSchemasResolve() throws {
        let list = try schema(#"{"type": "record", "name": "node", "fields": [{"name": "v", "type": "int"}, {"name": "next", "type": ["null", "node"]}]}"#)
        let wider = try schema(#"{"type": "record", "name": "node", "fields": [{"name": "v", "type": "long"}, {"name": "next", "type": ["null", "node"]}]}"#)
        #expect(wider.canRead(dataWrittenWith: list))
        #expect(!list.canRead(dataWrittenWith: wider))
    }

    @Test func levelsCheckTheirDirectionsAgainstTheVersionsTheyName() throws {
        let v1 = try record(#"{"name": "a", "type": "int"}"#)
        let v2 = try record(#"{"name": "a", "type": "int", "default": 0}, {"name": "b", "type": "int", "default": 0}"#)
        let v3 = try record(#"{"name": "b", "type": "int", "default": 0}"#)
        let addsRequired = try record(#"{"name": "a", "type": "int"}, {"name": "c", "type": "int"}"#)
        #expect(AvroCompatibilityLevel.backward.problems(registering: v2, after: [v1]).isEmpty)
        #expect(!AvroCompatibilityLevel.backward.problems(registering: addsRequired, after: [v1]).isEmpty)
        #expect(AvroCompatibilityLevel.forward.problems(registering: addsRequired, after: [v1]).isEmpty)
        #expect(!AvroCompatibilityLevel.full.problems(registering: addsRequired, after: [v1]).isEmpty)
        #expect(AvroCompatibilityLevel.none.problems(registering: try record(#"{"name": "a", "type": "string"}"#), after: [v1]).isEmpty)
        // v3 drops a, which v2 defaults and v1 does not: FORWARD looks at v2 alone and takes it;
        // FORWARD_TRANSITIVE also asks v1 to read v3's data, which it cannot.
        #expect(AvroCompatibilityLevel.backward.problems(registering: v3, after: [v1, v2]).isEmpty)
        #expect(AvroCompatibilityLevel.forward.problems(registering: v3, after: [v2]).isEmpty)
        #expect(!AvroCompatibilityLevel.forwardTransitive.problems(registering: v3, after: [v1, v2]).isEmpty)
        #expect(AvroCompatibilityLevel.backwardTransitive.problems(registering: v3, after: [v1, v2]).isEmpty)
        #expect(!AvroCompatibilityLevel.fullTransitive.problems(registering: v3, after: [v1, v2]).isEmpty)
        #expect(AvroCompatibilityLevel(rawValue: "FULL_TRANSITIVE") == .fullTransitive)
    }
}
