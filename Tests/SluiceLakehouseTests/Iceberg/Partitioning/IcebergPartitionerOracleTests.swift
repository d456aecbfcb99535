import SluiceCore
import SluiceFormats
import SluiceLakehouse
import Testing

/// The column-wise paths against the value-wise oracle: for seeded random columns (nulls,
/// negatives, extremes), `split` must give exactly the groups that applying
/// `IcebergTransform.apply` to each row and grouping the encoded tuples gives.
@Suite struct IcebergPartitionerOracleTests {
    /// A small deterministic generator (SplitMix64), so failures reproduce.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static func column(_ type: DataType, rows: Int, _ generator: inout Generator) -> Column {
        var values: [Value] = []
        for _ in 0 ..< rows {
            if generator.below(8) == 0 { values.append(.null); continue }
            let wide = generator.below(4) == 0
            let raw = Int64(bitPattern: generator.next())
            let small = Int64(generator.below(200)) - 100
            switch type {
            case .int16: values.append(.int16(Int16(truncatingIfNeeded: wide ? raw : small)))
            case .int32: values.append(.int32(Int32(truncatingIfNeeded: wide ? raw : small)))
            case .int64: values.append(.int64(wide ? raw : small))
            case .date: values.append(.date(Int32(wide ? raw % 3_000_000 : small * 40)))
            case .timestamp, .timestamptz:
                let micros = wide ? raw % 250_000_000_000_000_000 : small * 3_600_000_000 + Int64(generator.below(1000))
                values.append(type == .timestamp ? .timestamp(micros) : .timestamptz(micros))
            case .varchar:
                let alphabet = ["a", "b", "é", "😀", "ab", "abc", ""]
                values.append(.string((0 ..< generator.below(4)).map { _ in alphabet[generator.below(alphabet.count)] }.joined()))
            case .bytea: values.append(.bytea((0 ..< generator.below(4)).map { _ in UInt8(generator.below(3)) }))
            case .decimal: values.append(.decimal(Decimal(mantissa: Int128(small * 137), scale: 3)))
            default: values.append(.null)
            }
        }
        return Column(type: type, values: values)
    }

    static let schema = IcebergSchema(fields: [
        IcebergNestedField(id: 1, name: "l", isRequired: false, type: .long),
        IcebergNestedField(id: 2, name: "i", isRequired: false, type: .int),
        IcebergNestedField(id: 3, name: "s", isRequired: false, type: .string),
        IcebergNestedField(id: 4, name: "d", isRequired: false, type: .date),
        IcebergNestedField(id: 5, name: "tz", isRequired: false, type: .timestamptz),
        IcebergNestedField(id: 6, name: "ts", isRequired: false, type: .timestamp),
        IcebergNestedField(id: 7, name: "b", isRequired: false, type: .binary),
        IcebergNestedField(id: 8, name: "m", isRequired: false, type: .decimal(precision: 12, scale: 3)),
        IcebergNestedField(id: 9, name: "small", isRequired: false, type: .int),
    ])
    /// Column types in source-id order (ids 1...9 at columns 0...8).
    static let columnTypes: [DataType] = [.int64, .int32, .varchar, .date, .timestamptz, .timestamp, .bytea, .decimal(precision: 12, scale: 3), .int16]

    static let fields: [(Int, IcebergTransform)] = [
        (1, .identity), (1, .bucket(7)), (1, .truncate(10)), (2, .identity), (2, .bucket(3)), (2, .truncate(7)), (9, .bucket(5)), (9, .truncate(4)),
        (3, .identity), (3, .bucket(4)), (3, .truncate(2)), (4, .identity), (4, .day), (4, .month), (4, .year), (4, .bucket(9)),
        (5, .hour), (5, .day), (5, .month), (5, .year), (5, .identity), (6, .day), (6, .bucket(6)), (7, .identity), (7, .truncate(1)),
        (7, .bucket(3)), (8, .identity), (8, .truncate(100)), (8, .bucket(5)),
    ]

    /// Groups by the oracle: tuples from `apply` per row, first appearance order.
    static func oracle(_ spec: IcebergPartitionSpec, _ chunk: Chunk) throws -> [(partition: [AvroValue], rows: [Int])] {
        var groups: [(partition: [AvroValue], rows: [Int])] = []
        var index: [[AvroValue]: Int] = [:]
        for row in 0 ..< chunk.count {
            var tuple: [AvroValue] = []
            for field in spec.fields {
                let source = try #require(schema.field(id: field.sourceID))
                let value = try field.transform.apply(to: chunk.columns[field.sourceID - 1].value(at: row), sourceType: source.type)
                tuple.append(try IcebergPartitionValue.encode(value, as: field.transform.resultType(for: source.type)))
            }
            if let group = index[tuple] {
                groups[group].rows.append(row)
            } else {
                index[tuple] = groups.count
                groups.append((tuple, [row]))
            }
        }
        return groups
    }

    @Test func columnPathsAgreeWithApply() throws {
        var generator = Generator(state: 42)
        let chunk = Chunk(columns: Self.columnTypes.map { Self.column($0, rows: 600, &generator) })
        let sourceColumns = Dictionary(uniqueKeysWithValues: (1 ... 9).map { ($0, $0 - 1) })
        // Each field alone, then random pairs and triples.
        var specs = Self.fields.map { IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: $0.0, fieldID: 1000, name: "p", transform: $0.1)]) }
        for _ in 0 ..< 40 {
            let count = 2 + generator.below(2)
            specs.append(IcebergPartitionSpec(fields: (0 ..< count).map { position in
                let field = Self.fields[generator.below(Self.fields.count)]
                return IcebergPartitionField(sourceID: field.0, fieldID: 1000 + position, name: "p\(position)", transform: field.1)
            }))
        }
        for spec in specs {
            let partitioner = try IcebergPartitioner(spec: spec, schema: Self.schema, sourceColumns: sourceColumns)
            let actual = try partitioner.split(chunk)
            let expected = try Self.oracle(spec, chunk)
            #expect(actual.map(\.partition) == expected.map(\.partition), "\(spec.fields.map(\.transform))")
            #expect(actual.map(\.rows) == expected.map(\.rows), "\(spec.fields.map(\.transform))")
        }
    }
}
