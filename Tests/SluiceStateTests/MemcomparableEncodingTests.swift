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
}
