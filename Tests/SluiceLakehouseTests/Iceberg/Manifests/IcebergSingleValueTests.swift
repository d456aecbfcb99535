import SluiceCore
import Testing
@testable import SluiceLakehouse

/// Appendix D's binary single-value serialization, against bytes worked out by hand (and the
/// uuid/date/time values of Appendix B's examples, converted with Python).
@Suite struct IcebergSingleValueTests {
    @Test func fixedWidthValuesAreLittleEndian() {
        #expect(IcebergSingleValue.encode(.bool(false), as: .boolean) == [0x00])
        #expect(IcebergSingleValue.encode(.bool(true), as: .boolean) == [0x01])
        #expect(IcebergSingleValue.encode(.int32(34), as: .int32) == [0x22, 0x00, 0x00, 0x00])
        #expect(IcebergSingleValue.encode(.int16(-2), as: .int16) == [0xFE, 0xFF, 0xFF, 0xFF])
        #expect(IcebergSingleValue.encode(.int64(34), as: .int64) == [0x22, 0, 0, 0, 0, 0, 0, 0])
        #expect(IcebergSingleValue.encode(.int64(-1), as: .int64) == Array(repeating: 0xFF, count: 8))
        #expect(IcebergSingleValue.encode(.float32(1.0), as: .float32) == [0x00, 0x00, 0x80, 0x3F])
        #expect(IcebergSingleValue.encode(.float64(1.0), as: .float64) == [0, 0, 0, 0, 0, 0, 0xF0, 0x3F])
        #expect(IcebergSingleValue.encode(.float64(-0.0), as: .float64) == [0, 0, 0, 0, 0, 0, 0, 0x80])
        // 2017-11-16 is day 17486 (0x444E); 22:31:08 is 81068000000 µs; 2017-11-16T22:31:08Z
        // is 1510871468000000 µs.
        #expect(IcebergSingleValue.encode(.date(17486), as: .date) == [0x4E, 0x44, 0x00, 0x00])
        #expect(IcebergSingleValue.encode(.time(81_068_000_000), as: .time) == [0x00, 0x83, 0x07, 0xE0, 0x12, 0x00, 0x00, 0x00])
        #expect(IcebergSingleValue.encode(.timestamptz(1_510_871_468_000_000), as: .timestamptz) == [0x00, 0xC3, 0x26, 0x2D, 0x21, 0x5E, 0x05, 0x00])
        #expect(IcebergSingleValue.encode(.timestamp(1_510_871_468_000_000), as: .timestamp) == [0x00, 0xC3, 0x26, 0x2D, 0x21, 0x5E, 0x05, 0x00])
    }

    @Test func stringsAndBinaryAreTheirBytesWithoutALength() {
        #expect(IcebergSingleValue.encode(.string("iceberg"), as: .varchar) == [0x69, 0x63, 0x65, 0x62, 0x65, 0x72, 0x67])
        #expect(IcebergSingleValue.encode(.string("é"), as: .varchar) == [0xC3, 0xA9])
        #expect(IcebergSingleValue.encode(.bytea([0, 1, 2, 3]), as: .bytea) == [0, 1, 2, 3])
    }

    @Test func decimalsAreMinimalBigEndianUnscaledValuesAtTheColumnScale() throws {
        let type = DataType.decimal(precision: 9, scale: 2)
        // 14.20 → 1420 = 0x058C; 1.5 → 150 = 0x0096 (the sign needs the leading zero byte).
        #expect(IcebergSingleValue.encode(.decimal(Decimal(mantissa: 1420, scale: 2)), as: type) == [0x05, 0x8C])
        #expect(IcebergSingleValue.encode(.decimal(Decimal(mantissa: 15, scale: 1)), as: type) == [0x00, 0x96])
        #expect(IcebergSingleValue.encode(.decimal(Decimal(mantissa: 0, scale: 0)), as: type) == [0x00])
        #expect(IcebergSingleValue.encode(.decimal(Decimal(mantissa: -1, scale: 2)), as: type) == [0xFF])
        #expect(IcebergSingleValue.encode(.decimal(Decimal(mantissa: -129, scale: 2)), as: type) == [0xFF, 0x7F])
        #expect(IcebergSingleValue.encode(.decimal(Decimal(mantissa: 127, scale: 2)), as: type) == [0x7F])
        #expect(IcebergSingleValue.encode(.decimal(Decimal(mantissa: 128, scale: 2)), as: type) == [0x00, 0x80])
        // 1.500 fits scale 2 exactly; 1.505 does not.
        #expect(IcebergSingleValue.encode(.decimal(Decimal(mantissa: 1500, scale: 3)), as: type) == [0x00, 0x96])
        #expect(IcebergSingleValue.encode(.decimal(Decimal(mantissa: 1505, scale: 3)), as: type) == nil)
        #expect(IcebergSingleValue.encode(.decimal(.nan), as: type) == nil)
        #expect(IcebergSingleValue.encode(.decimal(Decimal(mantissa: 1, scale: 0)), as: .numeric) == nil)
        #expect(IcebergSingleValue.decode([0x05, 0x8C], as: type) == .decimal(Decimal(mantissa: 1420, scale: 2)))
        #expect(IcebergSingleValue.decode([0xFF, 0x7F], as: type) == .decimal(Decimal(mantissa: -129, scale: 2)))
        // Sign extension past 16 bytes is accepted; significant bytes past 16 are not.
        #expect(IcebergSingleValue.decode(Array(repeating: 0xFF, count: 20), as: type) == .decimal(Decimal(mantissa: -1, scale: 2)))
        #expect(IcebergSingleValue.decode([0x01] + Array(repeating: 0x00, count: 16), as: type) == nil)
        #expect(IcebergSingleValue.decode([], as: type) == nil)
    }

    @Test func decodingInvertsEncodingAndRejectsWrongLengths() {
        let cases: [(Value, DataType)] = [
            (.bool(true), .boolean), (.int16(-300), .int16), (.int32(.min), .int32), (.int64(.max), .int64),
            (.float32(-1.25), .float32), (.float64(.pi), .float64), (.date(-1), .date), (.time(1), .time),
            (.timestamp(-5), .timestamp), (.timestamptz(7), .timestamptz), (.string("héllo"), .varchar), (.bytea([9, 8]), .bytea),
        ]
        for (value, type) in cases {
            let bytes = IcebergSingleValue.encode(value, as: type)
            #expect(bytes.flatMap { IcebergSingleValue.decode($0, as: type) } == value, "\(type)")
        }
        #expect(IcebergSingleValue.decode([1, 2, 3], as: .int32) == nil)
        #expect(IcebergSingleValue.decode([0xFF, 0xFF, 0xFF, 0x7F], as: .int16) == nil)
        #expect(IcebergSingleValue.decode([0xC3], as: .varchar) == nil)
        // Bounds of an int column promoted to long, and of a float promoted to double.
        #expect(IcebergSingleValue.decode([0xFE, 0xFF, 0xFF, 0xFF], as: .int64) == .int64(-2))
        #expect(IcebergSingleValue.decode([0x00, 0x00, 0x80, 0x3F], as: .float64) == .float64(1.0))
        #expect(IcebergSingleValue.encode(.null, as: .int32) == nil)
        #expect(IcebergSingleValue.encode(.string("x"), as: .int32) == nil)
        #expect(IcebergSingleValue.encode(.jsonb("{}"), as: .jsonb) == nil)
    }
}
