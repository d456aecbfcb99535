import SluiceCore
import Testing
@testable import SluiceFormats

/// Hostile bytes never crash the Avro row decoder: seeded random inputs (mutated valid records,
/// truncations, random bytes, huge declared counts) either decode to exactly one row in every
/// builder or fail leaving every builder as it was.
@Suite struct AvroRowDecoderFuzzTests {
    static let columns: [(name: String, type: DataType)] = [
        ("flag", .boolean), ("small", .int16), ("n", .int32), ("big", .int64), ("r", .float32), ("d", .float64),
        ("price", .decimal(precision: 10, scale: 2)), ("s", .varchar), ("doc", .jsonb), ("raw", .bytea), ("day", .date), ("ts", .timestamptz),
        ("point", .structure([StructField(name: "x", type: .int32), StructField(name: "tags", type: .list(.varchar))])), ("list", .list(.int64)),
    ]

    /// Valid records of ``columns``' derived schema.
    static func seeds() -> (schema: AvroSchema, records: [[UInt8]]) {
        let rows: [[Value]] = [
            [.bool(true), .int16(-3), .int32(1 << 20), .int64(-(1 << 40)), .float32(1.5), .float64(-2.25), .decimal(Decimal(mantissa: -12345, scale: 2)),
             .string("héllo"), .jsonb(#"{"a": [1, 2]}"#), .bytea([0, 255]), .date(-1), .timestamptz(1_700_000_000_000_000),
             .structure([.int32(4), .list([.string("a"), .null])]), .list([.int64(1), .null, .int64(3)])],
            Array(repeating: .null, count: columns.count),
        ]
        let chunk = Chunk(columns: columns.indices.map { index in Column(type: columns[index].type, values: rows.map { $0[index] }) })
        var encoder = AvroRowEncoder(columns: columns, recordName: "fuzz")
        var bytes: [UInt8] = []
        var ends: [Int] = []
        encoder.append(chunk, prefix: [], to: &bytes, rowEnds: &ends)
        return (encoder.schema, [Array(bytes[0 ..< ends[0]]), Array(bytes[ends[0] ..< ends[1]])])
    }

    /// A writer with fields no column takes: maps, arrays of nulls and nested records, skipped.
    static let skipping = #"""
        {"type": "record", "name": "fuzz", "fields": [
          {"name": "m", "type": {"type": "map", "values": ["null", {"type": "array", "items": "null"}]}},
          {"name": "e", "type": {"type": "record", "name": "empty", "fields": []}},
          {"name": "n", "type": "int"}, {"name": "f", "type": {"type": "fixed", "name": "f4", "size": 4}}]}
        """#

    private func check(_ decoder: AvroRowDecoder, _ input: [UInt8], _ builders: inout [ColumnBuilder]) {
        let before = builders.map(\.count)
        do {
            try input.withUnsafeBytes { try decoder.decodeRow($0, into: &builders) }
            #expect(builders.map(\.count) == before.map { $0 + 1 })
        } catch {
            #expect(builders.map(\.count) == before)
        }
    }

    @Test func mutatedRecordsAndRandomBytesNeverCrash() throws {
        let (schema, records) = Self.seeds()
        let decoder = try AvroRowDecoder(writer: schema, columns: Self.columns)
        let skipper = try AvroRowDecoder(writer: try AvroSchema(json: Self.skipping), columns: [("n", .int32)])
        var builders = decoder.makeBuilders()
        var skipped = skipper.makeBuilders()
        for record in records { check(decoder, record, &builders) }
        #expect(builders.map(\.count) == Array(repeating: 2, count: Self.columns.count))
        var random = SplitMix64(seed: 42)
        // Counts that claim far more items than the bytes hold, of sized and of empty items.
        let hostile: [[UInt8]] = [
            [0xFE, 0xFF, 0xFF, 0xFF, 0x0F], [0x01, 0x02, 0x02, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F], [0x02, 0x02, 0x61, 0x02, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F],
            Array(repeating: 0xFF, count: 11), [],
        ]
        for input in hostile {
            check(decoder, input, &builders)
            check(skipper, input, &skipped)
        }
        for _ in 0 ..< 20_000 {
            var input: [UInt8]
            if random.next(below: 8) == 0 {
                input = (0 ..< random.next(below: 48)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                input = records[random.next(below: records.count)]
                for _ in 0 ... random.next(below: 3) {
                    switch random.next(below: 5) {
                    case 0: ByteMutations.overwriteByte(&input, random: &random)
                    case 1: ByteMutations.deleteRun(&input, upTo: 4, random: &random)
                    case 2: ByteMutations.insert([UInt8(truncatingIfNeeded: random.next())], into: &input, random: &random)
                    case 3: ByteMutations.duplicateRun(&input, upTo: 8, random: &random)
                    default: ByteMutations.truncate(&input, random: &random)
                    }
                }
            }
            check(decoder, input, &builders)
            check(skipper, input, &skipped)
            // The frame and a Debezium envelope's locator take the same bytes.
            _ = input.withUnsafeBytes { try? ConfluentFrame.parse($0) }
        }
        // What was appended is whole: every column finishes with the same count.
        let finished = builders.map { $0.finish() }
        #expect(Set(finished.map(\.count)).count == 1)
    }
}
