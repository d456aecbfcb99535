import Testing
import SluiceCore
@testable import SluiceFormats

@Suite("JSON row decoder: values by type")
struct JSONValueTests {
    @Test func integersAndTheirRanges() {
        #expect(decodeValue("42", as: .int32).value == .int32(42))
        #expect(decodeValue("-2147483648", as: .int32).value == .int32(Int32.min))
        #expect(decodeValue("2147483648", as: .int32).error?.kind == .outOfRange)
        #expect(decodeValue("32767", as: .int16).value == .int16(32767))
        #expect(decodeValue("-32769", as: .int16).error?.kind == .outOfRange)
        #expect(decodeValue("9223372036854775807", as: .int64).value == .int64(Int64.max))
        #expect(decodeValue("-9223372036854775808", as: .int64).value == .int64(Int64.min))
        #expect(decodeValue("9223372036854775808", as: .int64).error?.kind == .outOfRange)
        #expect(decodeValue("123456789012345678901234567890", as: .int64).error?.kind == .outOfRange)
        #expect(decodeValue("-0", as: .int64).value == .int64(0))
        // Floats are not integers, even when whole (RisingWave reads them as F64).
        for text in ["1.5", "1.0", "1e2", "-0.0"] { #expect(decodeValue(text, as: .int32).error?.kind == .typeMismatch, "\(text)") }
        // Strings holding integers: NumericHandling::Relax { string_parsing: true }, Rust's parse rules.
        #expect(decodeValue(#""42""#, as: .int32).value == .int32(42))
        #expect(decodeValue(#""+7""#, as: .int16).value == .int16(7))
        #expect(decodeValue(#""-0012""#, as: .int64).value == .int64(-12))
        for text in [#"" 42""#, #""4.0""#, #""""#, #""-""#, #""1e3""#, #""0x10""#] {
            #expect(decodeValue(text, as: .int32).error?.kind == .invalidValue, "\(text)")
        }
        #expect(decodeValue(#""3000000000""#, as: .int32).error?.kind == .outOfRange)
        for text in ["true", "[1]", "{}"] { #expect(decodeValue(text, as: .int64).error?.kind == .typeMismatch, "\(text)") }
    }

    @Test func floats() {
        #expect(decodeValue("1.5", as: .float64).value == .float64(1.5))
        #expect(decodeValue("-2", as: .float64).value == .float64(-2))
        #expect(decodeValue("0.1", as: .float64).value == .float64(0.1))
        #expect(decodeValue("1e-7", as: .float64).value == .float64(1e-7))
        #expect(decodeValue("1.7976931348623157e308", as: .float64).value == .float64(Double.greatestFiniteMagnitude))
        #expect(decodeValue("123456789012345678901234567890", as: .float64).value == .float64(1.2345678901234568e29))
        #expect(decodeValue("4.9e-324", as: .float64).value == .float64(Double.leastNonzeroMagnitude))
        #expect(decodeValue("1e309", as: .float64).error?.kind == .outOfRange)
        #expect(decodeValue("0.1", as: .float32).value == .float32(0.1))
        #expect(decodeValue("3.4028236e38", as: .float32).error?.kind == .outOfRange)
        #expect(decodeValue(#""3.25""#, as: .float64).value == .float64(3.25))
        #expect(decodeValue(#""-Infinity""#, as: .float64).value == .float64(-.infinity))
        if case .float64(let nan)? = decodeValue(#""NaN""#, as: .float64).value { #expect(nan.isNaN) } else { Issue.record("NaN") }
        #expect(decodeValue(#""1,5""#, as: .float64).error?.kind == .invalidValue)
        #expect(decodeValue("true", as: .float32).error?.kind == .typeMismatch)
    }

    @Test func decimalsAreExact() throws {
        func decimal(_ text: String) throws -> Value { .decimal(try Decimal(parsingText: text)) }
        #expect(decodeValue("0.1", as: .numeric).value == (try decimal("0.1")))
        #expect(decodeValue("12345678901234567890.123456789", as: .numeric).value == (try decimal("12345678901234567890.123456789")))
        if case .decimal(let value)? = decodeValue("1.50", as: .numeric).value { #expect(value.scale == 2 && value.mantissa == 150) }
        #expect(decodeValue("1e3", as: .numeric).value == (try decimal("1000")))
        #expect(decodeValue("-1.5e-3", as: .numeric).value == (try decimal("-0.0015")))
        #expect(decodeValue(#""99.995""#, as: .numeric).value == (try decimal("99.995")))
        #expect(decodeValue("99.995", as: .decimal(precision: 10, scale: 2)).value == (try decimal("100.00")))
        #expect(decodeValue("123456789.1", as: .decimal(precision: 10, scale: 2)).error?.kind == .outOfRange)
        #expect(decodeValue("1" + String(repeating: "0", count: 40), as: .numeric).error?.kind == .outOfRange)
        #expect(decodeValue(#""abc""#, as: .numeric).error?.kind == .invalidValue)
        #expect(decodeValue("[]", as: .numeric).error?.kind == .typeMismatch)
    }

    @Test func booleansAreStrict() {
        #expect(decodeValue("true", as: .boolean).value == .bool(true))
        #expect(decodeValue("false", as: .boolean).value == .bool(false))
        // RisingWave's default BooleanHandling::Strict: no 0/1, no strings.
        for text in ["1", "0", #""true""#, #""t""#] { #expect(decodeValue(text, as: .boolean).error?.kind == .typeMismatch, "\(text)") }
    }

    @Test func textTakesStringsAndPrimitives() {
        #expect(decodeValue(#""plain""#, as: .varchar).value == .string("plain"))
        #expect(decodeValue(#""a\"b\\c\/d\b\f\n\r\t""#, as: .varchar).value == .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        #expect(decodeValue(#""caf\u00e9 \u20ac \ud83d\ude00""#, as: .varchar).value == .string("café € 😀"))
        #expect(decodeValue("\"naïve 日本 😀\"", as: .varchar).value == .string("naïve 日本 😀"))
        #expect(decodeValue(#""\u0000""#, as: .varchar).value == .string("\u{0}"))
        #expect(decodeValue(#""""#, as: .varchar).value == .string(""))
        // VarcharHandling::OnlyPrimaryTypes: numbers and booleans as their text.
        #expect(decodeValue("42", as: .varchar).value == .string("42"))
        #expect(decodeValue("-7", as: .varchar).value == .string("-7"))
        #expect(decodeValue("1.50", as: .varchar).value == .string("1.5"))
        #expect(decodeValue("1e3", as: .varchar).value == .string("1000.0"))
        #expect(decodeValue("1e17", as: .varchar).value == .string("1e17"))
        #expect(decodeValue("0.0001", as: .varchar).value == .string("0.0001"))
        #expect(decodeValue("1.25e-7", as: .varchar).value == .string("1.25e-7"))
        #expect(decodeValue("true", as: .varchar).value == .string("true"))
        #expect(decodeValue("[1]", as: .varchar).error?.kind == .typeMismatch)
        #expect(decodeValue("{}", as: .varchar).error?.kind == .typeMismatch)
    }

    @Test func stringsAreValidatedUTF8() {
        let column: [(name: String, type: DataType)] = [("v", .varchar), ("w", .int32)]
        let prefix = Array(#"{"v": ""#.utf8), suffix = Array(#""}"#.utf8)
        let invalid: [[UInt8]] = [
            [0xFF], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC3], [0xE2, 0x82],
            [0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
        ]
        for sequence in invalid {
            #expect(rawDecode(prefix + sequence + suffix, column).error?.kind == .invalidString, "\(sequence)")
            // Also inside ignored fields and keys.
            #expect(rawDecode(Array(#"{"x": ""#.utf8) + sequence + suffix, column).error?.kind == .invalidString, "\(sequence)")
            #expect(rawDecode(Array(#"{""#.utf8) + sequence + Array(#"": 1}"#.utf8), column).error?.kind == .invalidString, "\(sequence)")
        }
        #expect(rawDecode(prefix + [0xF0, 0x9F, 0x98, 0x80] + suffix, column).value == [.string("😀"), .null])
        for text in [#""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800x""#, #""\u12""#, #""\u12G4""#, #""\x41""#] {
            #expect(decodeValue(text, as: .varchar).error?.kind == .invalidString, "\(text)")
        }
    }

    @Test func jsonbKeepsAnyValueNormalized() {
        #expect(decodeValue(#"{"b": [1, 2.50, null], "a": "x"}"#, as: .jsonb).value == .jsonb(#"{"a": "x", "b": [1, 2.50, null]}"#))
        #expect(decodeValue(#""text""#, as: .jsonb).value == .jsonb(#""text""#))
        #expect(decodeValue("1e2", as: .jsonb).value == .jsonb("100"))
        #expect(decodeValue("null", as: .jsonb).value == .null)  // JSON null is SQL NULL, as in RisingWave
    }

    @Test func byteaAndInterval() {
        #expect(decodeValue(#""\\xdeadBEEF""#, as: .bytea).value == .bytea([0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(decodeValue(#""abc""#, as: .bytea).value == .bytea(Array("abc".utf8)))
        #expect(decodeValue(#""\\xzz""#, as: .bytea).error?.kind == .invalidValue)
        #expect(decodeValue(#""1 day 02:00:00""#, as: .interval).value == .interval(Interval(days: 1, microseconds: 7_200_000_000)))
        #expect(decodeValue(#""soon""#, as: .interval).error?.kind == .invalidValue)
        #expect(decodeValue("5", as: .interval).error?.kind == .typeMismatch)
    }

    // Expected instants computed with Python's datetime, e.g.
    // (datetime(2024,5,1,12,34,56,tzinfo=timezone(timedelta(hours=2))) - epoch) // timedelta(microseconds=1).
    @Test func timestampsFromStrings() {
        let utc: Int64 = 1_714_566_896_000_000  // 2024-05-01 12:34:56 UTC
        let cases: [(String, DataType, Value)] = [
            (#""2024-05-01T12:34:56.789Z""#, .timestamptz, .timestamptz(1_714_566_896_789_000)),
            (#""2024-05-01 12:34:56+02:00""#, .timestamptz, .timestamptz(1_714_559_696_000_000)),
            (#""2024-05-01T12:34:56-0530""#, .timestamptz, .timestamptz(1_714_586_696_000_000)),
            (#""2024-05-01T12:34:56""#, .timestamptz, .timestamptz(utc)),  // no zone: UTC
            (#""2024-05-01t12:34:56z""#, .timestamptz, .timestamptz(utc)),
            (#""2024-05-01T12:34:56+02:00""#, .timestamp, .timestamp(utc)),  // zone ignored, as Postgres
            (#""2024-05-01 12:34:56""#, .timestamp, .timestamp(utc)),
            (#""2024-05-01""#, .timestamp, .timestamp(1_714_521_600_000_000)),
            (#""2024-02-29T23:59:59.1234565Z""#, .timestamptz, .timestamptz(1_709_251_199_123_456)),  // half to even
            (#""2024-02-29T23:59:59.1234575Z""#, .timestamptz, .timestamptz(1_709_251_199_123_458)),
            (#""2024-02-29T23:59:59.12345650001Z""#, .timestamptz, .timestamptz(1_709_251_199_123_457)),
            (#""infinity""#, .timestamptz, .timestamptz(Int64.max)),  // through SluiceCore's general parser
            (#""20240501 12:34:56""#, .timestamp, .timestamp(utc)),
            (#""2024-05-01""#, .date, .date(19844)),
            (#""1999-12-31""#, .date, .date(10956)),
            (#""12:34:56.5""#, .time, .time(45_296_500_000)),
            (#""12:34""#, .time, .time(45_240_000_000)),
        ]
        for (text, type, expected) in cases {
            #expect(decodeValue(text, as: type).value == expected, "\(text) as \(type.sqlName)")
        }
        for (text, type) in [(#""2024-02-30""#, DataType.date), (#""2024-05-01T25:00:00Z""#, .timestamptz), (#""yesterday""#, .timestamp),
                             (#""2024-05-01T12:34:56+16:00""#, .timestamptz), (#""12:60""#, .time), (#""2024-13-01""#, .timestamp)] {
            #expect(decodeValue(text, as: type).error != nil, "\(text) as \(type.sqlName)")
        }
        #expect(decodeValue(#""2024-02-30""#, as: .date).error?.message == #"field "v": "2024-02-30" is out of range for date"#)
    }

    @Test func temporalsFromIntegers() {
        // RisingWave's GuessNumberUnit: seconds below 1e11, milliseconds below 1e14, microseconds
        // below 1e17, else nanoseconds.
        let instant: Int64 = 1_714_566_896_789_000
        #expect(decodeValue("1714566896", as: .timestamptz).value == .timestamptz(1_714_566_896_000_000))
        #expect(decodeValue("1714566896789", as: .timestamptz).value == .timestamptz(instant))
        #expect(decodeValue("1714566896789000", as: .timestamptz).value == .timestamptz(instant))
        #expect(decodeValue("1714566896789000123", as: .timestamptz).value == .timestamptz(instant))
        #expect(decodeValue("0", as: .timestamp).value == .timestamp(0))
        #expect(decodeValue("-1714566896789", as: .timestamptz).value == .timestamptz(-instant))
        #expect(decodeValue("1714566896.5", as: .timestamptz).error?.kind == .typeMismatch)
        #expect(decodeValue("19844", as: .date).value == .date(19844))
        #expect(decodeValue("45296000000", as: .time).value == .time(45_296_000_000))
        #expect(decodeValue("86400000000", as: .time).error?.kind == .outOfRange)
        #expect(decodeValue("true", as: .date).error?.kind == .typeMismatch)
    }
}

/// Decodes raw bytes (possibly invalid UTF-8) as one message.
func rawDecode(_ bytes: [UInt8], _ columns: [(name: String, type: DataType)]) -> Result<[Value], JSONDecodeError> {
    var decoder = JSONRowDecoder(columns: columns)
    var builders = decoder.makeBuilders()
    let failure: JSONDecodeError? = bytes.withUnsafeBytes { buffer in
        do throws(JSONDecodeError) { try decoder.decodeRow(buffer, into: &builders); return nil } catch { return error }
    }
    if let failure { return .failure(failure) }
    return .success(builders.map { $0.finish().value(at: 0) })
}
