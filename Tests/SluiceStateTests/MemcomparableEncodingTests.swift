import SluiceCore
import Testing

@testable import SluiceState

/// The project's seeded generator, so failures reproduce.
typealias SeededRandom = SplitMix64

func encoded(_ value: Value, _ type: DataType, descending: Bool = false) -> [UInt8] {
    var out: [UInt8] = []
    MemcomparableEncoding.append(value, as: type, descending: descending, to: &out)
    return out
}

/// Sorting by encoded bytes gives the same order as sorting by `ascending`.
func expectOrderPreserved<T>(_ values: [T], type: DataType, value: (T) -> Value, ascending: (T, T) -> Bool) {
    let byValue = values.sorted(by: ascending).map { encoded(value($0), type) }
    let byBytes = values.map { encoded(value($0), type) }.sorted { $0.lexicographicallyPrecedes($1) }
    #expect(byValue == byBytes)
}

@Suite struct MemcomparableEncodingTests {
    @Test func integersOfEveryWidthKeepTheirOrder() {
        var random = SeededRandom(seed: 1)
        let edges: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
        let int64s = edges + (0 ..< 500).map { _ in Int64(bitPattern: random.next()) }
        expectOrderPreserved(int64s, type: .int64, value: Value.int64, ascending: <)
        let int32s = int64s.map { Int32(truncatingIfNeeded: $0) }
        expectOrderPreserved(int32s, type: .int32, value: Value.int32, ascending: <)
        let int16s = int64s.map { Int16(truncatingIfNeeded: $0) }
        expectOrderPreserved(int16s, type: .int16, value: Value.int16, ascending: <)
    }

    @Test func doublesOrderAsPostgresWithNaNLast() {
        var random = SeededRandom(seed: 2)
        var values: [Double] = [-.infinity, -1e308, -1, -0.0, 0, 5e-324, 1, 1e308, .infinity]
        values += (0 ..< 500).map { _ in Double(bitPattern: random.next()) }.filter { !$0.isNaN }
        expectOrderPreserved(values, type: .float64, value: Value.float64, ascending: <)
        #expect(encoded(.float64(-0.0), .float64) == encoded(.float64(0), .float64))
        #expect(encoded(.float64(.infinity), .float64).lexicographicallyPrecedes(encoded(.float64(.nan), .float64)))
    }

    @Test func decimalsOrderByValueWhateverTheirScale() {
        var random = SeededRandom(seed: 3)
        var values: [Decimal] = [Decimal(mantissa: 150, scale: 2), Decimal(mantissa: 15, scale: 1), Decimal(mantissa: -5, scale: 3), .zero]
        for _ in 0 ..< 500 {
            let mantissa = Int128(Int64(bitPattern: random.next()) % 10_000_000_000)
            values.append(Decimal(mantissa: mantissa, scale: Int16(random.next() % 12)))
        }
        values += [.nan, .infinity, .negativeInfinity, Decimal(mantissa: Decimal.maximumMantissa, scale: 0), Decimal(mantissa: -Decimal.maximumMantissa, scale: 0),
                   Decimal(mantissa: 1, scale: 38), Decimal(mantissa: -1, scale: 38)]
        expectOrderPreserved(values, type: .numeric, value: Value.decimal, ascending: <)
        // Equal values encode equally: 1.50 and 1.5.
        #expect(encoded(.decimal(Decimal(mantissa: 150, scale: 2)), .numeric) == encoded(.decimal(Decimal(mantissa: 15, scale: 1)), .numeric))
    }

    @Test func stringsOrderBytewiseWithPrefixesFirstAndZeroBytesEscaped() {
        let values = ["", "a", "a\u{0}", "a\u{0}b", "ab", "b", "ä", "zz", "\u{0}"]
        expectOrderPreserved(values, type: .varchar, value: Value.string, ascending: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    @Test func nullsSortFirstAndDescendingInvertsTheOrder() {
        let values: [Int64?] = [nil, -3, 0, 7]
        let keys = values.map { encoded($0.map(Value.int64) ?? .null, .int64) }
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
        let descending = values.map { encoded($0.map(Value.int64) ?? .null, .int64, descending: true) }
        #expect(descending.reversed() == descending.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test func compositeKeysOrderFieldByField() {
        let rows: [(String, Int64)] = [("a", 2), ("a", 10), ("ab", 1), ("b", -1)]
        let keys = rows.map { row -> [UInt8] in
            var out: [UInt8] = []
            MemcomparableEncoding.append(.string(row.0), as: .varchar, to: &out)
            MemcomparableEncoding.append(.int64(row.1), as: .int64, to: &out)
            return out
        }
        #expect(keys == keys.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test func orderByKeysPlaceNullsAsAskedInEitherDirection() {
        let values: [Int64?] = [nil, -3, 0, 7, nil, 2]
        for descending in [false, true] {
            for nullsFirst in [false, true] {
                let expected = values.sorted { a, b in
                    switch (a, b) {
                    case (nil, nil): return false
                    case (nil, _): return nullsFirst
                    case (_, nil): return !nullsFirst
                    case (let x?, let y?): return descending ? x > y : x < y
                    }
                }
                func sortKey(_ value: Int64?) -> [UInt8] {
                    var out: [UInt8] = []
                    MemcomparableEncoding.append(value.map(Value.int64) ?? .null, as: .int64, descending: descending, nullsFirst: nullsFirst, to: &out)
                    return out
                }
                #expect(values.map(sortKey).sorted { $0.lexicographicallyPrecedes($1) } == expected.map(sortKey), "descending \(descending), nulls first \(nullsFirst)")
            }
        }
    }

    @Test func exactFormsTellApartEqualValuesThatDisplayDifferently() {
        func exact(_ value: Value, _ type: DataType) -> [UInt8] {
            var out = encoded(value, type)
            MemcomparableEncoding.appendExactForm(value, to: &out)
            return out
        }
        #expect(encoded(.decimal(Decimal(mantissa: 150, scale: 2)), .numeric) == encoded(.decimal(Decimal(mantissa: 15, scale: 1)), .numeric))
        #expect(exact(.decimal(Decimal(mantissa: 150, scale: 2)), .numeric) != exact(.decimal(Decimal(mantissa: 15, scale: 1)), .numeric))
        #expect(exact(.float64(-0.0), .float64) != exact(.float64(0), .float64))
        #expect(exact(.interval(Interval(months: 1)), .interval) != exact(.interval(Interval(days: 30)), .interval))
        #expect(exact(.list([.decimal(Decimal(mantissa: 10, scale: 1))]), .list(.numeric)) != exact(.list([.decimal(Decimal(Int64(1)))]), .list(.numeric)))
        #expect(exact(.int64(5), .int64) == encoded(.int64(5), .int64))
        // The order between different values is the encoding's.
        let decimals = [Decimal(mantissa: -1, scale: 0), Decimal(mantissa: 150, scale: 2), Decimal(mantissa: 2, scale: 0), Decimal(mantissa: 15, scale: 1)]
        let byExact = decimals.sorted { exact(.decimal($0), .numeric).lexicographicallyPrecedes(exact(.decimal($1), .numeric)) }
        #expect(byExact.map(\.mantissa) == [-1, 15, 150, 2])
    }
}

/// Encoding a row straight from a column's buffers gives the bytes its value gives.
@Suite struct MemcomparableColumnEncodingTests {
    @Test func columnRowsEncodeAsTheirValues() {
        var random = SplitMix64(seed: 99)
        let cases: [(DataType, () -> Value)] = [
            (.varchar, { .string(String(decoding: (0 ..< Int.random(in: 0 ..< 6, using: &random)).map { _ in UInt8.random(in: 0 ... 127, using: &random) }, as: UTF8.self)) }),
            (.bytea, { .bytea((0 ..< Int.random(in: 0 ..< 6, using: &random)).map { _ in [0x00, 0xFF, 0x01, 0x7F][Int.random(in: 0 ..< 4, using: &random)] }) }),
            (.int16, { .int16(Int16.random(in: .min ... .max, using: &random)) }),
            (.int32, { .int32(Int32.random(in: .min ... .max, using: &random)) }),
            (.date, { .date(Int32.random(in: -100_000 ... 100_000, using: &random)) }),
            (.int64, { .int64(Int64.random(in: .min ... .max, using: &random)) }),
            (.timestamptz, { .timestamptz(Int64.random(in: -1 << 50 ... 1 << 50, using: &random)) }),
            (.float64, { .float64(Double.random(in: -1e6 ... 1e6, using: &random)) }),
            (.boolean, { .bool(Bool.random(using: &random)) }),
        ]
        for (type, make) in cases {
            let values = (0 ..< 200).map { _ in Int.random(in: 0 ..< 8, using: &random) == 0 ? Value.null : make() }
            let column = Column(type: type, values: values)
            for (row, value) in values.enumerated() {
                var fromColumn: [UInt8] = []
                var fromValue: [UInt8] = []
                MemcomparableEncoding.append(column, row: row, to: &fromColumn)
                MemcomparableEncoding.append(value, as: type, to: &fromValue)
                #expect(fromColumn == fromValue, "\(type) row \(row)")
            }
        }
    }
}
