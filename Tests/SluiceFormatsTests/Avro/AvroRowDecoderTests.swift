import SluiceCore
import Testing
@testable import SluiceFormats

/// The Avro row decoder and encoder against bytes worked by hand from the specification's
/// "Binary Encoding" section, and against each other.
@Suite struct AvroRowDecoderTests {
    /// Decodes `records` (each a record's bytes) into rows of `columns`.
    private func rows(_ records: [[UInt8]], writer: String, reader: String? = nil, columns: [(name: String, type: DataType)]) throws -> [[Value]] {
        let decoder = try AvroRowDecoder(writer: try AvroSchema(json: writer), reader: try reader.map { try AvroSchema(json: $0) }, columns: columns)
        var builders = decoder.makeBuilders()
        for record in records {
            try record.withUnsafeBytes { try decoder.decodeRow($0, into: &builders) }
        }
        let built = builders.map { $0.finish() }
        return (0 ..< (built.first?.count ?? 0)).map { row in built.map { $0.value(at: row) } }
    }

    private let testRecord = #"{"type": "record", "name": "test", "fields": [{"name": "a", "type": "long"}, {"name": "b", "type": "string"}]}"#

    @Test func theSpecificationsRecordExampleFillsItsColumns() throws {
        // {"a": 27, "b": "foo"}: 27 zig-zags to 0x36; "foo" is its length 3 (0x06) and its bytes.
        let decoded = try rows([[0x36, 0x06, 0x66, 0x6F, 0x6F]], writer: testRecord, columns: [("a", .int64), ("b", .varchar)])
        #expect(decoded == [[.int64(27), .string("foo")]])
    }

    @Test func fieldsMatchColumnsByNameExactlyFirstThenIgnoringCase() throws {
        // Columns in another order, one named in another case, one the writer lacks, and a
        // writer field (b) no column takes.
        let writer = #"{"type": "record", "name": "r", "fields": [{"name": "A", "type": "int"}, {"name": "b", "type": "string"}, {"name": "c", "type": "boolean"}]}"#
        let decoded = try rows(
            [[0x04, 0x02, 0x78, 0x01], [0x7F, 0x00, 0x00]], writer: writer, columns: [("c", .boolean), ("missing", .varchar), ("a", .int32)])
        #expect(decoded == [[.bool(true), .null, .int32(2)], [.bool(false), .null, .int32(-64)]])
    }

    @Test func unionsWithNullGiveNullOrTheValue() throws {
        let writer = #"{"type": "record", "name": "r", "fields": [{"name": "x", "type": ["null", "string"]}, {"name": "y", "type": ["long", "null"]}]}"#
        // x: branch 0 (null) / branch 1 (0x02) then "a"; y: branch 0 (long 64 = 0x80 0x01) / branch 1 (null).
        let decoded = try rows([[0x00, 0x00, 0x80, 0x01], [0x02, 0x02, 0x61, 0x02]], writer: writer, columns: [("x", .varchar), ("y", .int64)])
        #expect(decoded == [[.null, .int64(64)], [.string("a"), .null]])
    }

    @Test func logicalTypesFillDatesTimestampsDecimalsAndUUIDs() throws {
        let writer = #"""
            {"type": "record", "name": "r", "fields": [
              {"name": "d", "type": {"type": "int", "logicalType": "date"}},
              {"name": "ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "us", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
              {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 2}},
              {"name": "negative", "type": {"type": "fixed", "name": "f", "size": 3, "logicalType": "decimal", "precision": 6, "scale": 1}},
              {"name": "id", "type": {"type": "fixed", "name": "u", "size": 16, "logicalType": "uuid"}},
              {"name": "kind", "type": {"type": "enum", "name": "k", "symbols": ["A", "B"]}}]}
            """#
        var record: [UInt8] = [0x02]  // date 1 (1970-01-02)
        record += [0xD0, 0x0F]  // 1000 ms → 1,000,000 µs
        record += [0x03]  // -2 µs
        record += [0x04, 0x30, 0x39]  // 12345 unscaled, two bytes: 123.45
        record += [0xFF, 0xFF, 0x85]  // -123 unscaled over three bytes: -12.3
        record += Array(0 ..< 16)  // the uuid's bytes
        record += [0x02]  // symbol 1
        let decoded = try rows(
            [record], writer: writer,
            columns: [("d", .date), ("ms", .timestamptz), ("us", .timestamp), ("price", .decimal(precision: 10, scale: 2)), ("negative", .numeric),
                      ("id", .varchar), ("kind", .varchar)])
        #expect(decoded == [[
            .date(1), .timestamptz(1_000_000), .timestamp(-2), .decimal(Decimal(mantissa: 12345, scale: 2)), .decimal(Decimal(mantissa: -123, scale: 1)),
            .string("00010203-0405-0607-0809-0a0b0c0d0e0f"), .string("B"),
        ]])
    }

    @Test func nestedRecordsFillStructsAndArraysFillLists() throws {
        let writer = #"""
            {"type": "record", "name": "r", "fields": [
              {"name": "point", "type": {"type": "record", "name": "p", "fields": [{"name": "x", "type": "int"}, {"name": "y", "type": "int"}]}},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "skipped", "type": {"type": "map", "values": {"type": "array", "items": "long"}}}]}
            """#
        // point {x: 1, y: -1}; tags: a block of 2 ("a", "bc") then the end; skipped: a block of one
        // entry "k" → [5], written with a negative count and its byte size, then the end.
        let record: [UInt8] = [0x02, 0x01, 0x04, 0x02, 0x61, 0x04, 0x62, 0x63, 0x00, 0x01, 0x0A, 0x02, 0x6B, 0x02, 0x0A, 0x00, 0x00]
        let point = DataType.structure([StructField(name: "y", type: .int64), StructField(name: "x", type: .int32)])
        let decoded = try rows([record], writer: writer, columns: [("point", point), ("tags", .list(.varchar))])
        #expect(decoded == [[.structure([.int64(-1), .int32(1)]), .list([.string("a"), .string("bc")])]])
    }

    @Test func aReaderSchemasDefaultsFillFieldsTheWriterLacks() throws {
        let reader = #"""
            {"type": "record", "name": "test", "fields": [{"name": "a", "type": "long"}, {"name": "b", "type": "string"},
              {"name": "score", "type": "double", "default": 1.5}, {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "when", "type": {"type": "long", "logicalType": "timestamp-millis"}, "default": 2000}]}
            """#
        let decoded = try rows(
            [[0x36, 0x06, 0x66, 0x6F, 0x6F]], writer: testRecord, reader: reader,
            columns: [("a", .int64), ("score", .float64), ("note", .varchar), ("when", .timestamptz)])
        #expect(decoded == [[.int64(27), .float64(1.5), .null, .timestamptz(2_000_000)]])
    }

    @Test func integersArePromotedAndRangeChecked() throws {
        let writer = #"{"type": "record", "name": "r", "fields": [{"name": "n", "type": "long"}]}"#
        #expect(try rows([[0x80, 0x01]], writer: writer, columns: [("n", .float64)]) == [[.float64(64)]])
        #expect(try rows([[0x80, 0x01]], writer: writer, columns: [("n", .varchar)]) == [[.string("64")]])
        #expect(try rows([[0x80, 0x01]], writer: writer, columns: [("n", .decimal(precision: 5, scale: 1))]) == [[.decimal(Decimal(mantissa: 640, scale: 1))]])
        // 2^40 does not fit an integer column: the row fails.
        var big = AvroBinaryEncoder()
        big.writeLong(1 << 40)
        #expect(throws: AvroDecodeError.self) { try rows([big.bytes], writer: writer, columns: [("n", .int32)]) }
    }

    @Test func aTypeNoColumnTakesIsRefusedWhenCompiled() throws {
        let writer = try AvroSchema(json: #"{"type": "record", "name": "r", "fields": [{"name": "n", "type": "boolean"}]}"#)
        #expect(throws: SluiceError.self) { try AvroRowDecoder(writer: writer, columns: [("n", .timestamp)]) }
        let long = try AvroSchema(json: #"{"type": "record", "name": "r", "fields": [{"name": "n", "type": "long"}]}"#)
        #expect(throws: SluiceError.self) { try AvroRowDecoder(writer: long, columns: [("n", .timestamptz)]) }
    }

    @Test func aFailedRowLeavesTheBuildersAsTheyWere() throws {
        let writer = #"{"type": "record", "name": "r", "fields": [{"name": "s", "type": {"type": "record", "name": "s", "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": "string"}]}}, {"name": "n", "type": "int"}]}"#
        let decoder = try AvroRowDecoder(
            writer: try AvroSchema(json: writer), columns: [("s", .structure([StructField(name: "a", type: .int32), StructField(name: "b", type: .varchar)])), ("n", .int32)])
        var builders = decoder.makeBuilders()
        try [UInt8]([0x02, 0x02, 0x78, 0x04]).withUnsafeBytes { try decoder.decodeRow($0, into: &builders) }
        // Truncated after the struct's first field; a string that is not UTF-8; bytes after the record.
        for bad: [UInt8] in [[0x02], [0x02, 0x02, 0xFF, 0x04], [0x02, 0x02, 0x78, 0x04, 0x00]] {
            #expect(throws: AvroDecodeError.self) { try bad.withUnsafeBytes { try decoder.decodeRow($0, into: &builders) } }
        }
        try [UInt8]([0x04, 0x00, 0x06]).withUnsafeBytes { try decoder.decodeRow($0, into: &builders) }
        let columns = builders.map { $0.finish() }
        #expect(columns[0].count == 2 && columns[1].count == 2)
        #expect(columns[0].value(at: 0) == .structure([.int32(1), .string("x")]) && columns[0].value(at: 1) == .structure([.int32(2), .string("")]))
        #expect(columns[1].value(at: 1) == .int32(3))
    }

    @Test func aNonRecordSchemaFillsThePrimitiveColumn() throws {
        let decoder = try AvroRowDecoder(writer: .string, columns: [("id", .varchar), ("other", .int32)], primitiveColumn: 0)
        var builders = decoder.makeBuilders()
        try [UInt8]([0x06, 0x6B, 0x65, 0x79]).withUnsafeBytes { try decoder.decodeRow($0, into: &builders) }
        #expect(builders[0].finish().value(at: 0) == .string("key") && builders[1].finish().value(at: 0) == .null)
    }

    @Test func theConfluentFrameIsMagicZeroAndABigEndianID() throws {
        var framed: [UInt8] = []
        ConfluentFrame.appendHeader(258, to: &framed)
        framed += [0x36]
        #expect(framed == [0x00, 0x00, 0x00, 0x01, 0x02, 0x36])
        try framed.withUnsafeBytes { bytes in
            let (id, record) = try ConfluentFrame.parse(bytes)
            #expect(id == 258 && Array(record) == [0x36])
        }
        for bad: [UInt8] in [[0x01, 0, 0, 0, 1, 0x36], [0x00, 0, 0]] {
            #expect(throws: AvroDecodeError.self) { try bad.withUnsafeBytes { _ = try ConfluentFrame.parse($0) } }
        }
    }

    @Test func aDebeziumEnvelopeIsFoundWithoutDecodingItsRows() throws {
        let schema = try AvroSchema(json: #"""
            {"type": "record", "name": "Envelope", "fields": [
              {"name": "before", "type": ["null", {"type": "record", "name": "Value", "fields": [{"name": "id", "type": "int"}]}]},
              {"name": "after", "type": ["null", "Value"]},
              {"name": "source", "type": {"type": "record", "name": "Source", "fields": [{"name": "db", "type": "string"}]}},
              {"name": "op", "type": "string"}, {"name": "ts_ms", "type": ["null", "long"]}]}
            """#)
        let envelope = try AvroChangeEnvelope(writer: schema)
        // before {id: 1}, after {id: 2}, source {db: "x"}, op "u", ts_ms null.
        let record: [UInt8] = [0x02, 0x02, 0x02, 0x04, 0x02, 0x78, 0x02, 0x75, 0x00]
        try record.withUnsafeBytes { bytes in
            let event = try envelope.locate(bytes)
            #expect(event.operation == UInt8(ascii: "u") && event.before == 1 ..< 2 && event.after == 3 ..< 4)
        }
        let decoder = try AvroRowDecoder(writer: envelope.rowSchema, columns: [("id", .int32)])
        var builders = decoder.makeBuilders()
        try record.withUnsafeBytes { try decoder.decodeRow(UnsafeRawBufferPointer(rebasing: $0[3 ..< 4]), into: &builders) }
        #expect(builders[0].finish().value(at: 0) == .int32(2))
    }
}

/// The row encoder against hand-worked bytes, and its records read back by the decoder.
@Suite struct AvroRowEncoderTests {
    @Test func aRowIsTheFieldsAsNullableUnionsAfterThePrefix() throws {
        let chunk = Chunk(columns: [Column(type: .int64, values: [.int64(27), .null]), Column(type: .varchar, values: [.string("foo"), .string("")])])
        var encoder = AvroRowEncoder(columns: [("a", .int64), ("b", .varchar)], recordName: "test")
        var bytes: [UInt8] = []
        var ends: [Int] = []
        encoder.append(chunk, prefix: [0xAA], to: &bytes, rowEnds: &ends)
        // Each field is ["null", T]: branch 1 (0x02) then the value, or branch 0 (0x00) alone.
        #expect(bytes == [0xAA, 0x02, 0x36, 0x02, 0x06, 0x66, 0x6F, 0x6F, 0xAA, 0x00, 0x02, 0x00])
        #expect(ends == [8, 12])
        #expect(encoder.schema.jsonText == #"{"type":"record","name":"test","fields":[{"name":"a","type":["null","long"],"default":null},{"name":"b","type":["null","string"],"default":null}]}"#)
    }

    @Test func decimalsAreTheirShortestTwosComplement() {
        #expect(AvroRowEncoder.twosComplement(0) == [0x00])
        #expect(AvroRowEncoder.twosComplement(127) == [0x7F])
        #expect(AvroRowEncoder.twosComplement(128) == [0x00, 0x80])
        #expect(AvroRowEncoder.twosComplement(-1) == [0xFF])
        #expect(AvroRowEncoder.twosComplement(-129) == [0xFF, 0x7F])
        #expect(AvroRowEncoder.twosComplement(12345) == [0x30, 0x39])
    }

    @Test func everyColumnTypeRoundTripsThroughItsDerivedSchema() throws {
        let point = DataType.structure([StructField(name: "x", type: .int32), StructField(name: "label", type: .varchar)])
        let columns: [(name: String, type: DataType)] = [
            ("flag", .boolean), ("small", .int16), ("n", .int32), ("big", .int64), ("r", .float32), ("d", .float64),
            ("price", .decimal(precision: 10, scale: 2)), ("free", .numeric), ("s", .varchar), ("doc", .jsonb), ("raw", .bytea), ("day", .date),
            ("at", .time), ("ts", .timestamp), ("tz", .timestamptz), ("span", .interval), ("point", point), ("tags", .list(.int64)),
            ("order id", .int32),
        ]
        let first: [Value] = [
            .bool(true), .int16(-3), .int32(1 << 20), .int64(-(1 << 40)), .float32(1.5), .float64(-2.25), .decimal(Decimal(mantissa: -12345, scale: 2)),
            .decimal(Decimal(mantissa: 7, scale: 3)), .string("héllo"), .jsonb(#"{"a": 1}"#), .bytea([0, 255]), .date(-1), .time(3_600_000_000),
            .timestamp(1_700_000_000_000_000), .timestamptz(-5), .interval(try Interval(parsingText: "1 day 02:00:00")),
            .structure([.int32(4), .null]), .list([.int64(1), .null, .int64(3)]), .int32(9),
        ]
        let second = Array(repeating: Value.null, count: columns.count)
        let chunk = Chunk(columns: columns.indices.map { Column(type: columns[$0].type, values: [first[$0], second[$0]]) })
        var encoder = AvroRowEncoder(columns: columns, recordName: "my-topic")
        var bytes: [UInt8] = []
        var ends: [Int] = []
        encoder.append(chunk, prefix: [], to: &bytes, rowEnds: &ends)
        #expect(encoder.schema.name == "my_topic" && encoder.schema.fields?.last?.name == "order_id")
        // The schema survives its own JSON, as a registry would store it.
        let schema = try AvroSchema(json: encoder.schema.jsonText)
        let readColumns = columns.enumerated().map { index, column in (name: schema.fields![index].name, type: column.type) }
        let decoder = try AvroRowDecoder(writer: schema, columns: readColumns)
        var builders = decoder.makeBuilders()
        try bytes.withUnsafeBytes { all in
            try decoder.decodeRow(UnsafeRawBufferPointer(rebasing: all[0 ..< ends[0]]), into: &builders)
            try decoder.decodeRow(UnsafeRawBufferPointer(rebasing: all[ends[0] ..< ends[1]]), into: &builders)
        }
        let decoded = builders.map { $0.finish() }
        #expect(decoded.map { $0.value(at: 0) } == first)
        #expect(decoded.map { $0.value(at: 1) } == second)
        // And the types a registry's schema gives back are the columns' (text forms aside).
        let inferred = try schema.columns().map(\.type)
        #expect(inferred[6] == .decimal(precision: 10, scale: 2) && inferred[11] == .date && inferred[13] == .timestamp && inferred[14] == .timestamptz)
        #expect(inferred[16] == .structure([StructField(name: "x", type: .int32), StructField(name: "label", type: .varchar)]))
    }
}
