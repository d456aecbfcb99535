import Testing
@testable import SluiceCore

/// A small deterministic generator (SplitMix64) so property tests repeat exactly.
/// The project's seeded generator (SplitMix64), under the name these tests use.
typealias SeededGenerator = SplitMix64

@Suite("Random values survive text and binary round trips")
struct RoundTripPropertyTests {
    static let iterations = 2000

    func randomValue(of type: DataType, using rng: inout SeededGenerator) -> Value {
        switch type {
        case .boolean: return .bool(Bool.random(using: &rng))
        case .int16: return .int16(Int16.random(in: .min ... .max, using: &rng))
        case .int32: return .int32(Int32.random(in: .min ... .max, using: &rng))
        case .int64: return .int64(Int64.random(in: .min ... .max, using: &rng))
        case .float32:
            let float = Float(bitPattern: UInt32.random(in: 0 ... .max, using: &rng))
            return .float32(float.isNaN ? 0 : float)
        case .float64:
            let double = Double(bitPattern: UInt64.random(in: 0 ... .max, using: &rng))
            return .float64(double.isNaN ? 0 : double)
        case .decimal:
            switch Int.random(in: 0 ..< 20, using: &rng) {
            case 0: return .decimal(.nan)
            case 1: return .decimal(.infinity)
            case 2: return .decimal(.negativeInfinity)
            default: break
            }
            let digits = Int.random(in: 0 ... 38, using: &rng)
            let bound = Decimal.powerOfTen(digits)
            let mantissa = Int128.random(in: -bound + 1 ... bound - 1, using: &rng)
            return .decimal(Decimal(mantissa: mantissa, scale: Int16.random(in: 0 ... 40, using: &rng)))
        case .date:
            return .date(Int32(Int.random(in: TemporalUnits.minimumDate ..< TemporalUnits.dateEnd, using: &rng)))
        case .time:
            return .time(Int64.random(in: 0 ... TemporalUnits.microsecondsPerDay, using: &rng))
        case .timestamp:
            return .timestamp(Int64.random(in: TemporalUnits.minimumTimestamp ..< TemporalUnits.timestampEnd, using: &rng))
        case .timestamptz:
            return .timestamptz(Int64.random(in: TemporalUnits.minimumTimestamp ..< TemporalUnits.timestampEnd, using: &rng))
        case .interval:
            // Text keeps months, days and time apart as long as each fits; keep within
            // the range where hours print exactly.
            return .interval(Interval(months: Int32.random(in: -100_000 ... 100_000, using: &rng),
                                      days: Int32.random(in: -100_000 ... 100_000, using: &rng),
                                      microseconds: Int64.random(in: -(1 << 50) ... (1 << 50), using: &rng)))
        case .bytea:
            return .bytea((0 ..< Int.random(in: 0 ... 16, using: &rng)).map { _ in UInt8.random(in: 0 ... 255, using: &rng) })
        case .varchar:
            let alphabet = Array(#"ab ,"\{}()xé"#)
            return .string(String((0 ..< Int.random(in: 0 ... 8, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }))
        default:
            fatalError("no generator for \(type)")
        }
    }

    static let types: [DataType] = [.boolean, .int16, .int32, .int64, .float32, .float64, .numeric, .date, .time,
                                    .timestamp, .timestamptz, .interval, .bytea]

    @Test("text form parses back to the same value", arguments: types)
    func textRoundTrip(_ type: DataType) throws {
        var rng = SeededGenerator(seed: 0x5106_E000 &+ UInt64(type.oid))
        for _ in 0 ..< Self.iterations {
            let value = randomValue(of: type, using: &rng)
            let parsed = try Value(parsingText: value.textForm, as: type)
            #expect(parsed == value, "\(type.sqlName) \(value.textForm)")
            #expect(parsed.textForm == value.textForm)
        }
    }

    @Test("binary form reads back to the same value", arguments: types)
    func binaryRoundTrip(_ type: DataType) throws {
        var rng = SeededGenerator(seed: 0xB1_0000 &+ UInt64(type.oid))
        for _ in 0 ..< Self.iterations {
            let value = randomValue(of: type, using: &rng)
            var bytes: [UInt8] = []
            value.appendBinary(to: &bytes, as: type)
            let parsed = try Value(parsingBinary: bytes, as: type)
            #expect(parsed == value && parsed.textForm == value.textForm, "\(type.sqlName) \(value.textForm)")
        }
    }

    @Test func compositeValuesRoundTrip() throws {
        var rng = SeededGenerator(seed: 42)
        let type = DataType.structure([StructField(name: "s", type: .varchar), StructField(name: "n", type: .numeric),
                                       StructField(name: "l", type: .list(.varchar))])
        for _ in 0 ..< 500 {
            let list = (0 ..< Int.random(in: 0 ... 4, using: &rng)).map { _ in
                Bool.random(using: &rng) ? Value.null : randomValue(of: .varchar, using: &rng)
            }
            let value = Value.structure([randomValue(of: .varchar, using: &rng), randomValue(of: .numeric, using: &rng), .list(list)])
            #expect(try Value(parsingText: value.textForm, as: type) == value, "\(value.textForm)")
            var bytes: [UInt8] = []
            value.appendBinary(to: &bytes, as: type)
            #expect(try Value(parsingBinary: bytes, as: type) == value, "\(value.textForm)")
        }
    }

    @Test func decimalArithmeticIdentities() throws {
        var rng = SeededGenerator(seed: 7)
        for _ in 0 ..< Self.iterations {
            let a = Decimal(mantissa: Int128(Int64.random(in: -1_000_000_000_000 ... 1_000_000_000_000, using: &rng)), scale: Int16.random(in: 0 ... 8, using: &rng))
            let b = Decimal(mantissa: Int128(Int64.random(in: -1_000_000_000 ... 1_000_000_000, using: &rng)), scale: Int16.random(in: 0 ... 8, using: &rng))
            #expect(try Decimal.subtracting(Decimal.adding(a, b), b) == a)
            guard b.mantissa != 0 else { continue }
            // a = trunc(a / b) * b + a % b
            let quotient = try Decimal.dividing(a, b).truncated()
            let rebuilt = try Decimal.adding(Decimal.multiplying(quotient, b), Decimal.remainder(a, b))
            #expect(rebuilt == a, "\(a) \(b)")
        }
    }

    @Test func civilDatesRoundTripAndAgreeWithWeekdays() {
        var rng = SeededGenerator(seed: 1)
        for _ in 0 ..< Self.iterations {
            let days = Int.random(in: TemporalUnits.minimumDate ..< TemporalUnits.dateEnd, using: &rng)
            let civil = CivilDate(daysSinceUnixEpoch: days)
            #expect(civil.isValid)
            #expect(civil.daysSinceUnixEpoch == days)
            #expect(CivilDate(daysSinceUnixEpoch: days + 1).dayOfWeek == (civil.dayOfWeek + 1) % 7)
        }
    }
}
