import SluiceCore
import SluiceFormats
@testable import SluiceLakehouse
import Testing

/// Partition values in the manifest's Avro form (spec, Appendix A). Byte expectations are
/// worked out by hand from the spec's rules (decimals: unscaled, big-endian two's complement,
/// fixed at Java's byte count); the interop suite checks the same values against pyiceberg.
@Suite struct IcebergPartitionValueTests {
    /// One partition tuple of ``IcebergPartitionTypeTests/spec``, as transform results; the
    /// same row pyiceberg writes in the interop test.
    static let sampleRow: [Value] = [
        .int32(5), .int64(1_234_567_890_123), .string("iceberg"), .date(17486), .timestamp(1_510_871_468_000_000),
        .timestamptz(1_510_871_468_000_000), .decimal(Decimal(mantissa: 1420, scale: 2)), .bool(true), .float32(1.5), .float64(2.25),
        .bytea([0, 1, 2, 3]), .string("f79c3e09-677c-4bbd-a479-3f349cb785e7"), .time(81_068_000_000), .bytea([97, 98, 99]),
        .decimal(Decimal(mantissa: -10_000_000_001, scale: 10)), .date(17486), .int32(419_686), .int32(574), .int32(47), .int32(9),
        .string("ice"), .decimal(Decimal(mantissa: 1050, scale: 2)), .int32(79),
    ]

    /// What `IcebergPartitionFilter.value(_:as:)` reads back (index 11, the uuid, it reads as its
    /// 16 bytes, not the text the row holds).
    static let sampleReadBack: [Value] = sampleRow.enumerated().map { index, value in index == 11 ? .null : value }

    /// The manifest form of ``sampleRow``.
    static let sampleEncoded: [AvroValue] = [
        .int(5), .long(1_234_567_890_123), .string("iceberg"), .int(17486), .long(1_510_871_468_000_000),
        .long(1_510_871_468_000_000), .fixed([0x00, 0x00, 0x05, 0x8C]), .boolean(true), .float(1.5), .double(2.25),
        .bytes([0, 1, 2, 3]), .fixed([0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD, 0xA4, 0x79, 0x3F, 0x34, 0x9C, 0xB7, 0x85, 0xE7]),
        .long(81_068_000_000), .fixed([97, 98, 99]),
        // -10000000001 = -0x2_540B_E401, sign-extended to 16 bytes.
        .fixed(Array(repeating: 0xFF, count: 11) + [0xFD, 0xAB, 0xF4, 0x1B, 0xFF]),
        .int(17486), .int(419_686), .int(574), .int(47), .int(9), .string("ice"), .fixed([0x00, 0x00, 0x04, 0x1A]), .int(79),
    ]

    @Test func encodesEachResultType() throws {
        let types = try IcebergPartitionTypeTests.spec.partitionType(for: IcebergPartitionTypeTests.schema).fields.map(\.type)
        for (index, value) in Self.sampleRow.enumerated() {
            #expect(try IcebergPartitionValue.encode(value, as: types[index]) == Self.sampleEncoded[index], "field \(index)")
            #expect(try IcebergPartitionValue.encode(.null, as: types[index]) == .null)
        }
    }

    @Test func isTheInverseOfTheScanReader() throws {
        let cases: [(Value, IcebergType)] = [
            (.int32(-7), .int), (.int64(.min), .long), (.date(-1), .date), (.time(0), .time), (.timestamp(-1), .timestamp),
            (.timestamptz(1), .timestamptz), (.string("é"), .string), (.bytea([]), .binary), (.bytea([1, 2]), .fixed(2)),
            (.bool(false), .boolean), (.float32(-0.0), .float), (.float64(.infinity), .double),
            (.decimal(Decimal(mantissa: -1, scale: 2)), .decimal(precision: 2, scale: 2)),
            (.decimal(Decimal(mantissa: 127, scale: 0)), .decimal(precision: 3, scale: 0)),
            (.decimal(Decimal(mantissa: -128, scale: 0)), .decimal(precision: 3, scale: 0)),
            (.decimal(Decimal(mantissa: Decimal.maximumMantissa, scale: 5)), .decimal(precision: 38, scale: 5)),
            (.decimal(Decimal(mantissa: -Decimal.maximumMantissa, scale: 0)), .decimal(precision: 38, scale: 0)),
        ]
        for (value, type) in cases {
            let encoded = try IcebergPartitionValue.encode(value, as: type)
            #expect(IcebergPartitionFilter.value(encoded, as: type) == value, "\(value) as \(type)")
        }
    }

    @Test func decimalsTakeTheTypesScaleAndWidth() throws {
        // 1.5 at scale 2 is 150 = 0x96, which needs a sign byte: 00 96 in decimal(4, 2)'s 2 bytes.
        #expect(try IcebergPartitionValue.encode(.decimal(Decimal(mantissa: 15, scale: 1)), as: .decimal(precision: 4, scale: 2)) == .fixed([0x00, 0x96]))
        #expect(try IcebergPartitionValue.encode(.int64(-1), as: .decimal(precision: 10, scale: 0)) == .fixed([0xFF, 0xFF, 0xFF, 0xFF, 0xFF]))
        #expect(try IcebergPartitionValue.encode(.decimal(Decimal(mantissa: 0, scale: 0)), as: .decimal(precision: 1, scale: 0)) == .fixed([0x00]))
        // 100 does not fit two digits.
        #expect(throws: SluiceError.self) { try IcebergPartitionValue.encode(.decimal(Decimal(mantissa: 100, scale: 0)), as: .decimal(precision: 2, scale: 0)) }
        #expect(throws: SluiceError.self) { try IcebergPartitionValue.encode(.decimal(.nan), as: .decimal(precision: 9, scale: 2)) }
    }

    @Test func rejectsValuesOfTheWrongKind() {
        #expect(throws: SluiceError.self) { try IcebergPartitionValue.encode(.string("x"), as: .int) }
        #expect(throws: SluiceError.self) { try IcebergPartitionValue.encode(.int64(1 << 40), as: .int) }
        #expect(throws: SluiceError.self) { try IcebergPartitionValue.encode(.bytea([1]), as: .fixed(2)) }
        #expect(throws: SluiceError.self) { try IcebergPartitionValue.encode(.string("not-a-uuid"), as: .uuid) }
        #expect(throws: SluiceError.self) { try IcebergPartitionValue.encode(.string("f79c3e09x677c-4bbd-a479-3f349cb785e7"), as: .uuid) }
    }

    @Test func nanIsCanonical() throws {
        let payloadNaN = Double(nan: 5, signaling: false)
        guard case .double(let stored) = try IcebergPartitionValue.encode(.float64(payloadNaN), as: .double) else {
            Issue.record("not a double")
            return
        }
        #expect(stored.bitPattern == Double.nan.bitPattern)
    }
}
