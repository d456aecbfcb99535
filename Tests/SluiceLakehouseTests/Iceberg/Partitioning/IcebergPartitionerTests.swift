import SluiceCore
import SluiceFormats
import SluiceLakehouse
import Testing

/// Routing rows to partitions. Transform results are pyiceberg 0.12's
/// (`pyiceberg.transforms.<T>.transform(<type>)(value)`, run on the same inputs with
/// /tmp/pyprobe/bin/python); the spec's Appendix B values are checked by
/// IcebergTransformTests, which `apply` passes.
@Suite struct IcebergPartitionerTests {
    static let schema = IcebergSchema(fields: [
        IcebergNestedField(id: 1, name: "id", isRequired: false, type: .long),
        IcebergNestedField(id: 2, name: "n", isRequired: false, type: .int),
        IcebergNestedField(id: 3, name: "s", isRequired: false, type: .string),
        IcebergNestedField(id: 4, name: "d", isRequired: false, type: .date),
        IcebergNestedField(id: 5, name: "tstz", isRequired: false, type: .timestamptz),
        IcebergNestedField(id: 6, name: "dec", isRequired: false, type: .decimal(precision: 10, scale: 3)),
        IcebergNestedField(id: 7, name: "bin", isRequired: false, type: .binary),
        IcebergNestedField(id: 8, name: "ts", isRequired: false, type: .timestamp),
        IcebergNestedField(id: 9, name: "price", isRequired: false, type: .decimal(precision: 9, scale: 2)),
        IcebergNestedField(id: 10, name: "x", isRequired: false, type: .double),
    ])

    /// The partition tuple of every row of a one-column chunk under one spec field.
    static func partitions(_ transform: IcebergTransform, sourceID: Int, _ column: Column) throws -> [AvroValue] {
        let spec = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: sourceID, fieldID: 1000, name: "p", transform: transform)])
        let partitioner = try IcebergPartitioner(spec: spec, schema: schema, sourceColumns: [sourceID: 0])
        var result = [AvroValue?](repeating: nil, count: column.count)
        for (partition, rows) in try partitioner.split(Chunk(columns: [column])) {
            #expect(partition.count == 1)
            for row in rows { result[row] = partition[0] }
        }
        return result.map { $0 ?? .string("<unassigned>") }
    }

    static let timestamps: [Int64] = [-86_400_000_001, -1, 0, 1_704_164_645_123_456, 1_704_254_399_999_999, 253_402_300_799_999_999]

    /// bucket[2147483647] keeps `hash & Int32.max` whole, so the column paths can be checked
    /// against the spec's Appendix B hash values directly: a negative hash plus 2^31
    /// (-653330422 → 1494153226, -2047944441 → 99539207, -188683207 → 1958800441,
    /// -500754589 → 1646729059).
    @Test func columnPathsHashAsAppendixBSpecifies() throws {
        let buckets = IcebergTransform.bucket(Int(Int32.max))
        #expect(try Self.partitions(buckets, sourceID: 2, Column(type: .int32, values: [.int32(34)])) == [.int(2_017_239_379)])
        #expect(try Self.partitions(buckets, sourceID: 1, Column(type: .int64, values: [.int64(34)])) == [.int(2_017_239_379)])
        #expect(try Self.partitions(buckets, sourceID: 4, Column(type: .date, values: [.date(17486)])) == [.int(1_494_153_226)])
        #expect(try Self.partitions(buckets, sourceID: 5, Column(type: .timestamptz, values: [.timestamptz(1_510_871_468_000_000)]))
            == [.int(99_539_207)])
        #expect(try Self.partitions(buckets, sourceID: 8, Column(type: .timestamp, values: [.timestamp(1_510_871_468_000_000)]))
            == [.int(99_539_207)])
        #expect(try Self.partitions(buckets, sourceID: 3, Column(type: .varchar, values: [.string("iceberg")])) == [.int(1_210_000_089)])
        #expect(try Self.partitions(buckets, sourceID: 7, Column(type: .bytea, values: [.bytea([0, 1, 2, 3])])) == [.int(1_958_800_441)])
        #expect(try Self.partitions(buckets, sourceID: 9, Column(type: .decimal(precision: 9, scale: 2), values: [.decimal(Decimal(mantissa: 1420, scale: 2))]))
            == [.int(1_646_729_059)])
    }

    @Test func bucketsIntegersLikePyiceberg() throws {
        let longs = Column(type: .int64, values: (0 ..< 10).map { .int64(Int64($0)) })
        #expect(try Self.partitions(.bucket(4), sourceID: 1, longs) == [0, 0, 0, 3, 2, 3, 1, 3, 3, 3].map { .int($0) })
        let ints = Column(type: .int32, values: (-3 ... 3).map { .int32(Int32($0)) })
        #expect(try Self.partitions(.bucket(4), sourceID: 2, ints) == [1, 1, 0, 0, 0, 0, 3].map { .int($0) })
        // A smallint column feeds an int field alike.
        let smallints = Column(type: .int16, values: (-3 ... 3).map { .int16(Int16($0)) })
        #expect(try Self.partitions(.bucket(4), sourceID: 2, smallints) == [1, 1, 0, 0, 0, 0, 3].map { .int($0) })
        #expect(try Self.partitions(.bucket(16), sourceID: 1, Column(type: .int64, values: [.int64(34), .int64(-7)])) == [.int(3), .int(5)])
        #expect(try Self.partitions(.bucket(16), sourceID: 4, Column(type: .date, values: [.date(17486)])) == [.int(10)])
        let instants = Column(type: .timestamptz, values: Self.timestamps.map { .timestamptz($0) })
        #expect(try Self.partitions(.bucket(3), sourceID: 5, instants) == [2, 1, 1, 2, 2, 1].map { .int($0) })
        #expect(try Self.partitions(.bucket(16), sourceID: 8, Column(type: .timestamp, values: [.timestamp(1_510_871_468_000_000)])) == [.int(7)])
    }

    @Test func bucketsStringsBinaryAndDecimalsLikePyiceberg() throws {
        let strings = Column(type: .varchar, values: ["a", "b", "c", "d", "e", "f"].map { .string($0) })
        #expect(try Self.partitions(.bucket(5), sourceID: 3, strings) == [0, 2, 1, 4, 4, 3].map { .int($0) })
        let words = Column(type: .varchar, values: [.string("iceberg"), .string(""), .string("héllo")])
        #expect(try Self.partitions(.bucket(8), sourceID: 3, words) == [.int(1), .int(0), .int(0)])
        let binary = Column(type: .bytea, values: [.bytea([]), .bytea([0]), .bytea([1, 2]), .bytea(Array("abc".utf8))])
        #expect(try Self.partitions(.bucket(5), sourceID: 7, binary) == [0, 2, 2, 4].map { .int($0) })
        let decimals = Column(type: .decimal(precision: 10, scale: 3), values: [
            .decimal(Decimal(mantissa: 0, scale: 3)), .decimal(Decimal(mantissa: 1500, scale: 3)),
            .decimal(Decimal(mantissa: -2250, scale: 3)), .decimal(Decimal(mantissa: 12_345_678, scale: 3)),
        ])
        #expect(try Self.partitions(.bucket(7), sourceID: 6, decimals) == [6, 6, 1, 3].map { .int($0) })
        let price = Column(type: .decimal(precision: 9, scale: 2), values: [.decimal(Decimal(mantissa: 1420, scale: 2))])
        #expect(try Self.partitions(.bucket(16), sourceID: 9, price) == [.int(3)])
    }

    @Test func temporalTransformsMatchPyiceberg() throws {
        for (type, sourceID) in [(DataType.timestamptz, 5), (DataType.timestamp, 8)] {
            let column = Column(type: type, values: Self.timestamps.map { type == .timestamp ? .timestamp($0) : .timestamptz($0) })
            #expect(try Self.partitions(.day, sourceID: sourceID, column) == [-2, -1, 0, 19724, 19725, 2_932_896].map { .int($0) })
            #expect(try Self.partitions(.hour, sourceID: sourceID, column) == [-25, -1, 0, 473_379, 473_403, 70_389_527].map { .int($0) })
            #expect(try Self.partitions(.month, sourceID: sourceID, column) == [-1, -1, 0, 648, 648, 96359].map { .int($0) })
            #expect(try Self.partitions(.year, sourceID: sourceID, column) == [-1, -1, 0, 54, 54, 8029].map { .int($0) })
        }
        let dates = Column(type: .date, values: [-365, -32, 0, 19724, 2_932_896].map { .date($0) })
        #expect(try Self.partitions(.month, sourceID: 4, dates) == [-12, -2, 0, 648, 96359].map { .int($0) })
        #expect(try Self.partitions(.year, sourceID: 4, dates) == [-1, -1, 0, 54, 8029].map { .int($0) })
        #expect(try Self.partitions(.day, sourceID: 4, dates) == [-365, -32, 0, 19724, 2_932_896].map { .int($0) })
    }

    @Test func truncatesLikePyiceberg() throws {
        let ints = Column(type: .int32, values: [-8, -7, -1, 0, 6, 7, Int32.max].map { .int32($0) })
        #expect(try Self.partitions(.truncate(7), sourceID: 2, ints) == [-14, -7, -7, 0, 0, 7, 2_147_483_646].map { .int($0) })
        #expect(try Self.partitions(.truncate(10), sourceID: 1, Column(type: .int64, values: [.int64(1_234_567_890_123)])) == [.long(1_234_567_890_120)])
        let strings = Column(type: .varchar, values: [.string("iceberg"), .string("éa😀"), .string("ic")])
        #expect(try Self.partitions(.truncate(3), sourceID: 3, strings) == [.string("ice"), .string("éa😀"), .string("ic")])
        #expect(try Self.partitions(.truncate(2), sourceID: 3, strings) == [.string("ic"), .string("éa"), .string("ic")])
        #expect(try Self.partitions(.truncate(2), sourceID: 7, Column(type: .bytea, values: [.bytea([1, 2, 3])])) == [.bytes([1, 2])])
        let prices = Column(type: .decimal(precision: 9, scale: 2), values: [
            .decimal(Decimal(mantissa: 1065, scale: 2)), .decimal(Decimal(mantissa: -1065, scale: 2)),
        ])
        // 10.50 and -11.00 at scale 2: 1050 = 0x041A, -1100 = 0xFFFF_FBB4.
        #expect(try Self.partitions(.truncate(50), sourceID: 9, prices) == [.fixed([0, 0, 0x04, 0x1A]), .fixed([0xFF, 0xFF, 0xFB, 0xB4])])
        #expect(throws: SluiceError.self) { try Self.partitions(.truncate(10), sourceID: 1, Column(type: .int64, values: [.int64(.min)])) }
    }

    @Test func nullsGoToTheNullPartition() throws {
        let strings = Column(type: .varchar, values: [.string("a"), .null, .string("a"), .null])
        #expect(try Self.partitions(.identity, sourceID: 3, strings) == [.string("a"), .null, .string("a"), .null])
        // pyiceberg: bucket[4] of "a" is 2.
        #expect(try Self.partitions(.bucket(4), sourceID: 3, strings) == [.int(2), .null, .int(2), .null])
        let instants = Column(type: .timestamptz, values: [.null, .timestamptz(0)])
        #expect(try Self.partitions(.day, sourceID: 5, instants) == [.null, .int(0)])
        let prices = Column(type: .decimal(precision: 9, scale: 2), values: [.null])
        #expect(try Self.partitions(.identity, sourceID: 9, prices) == [.null])
    }

    @Test func identityKeepsValuesInTheManifestForm() throws {
        #expect(try Self.partitions(.identity, sourceID: 4, Column(type: .date, values: [.date(19724)])) == [.int(19724)])
        #expect(try Self.partitions(.identity, sourceID: 5, Column(type: .timestamptz, values: [.timestamptz(5)])) == [.long(5)])
        #expect(try Self.partitions(.identity, sourceID: 1, Column(type: .int32, values: [.int32(-5)])) == [.long(-5)])
        #expect(try Self.partitions(.identity, sourceID: 7, Column(type: .bytea, values: [.bytea([9])])) == [.bytes([9])])
        #expect(try Self.partitions(.identity, sourceID: 9, Column(type: .decimal(precision: 9, scale: 2), values: [.decimal(Decimal(mantissa: 1420, scale: 2))]))
            == [.fixed([0, 0, 0x05, 0x8C])])
    }

    @Test func floatsGroupAsJavaComparesThem() throws {
        let doubles = Column(type: .float64, values: [.float64(.nan), .float64(0.0), .float64(-0.0), .float64(Double(nan: 3, signaling: false)), .float64(0.0)])
        let spec = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 10, fieldID: 1000, name: "x", transform: .identity)])
        let partitioner = try IcebergPartitioner(spec: spec, schema: Self.schema, sourceColumns: [10: 0])
        let groups = try partitioner.split(Chunk(columns: [doubles]))
        #expect(groups.map(\.rows) == [[0, 3], [1, 4], [2]])
    }

    @Test func splitGroupsRowsByTupleInOrderOfFirstAppearance() throws {
        let spec = IcebergPartitionSpec(fields: [
            IcebergPartitionField(sourceID: 3, fieldID: 1000, name: "s", transform: .identity),
            IcebergPartitionField(sourceID: 5, fieldID: 1001, name: "tstz_day", transform: .day),
        ])
        let day: Int64 = 86_400_000_000
        // Columns: id, tstz, s — the spec's sources in another order than the schema's.
        let chunk = Chunk(columns: [
            Column(type: .int64, values: (0 ..< 7).map { .int64(Int64($0)) }),
            Column(type: .timestamptz, values: [.timestamptz(1), .timestamptz(day + 5), .timestamptz(2), .timestamptz(day - 1), .null, .timestamptz(day), .null]),
            Column(type: .varchar, values: [.string("a"), .string("a"), .string("b"), .string("a"), .string("a"), .string("b"), .null]),
        ])
        let partitioner = try IcebergPartitioner(spec: spec, schema: Self.schema, sourceColumns: [1: 0, 5: 1, 3: 2])
        #expect(!partitioner.isUnpartitioned)
        let groups = try partitioner.split(chunk)
        #expect(groups.map(\.partition) == [
            [.string("a"), .int(0)], [.string("a"), .int(1)], [.string("b"), .int(0)], [.string("a"), .null], [.string("b"), .int(1)], [.null, .null],
        ])
        #expect(groups.map(\.rows) == [[0, 3], [1], [2], [4], [5], [6]])
    }

    @Test func manyPartitionsGrowTheTable() throws {
        let spec = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 1, fieldID: 1000, name: "id", transform: .identity)])
        let partitioner = try IcebergPartitioner(spec: spec, schema: Self.schema, sourceColumns: [1: 0])
        // 3000 rows over 1000 ids, each id at rows k, k + 1000, k + 2000.
        let chunk = Chunk(columns: [Column(type: .int64, values: (0 ..< 3000).map { .int64(Int64(($0 * 7) % 1000)) })])
        let groups = try partitioner.split(chunk)
        #expect(groups.count == 1000)
        #expect(groups.allSatisfy { $0.rows.count == 3 })
        #expect(groups[1].partition == [.long(7)] && groups[1].rows == [1, 1001, 2001])
    }

    @Test func unpartitionedSpecsTakeEveryRow() throws {
        let chunk = Chunk(columns: [Column(type: .int64, values: [.int64(1), .int64(2)])])
        let none = try IcebergPartitioner(spec: .unpartitioned, schema: Self.schema, sourceColumns: [:])
        #expect(none.isUnpartitioned && none.partitionType.isEmpty)
        let groups = try none.split(chunk)
        #expect(groups.count == 1 && groups[0].partition.isEmpty && groups[0].rows == [0, 1])
        // A void field needs no column and is always null.
        let void = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 3, fieldID: 1000, name: "gone", transform: .void)])
        let voided = try IcebergPartitioner(spec: void, schema: Self.schema, sourceColumns: [:])
        #expect(voided.isUnpartitioned)
        #expect(try voided.split(chunk).map(\.partition) == [[.null]])
        #expect(try voided.split(Chunk(columns: [Column(type: .int64, values: [])])).isEmpty)
        // Mixed with a real field, the void one stays null.
        let mixed = IcebergPartitionSpec(fields: void.fields + [IcebergPartitionField(sourceID: 1, fieldID: 1001, name: "b", transform: .bucket(2))])
        let partitioner = try IcebergPartitioner(spec: mixed, schema: Self.schema, sourceColumns: [1: 0])
        // bucket[2] of 1 and of 2 are both 0 (pyiceberg: bucket[4] gives 0 and 0, and 2 divides 4).
        let mixedGroups = try partitioner.split(chunk)
        #expect(mixedGroups.map(\.partition) == [[.null, .int(0)]] && mixedGroups.map(\.rows) == [[0, 1]])
    }

    @Test func rejectsSpecsTheChunkCannotFeed() throws {
        let daySpec = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 5, fieldID: 1000, name: "tstz_day", transform: .day)])
        do {
            _ = try IcebergPartitioner(spec: daySpec, schema: Self.schema, sourceColumns: [1: 0])
            Issue.record("a missing source column must fail")
        } catch {
            #expect(error.code == .featureNotSupported)
            #expect(error.message.contains("tstz"))
        }
        let hourOfDate = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 4, fieldID: 1000, name: "h", transform: .hour)])
        do {
            _ = try IcebergPartitioner(spec: hourOfDate, schema: Self.schema, sourceColumns: [4: 0])
            Issue.record("hour over a date must fail")
        } catch {
            #expect(error.code == .featureNotSupported)
            #expect(error.message == "partition field \"h\": transform hour cannot be applied to type date")
        }
        let unknown = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 1, fieldID: 1000, name: "z", transform: .unknown("zorder"))])
        #expect(throws: SluiceError.self) { try IcebergPartitioner(spec: unknown, schema: Self.schema, sourceColumns: [1: 0]) }
        for transform in [IcebergTransform.bucket(0), .truncate(-1)] {
            let invalid = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 1, fieldID: 1000, name: "z", transform: transform)])
            #expect(throws: SluiceError.self) { try IcebergPartitioner(spec: invalid, schema: Self.schema, sourceColumns: [1: 0]) }
        }
        // A column whose type does not fit the source field fails on split, not with a trap.
        let partitioner = try IcebergPartitioner(spec: daySpec, schema: Self.schema, sourceColumns: [5: 0])
        #expect(throws: SluiceError.self) { try partitioner.split(Chunk(columns: [Column(type: .varchar, values: [.string("x")])])) }
        let beyond = try IcebergPartitioner(spec: daySpec, schema: Self.schema, sourceColumns: [5: 3])
        #expect(throws: SluiceError.self) { try beyond.split(Chunk(columns: [Column(type: .timestamptz, values: [.timestamptz(0)])])) }
    }
}
