import SluiceCore
import Testing
@testable import SluiceFormats

/// The binary encoding against the examples of the Avro specification ("Binary Encoding").
@Suite struct AvroBinaryEncodingTests {
    private func encoded(_ value: AvroValue, _ schema: AvroSchema) throws -> [UInt8] {
        var encoder = AvroBinaryEncoder()
        try encoder.encode(value, as: schema)
        return encoder.bytes
    }

    private func decoded(_ bytes: [UInt8], _ schema: AvroSchema) throws -> AvroValue {
        var decoder = AvroBinaryDecoder(bytes)
        let value = try decoder.decode(schema)
        #expect(decoder.isAtEnd)
        return value
    }

    @Test func zigZagVarintsMatchTheSpecificationTable() throws {
        let table: [(Int64, [UInt8])] = [(0, [0x00]), (-1, [0x01]), (1, [0x02]), (-2, [0x03]), (2, [0x04]), (-64, [0x7F]), (64, [0x80, 0x01])]
        for (value, bytes) in table {
            #expect(try encoded(.long(value), .long) == bytes)
            #expect(try decoded(bytes, .long) == .long(value))
        }
        // The extremes take ten bytes: zig-zag maps Int64.min to all ones.
        let minimum: [UInt8] = Array(repeating: 0xFF, count: 9) + [0x01]
        #expect(try encoded(.long(.min), .long) == minimum)
        #expect(try decoded(minimum, .long) == .long(.min))
        #expect(try decoded([0xFE] + Array(repeating: 0xFF, count: 8) + [0x01], .long) == .long(.max))
    }

    @Test func stringsRecordsArraysAndUnionsMatchTheSpecificationExamples() throws {
        #expect(try encoded(.string("foo"), .string) == [0x06, 0x66, 0x6F, 0x6F])
        let record = try AvroSchema(json: #"{"type": "record", "name": "test", "fields": [{"name": "a", "type": "long"}, {"name": "b", "type": "string"}]}"#)
        #expect(try encoded(.record([.long(27), .string("foo")]), record) == [0x36, 0x06, 0x66, 0x6F, 0x6F])
        #expect(try decoded([0x36, 0x06, 0x66, 0x6F, 0x6F], record) == .record([.long(27), .string("foo")]))
        let array = try AvroSchema(json: #"{"type": "array", "items": "long"}"#)
        #expect(try encoded(.array([.long(3), .long(27)]), array) == [0x04, 0x06, 0x36, 0x00])
        #expect(try decoded([0x04, 0x06, 0x36, 0x00], array) == .array([.long(3), .long(27)]))
        let union = try AvroSchema(json: #"["null", "string"]"#)
        #expect(try encoded(.null, union) == [0x00])
        #expect(try encoded(.string("a"), union) == [0x02, 0x02, 0x61])
        #expect(try decoded([0x02, 0x02, 0x61], union) == .string("a"))
        let enumeration = try AvroSchema(json: #"{"type": "enum", "name": "Foo", "symbols": ["A", "B", "C", "D"]}"#)
        #expect(try encoded(.enumeration("D"), enumeration) == [0x06])
    }

    @Test func fixedWidthPrimitivesAreLittleEndian() throws {
        #expect(try encoded(.float(1.0), .float) == [0x00, 0x00, 0x80, 0x3F])
        #expect(try encoded(.double(1.0), .double) == [0, 0, 0, 0, 0, 0, 0xF0, 0x3F])
        #expect(try encoded(.boolean(true), .boolean) == [0x01])
        #expect(try encoded(.bytes([0xDE, 0xAD]), .bytes) == [0x04, 0xDE, 0xAD])
        let fixed = AvroSchema(.fixed(name: "f", size: 2))
        #expect(try encoded(.fixed([1, 2]), fixed) == [1, 2])
        #expect(try decoded([0x00, 0x00, 0x80, 0x3F], .float) == .float(1.0))
    }

    @Test func negativeBlockCountsCarryASizeAndMapsDecode() throws {
        // A block of -2 items with its byte size 2, then the end marker.
        #expect(try decoded([0x03, 0x04, 0x06, 0x36, 0x00], .array(.long)) == .array([.long(3), .long(27)]))
        let map = AvroSchema(.map(values: .int))
        // {"a": 1} as one block: count 1, key "a", value 1, end.
        #expect(try decoded([0x02, 0x02, 0x61, 0x02, 0x00], map) == .map(["a": .int(1)]))
        #expect(try encoded(.map(["b": .int(2), "a": .int(1)]), map) == [0x04, 0x02, 0x61, 0x02, 0x02, 0x62, 0x04, 0x00])
    }

    @Test func malformedInputThrowsWithoutAllocatingForDeclaredSizes() {
        // A varint longer than ten bytes, an int out of range, a string longer than the data.
        #expect(throws: SluiceError.self) { try decoded(Array(repeating: 0xFF, count: 11), .long) }
        #expect(throws: SluiceError.self) { try decoded([0x80, 0x80, 0x80, 0x80, 0x20], .int) }
        #expect(throws: SluiceError.self) { try decoded([0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 0x61], .string) }
        // An array declaring 2^62 longs with three bytes left, and 2^62 nulls.
        let hugeCount: [UInt8] = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]
        #expect(throws: SluiceError.self) { try decoded(hugeCount + [0x02, 0x04, 0x00], .array(.long)) }
        #expect(throws: SluiceError.self) { try decoded(hugeCount + [0x00], .array(.null)) }
        #expect(throws: SluiceError.self) { try decoded([0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], .map(.int)) }
        // A union branch and an enum index out of range, a boolean byte of 2, invalid UTF-8.
        #expect(throws: SluiceError.self) { try decoded([0x04], .optional(.long)) }
        #expect(throws: SluiceError.self) { try decoded([0x08], AvroSchema(.enumeration(name: "E", symbols: ["A"]))) }
        #expect(throws: SluiceError.self) { try decoded([0x02], .boolean) }
        #expect(throws: SluiceError.self) { try decoded([0x02, 0xC3], .string) }
    }

    @Test func valuesThatDoNotMatchTheSchemaAreRefused() {
        #expect(throws: SluiceError.self) { try encoded(.long(1), .int) }
        #expect(throws: SluiceError.self) { try encoded(.fixed([1]), AvroSchema(.fixed(name: "f", size: 2))) }
        #expect(throws: SluiceError.self) { try encoded(.string("x"), .optional(.long)) }
        #expect(throws: SluiceError.self) { try encoded(.record([.long(1)]), .record("r", [AvroField("a", .long), AvroField("b", .long)])) }
    }

    @Test func recursiveSchemasEncodeAndDecodeThroughReferences() throws {
        let schema = try AvroSchema(json: #"{"type": "record", "name": "Node", "fields": [{"name": "v", "type": "int"}, {"name": "next", "type": ["null", "Node"]}]}"#)
        let list = AvroValue.record([.int(1), .record([.int(2), .null])])
        var encoder = AvroBinaryEncoder()
        try encoder.encode(list, as: schema, namedTypes: schema.namedTypes)
        #expect(encoder.bytes == [0x02, 0x02, 0x04, 0x00])
        var decoder = AvroBinaryDecoder(encoder.bytes, namedTypes: schema.namedTypes)
        #expect(try decoder.decode(schema) == list)
        // A hostile chain deeper than the limit fails instead of exhausting the stack.
        var deep: [UInt8] = []
        for _ in 0 ..< 10_000 { deep += [0x02, 0x02] }
        var deepDecoder = AvroBinaryDecoder(deep + [0x02, 0x00], namedTypes: schema.namedTypes)
        #expect(throws: SluiceError.self) { try deepDecoder.decode(schema) }
    }
}

/// Schemas that reuse a named type many times describe values exponentially larger than the
/// schema text; decoding them must stay proportional to the input.
@Suite struct AvroSchemaBlowUpTests {
    /// R0 = {a: null, b: null}; Rn = {a: R(n-1), b: R(n-1)}: 2^(levels+1) nulls in no bytes.
    static func doublingSchema(levels: Int) throws -> AvroSchema {
        var text = #"{"type": "record", "name": "R0", "fields": [{"name": "a", "type": "null"}, {"name": "b", "type": "null"}]}"#
        for level in 1 ... levels {
            text = #"{"type": "record", "name": "R\#(level)", "fields": [{"name": "a", "type": \#(text)}, {"name": "b", "type": "R\#(level - 1)"}]}"#
        }
        return try AvroSchema(json: text)
    }

    @Test func aRecordOfExponentiallyManyNullsFailsFast() throws {
        let schema = try Self.doublingSchema(levels: 28)
        var decoder = AvroBinaryDecoder([])
        #expect(throws: SluiceError.self) { try decoder.decode(schema) }
        // A container of such records: its count check and its decoding both stay bounded.
        var writer = try AvroContainerWriter(schema: .array(schema), codec: .null)
        try writer.append(.array([]))
        var reader = try AvroContainerReader(bytes: writer.finish())
        #expect(try reader.next() == .array([]))
        // The same shape at a small size decodes.
        var small = AvroBinaryDecoder([])
        guard case .record(let fields) = try small.decode(try Self.doublingSchema(levels: 3)) else {
            Issue.record("not a record")
            return
        }
        #expect(fields.count == 2)
    }
}
