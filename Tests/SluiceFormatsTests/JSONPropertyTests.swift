import Testing
import SluiceCore
@testable import SluiceFormats

/// Random schemas, random values, JSON text written by a simple independent encoder: the
/// decoder must give back the values; and the fuzz harness must survive mutated inputs.
@Suite("JSON row decoder: properties and fuzzing")
struct JSONPropertyTests {
    /// A random type, nesting at most `depth` more levels.
    static func randomType(_ random: inout SplitMix64, depth: Int) -> DataType {
        let scalars: [DataType] = [.boolean, .int16, .int32, .int64, .float64, .numeric, .varchar, .date, .timestamp, .timestamptz, .jsonb]
        switch depth > 0 ? random.next(below: 8) : 0 {
        case 6:
            let count = 1 + random.next(below: 3)
            return .structure((0 ..< count).map { StructField(name: "f\($0)", type: randomType(&random, depth: depth - 1)) })
        case 7: return .list(randomType(&random, depth: depth - 1))
        default: return scalars[random.next(below: scalars.count)]
        }
    }

    /// A random value of `type` and its JSON text, written independently of the decoder.
    static func randomValue(_ type: DataType, _ random: inout SplitMix64) -> (Value, String) {
        if random.next(below: 6) == 0 { return (.null, "null") }
        switch type {
        case .boolean:
            let value = random.next(below: 2) == 0
            return (.bool(value), value ? "true" : "false")
        case .int16:
            let value = Int16(truncatingIfNeeded: random.next())
            return (.int16(value), random.next(below: 4) == 0 ? "\"\(value)\"" : "\(value)")
        case .int32:
            let value = Int32(truncatingIfNeeded: random.next())
            return (.int32(value), "\(value)")
        case .int64:
            let value = Int64(bitPattern: random.next()) >> random.next(below: 64)
            return (.int64(value), "\(value)")
        case .float64:
            let value = Double(Int64(bitPattern: random.next()) >> 20) / Double(1 << random.next(below: 30))
            return (.float64(value), "\(value)")  // Swift prints the shortest round-trip form
        case .decimal:
            let mantissa = Int64(bitPattern: random.next()) >> random.next(below: 60)
            let scale = random.next(below: 8)
            var digits = String(mantissa.magnitude)
            if scale > 0 {
                if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
                digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -scale))
            }
            let text = (mantissa < 0 ? "-" : "") + digits
            return (.decimal(Decimal(mantissa: Int128(mantissa), scale: Int16(scale))), random.next(below: 3) == 0 ? "\"\(text)\"" : text)
        case .varchar:
            let alphabet: [String] = ["a", "Z", " ", "\"", "\\", "\n", "\u{1}", "é", "€", "😀", "/", "\u{7F}"]
            let text = (0 ..< random.next(below: 12)).map { _ in alphabet[random.next(below: alphabet.count)] }.joined()
            return (.string(text), JSONText.quoted(text))
        case .date:
            let days = Int32(random.next(below: 80_000)) - 20_000  // 1915 … 2134
            let date = CivilDate(daysSinceUnixEpoch: Int(days))
            return (.date(days), "\"\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))\"")
        case .timestamp, .timestamptz:
            let micros = Int64(random.next(below: 4_000_000_000)) * 1_000_000 + Int64(random.next(below: 1_000_000)) - 1_000_000_000_000_000
            let (days, time) = TemporalUnits.split(micros)
            let date = CivilDate(daysSinceUnixEpoch: Int(days))
            let seconds = time / 1_000_000
            let text = "\(pad(date.year, 4))-\(pad(date.month, 2))-\(pad(date.day, 2))T\(pad(Int(seconds / 3600), 2)):\(pad(Int(seconds / 60 % 60), 2)):\(pad(Int(seconds % 60), 2)).\(pad(Int(time % 1_000_000), 6))"
            if type == .timestamp { return (.timestamp(micros), "\"\(text)\"") }
            // Write it in a random zone: the local time shifts, the instant does not.
            let offsetMinutes = random.next(below: 24 * 60 + 1) - 12 * 60
            let local = micros + Int64(offsetMinutes) * 60_000_000
            let (localDays, localTime) = TemporalUnits.split(local)
            let localDate = CivilDate(daysSinceUnixEpoch: Int(localDays))
            let localSeconds = localTime / 1_000_000
            let zone = offsetMinutes == 0 ? "Z" : "\(offsetMinutes < 0 ? "-" : "+")\(pad(abs(offsetMinutes) / 60, 2)):\(pad(abs(offsetMinutes) % 60, 2))"
            let localText = "\(pad(localDate.year, 4))-\(pad(localDate.month, 2))-\(pad(localDate.day, 2)) \(pad(Int(localSeconds / 3600), 2)):\(pad(Int(localSeconds / 60 % 60), 2)):\(pad(Int(localSeconds % 60), 2)).\(pad(Int(localTime % 1_000_000), 6))\(zone)"
            return (.timestamptz(micros), "\"\(localText)\"")
        case .jsonb:
            let documents = [("[1, 2]", "[1, 2]"), ("{\"b\":1,\"a\":[true]}", "{\"a\": [true], \"b\": 1}"), ("\"s\"", "\"s\""), ("-1.50", "-1.50")]
            let (text, normalized) = documents[random.next(below: documents.count)]
            return (.jsonb(normalized), text)
        case .structure(let fields):
            var values: [Value] = []
            var members: [String] = []
            for field in fields {
                let (value, text) = randomValue(field.type, &random)
                values.append(value)
                if value == .null && random.next(below: 2) == 0 { continue }  // missing is NULL too
                members.append("\(JSONText.quoted(random.next(below: 4) == 0 ? field.name.uppercased() : field.name)): \(text)")
            }
            if random.next(below: 3) == 0 { members.append("\"zz_ignored\": {\"x\": [1, \"y\"]}") }
            members.shuffle(using: &random)
            return (.structure(values), "{" + members.joined(separator: random.next(below: 2) == 0 ? "," : " ,\n ") + "}")
        case .list(let element):
            let items = (0 ..< random.next(below: 4)).map { _ in randomValue(element, &random) }
            return (.list(items.map(\.0)), "[" + items.map(\.1).joined(separator: ", ") + "]")
        default:
            return (.null, "null")
        }
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    @Test func randomDocumentsRoundTrip() {
        var random = SplitMix64(seed: 2024)
        for _ in 0 ..< 60 {
            let fields = (0 ..< 1 + random.next(below: 6)).map { StructField(name: "c\($0)", type: Self.randomType(&random, depth: 2)) }
            let columns = fields.map { (name: $0.name, type: $0.type) }
            var decoder = JSONRowDecoder(columns: columns)
            var builders = decoder.makeBuilders()
            var expectedRows: [[Value]] = []
            for _ in 0 ..< 40 {
                let (row, text) = Self.randomValue(.structure(fields), &random)
                guard case .structure(let values) = row else { continue }  // a null row is not an object
                let failure: JSONDecodeError? = Array(text.utf8).withUnsafeBytes { bytes in
                    do throws(JSONDecodeError) { try decoder.decodeRow(bytes, into: &builders); return nil } catch { return error }
                }
                #expect(failure == nil, "\(text): \(String(describing: failure))")
                if failure == nil { expectedRows.append(values) }
            }
            let chunk = Chunk(columns: builders.map { $0.finish() })
            for (rowIndex, expected) in expectedRows.enumerated() {
                let actual = chunk.columns.map { $0.value(at: rowIndex) }
                #expect(actual == expected, "schema \(columns.map { $0.type.sqlName })")
            }
        }
    }

    @Test func fixedSeedFuzzLoop() {
        var random = SplitMix64(seed: 99)
        var fuzz = JSONDecodeFuzz()
        for _ in 0 ..< 4000 { fuzz.run(JSONDecodeFuzz.input(random: &random)) }
        #expect(fuzz.rows > 100)
        #expect(fuzz.errors > 1000)
        // The seeds themselves decode.
        var clean = JSONDecodeFuzz()
        for seed in JSONDecodeFuzz.seeds {
            let decoded = clean.run(Array(seed.utf8))
            #expect(decoded, "\(seed)")
        }
    }

    @Test func builderTruncationRestoresEveryLayout() {
        let type = DataType.structure([StructField(name: "a", type: .list(.varchar)), StructField(name: "b", type: .numeric)])
        var builder = ColumnBuilder(type: type)
        builder.append(.structure([.list([.string("x"), .string("y")]), .decimal(Decimal(Int64(5)))]))
        let before = builder.finish().values
        builder.append(.structure([.list([.string("z")]), .null]))
        builder.appendNull()
        builder.truncate(to: 1)
        #expect(builder.count == 1)
        #expect(builder.finish().values == before)
        builder.append(.null)
        #expect(builder.finish().values == before + [.null])
    }
}
