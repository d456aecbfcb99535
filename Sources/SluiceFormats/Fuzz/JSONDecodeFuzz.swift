import SluiceCore

/// The JSON decoder's fuzz harness, shared by `sluice fuzz json` and the unit tests: seeded
/// inputs (mutated valid documents, random bytes) decoded against a schema with every type,
/// checking that nothing crashes, that a failed message leaves every builder at its previous
/// count, and that a decoded row adds exactly one row to every builder.
package struct JSONDecodeFuzz {
    /// A schema with every type the decoder takes, nested structs and lists included.
    package static let columns: [(name: String, type: DataType)] = [
        ("player", .varchar), ("score", .int32), ("small", .int16), ("big", .int64), ("ratio", .float64), ("weight", .float32),
        ("price", .decimal(precision: 10, scale: 2)), ("amount", .numeric), ("flag", .boolean), ("day", .date), ("at", .time),
        ("local_ts", .timestamp), ("event_ts", .timestamptz), ("span", .interval), ("doc", .jsonb), ("blob", .bytea),
        ("location", .structure([StructField(name: "lat", type: .float64), StructField(name: "Lon", type: .float64),
                                 StructField(name: "tags", type: .list(.varchar))])),
        ("readings", .list(.structure([StructField(name: "k", type: .varchar), StructField(name: "v", type: .list(.int64))]))),
    ]

    /// Valid documents for ``columns``.
    package static let seeds: [String] = [
        #"{"player": "alice", "score": 42, "small": -7, "big": 9007199254740993, "ratio": 0.25, "weight": 1.5, "price": "12.34", "amount": 1e3, "flag": true, "day": "2024-05-01", "at": "12:34:56.5", "local_ts": "2024-05-01 12:34:56", "event_ts": "2024-05-01T12:34:56.789Z", "span": "1 day 2 hours", "doc": {"b": [1, 2.50, null], "a": "x"}, "blob": "\\xdeadbeef", "location": {"lat": 52.5, "LON": 13.4, "tags": ["a", "b\u00e9"]}, "readings": [{"k": "t", "v": [1, 2]}, {"K": "u", "v": []}, null]}"#,
        #"{"SCORE": "17", "Player": "b\ud83d\ude00b", "event_ts": 1714566896789, "location": "{\"lat\": 1, \"lon\": 2}", "readings": [], "flag": false, "extra": {"deep": [[[{}]]]}}"#,
        #"{"player": null, "score": -2147483648, "big": "-9223372036854775808", "ratio": "NaN", "price": 0.005, "event_ts": "2024-05-01 12:34:56+02:00", "day": 19844, "at": 45296000000}"#,
        #"{}"#,
        #" { "player" : "tab\tnew\nline" , "ratio" : -1.5E-3 , "doc" : "just a string" } "#,
    ]

    /// JSON fragments the mutator splices in.
    static let dictionary: [String] = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "\\udc00", "\\u0000", "null", "true", "false", "-", "0", "-0",
        "1e309", "1.5", "3000000000", "9223372036854775808", "-9223372036854775809", "\"2024-02-30\"", "\"24:00:00\"",
        "\"infinity\"", "\"2024-05-01T25:00:00Z\"", "\"abc\"", "{\"lat\": ", "[{\"k\": ", "\"score\": ", "\"SCORE\": ", "\u{00e9}",
        "\u{1F600}", "\t", "\n", "0x10", "01", ".5", "1.", "1e", "\"\\x0g\"", "{\"a\":{\"a\":{\"a\":",
    ]

    package private(set) var decoder = JSONRowDecoder(columns: columns, maximumDepth: 32)
    package private(set) var builders: [ColumnBuilder]
    package private(set) var rows = 0
    package private(set) var errors = 0

    package init() {
        builders = decoder.makeBuilders()
    }

    /// The next input: usually a mutated seed, sometimes random bytes or deep nesting.
    package static func input(random: inout SplitMix64) -> [UInt8] {
        switch random.next(below: 16) {
        case 0:
            return (0 ..< random.next(below: 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        case 1:
            let depth = 1 + random.next(below: 200)
            return Array(("{\"doc\": " + String(repeating: "[", count: depth) + String(repeating: "]", count: random.next(below: depth + 1)) + "}").utf8)
        default:
            return mutate(Array(seeds[random.next(below: seeds.count)].utf8), random: &random)
        }
    }

    /// Byte- and token-level mutations of `input`.
    package static func mutate(_ input: [UInt8], random: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0 ... random.next(below: 4) {
            switch random.next(below: 7) {
            case 0: ByteMutations.overwriteByte(&bytes, random: &random)
            case 1: ByteMutations.deleteRun(&bytes, upTo: 12, random: &random)
            case 2: ByteMutations.insert(Array(dictionary[random.next(below: dictionary.count)].utf8), into: &bytes, random: &random)
            case 3: ByteMutations.duplicateRun(&bytes, upTo: 24, random: &random)
            case 4: ByteMutations.splice(&bytes, with: Array(seeds[random.next(below: seeds.count)].utf8), random: &random)
            case 5: ByteMutations.truncate(&bytes, random: &random)
            default:
                // Replace one digit run or quoted word with a dictionary entry.
                guard let index = bytes.indices.randomElement(using: &random) else { continue }
                bytes.replaceSubrange(index ..< min(bytes.count, index + 1 + random.next(below: 6)),
                                      with: Array(dictionary[random.next(below: dictionary.count)].utf8))
            }
        }
        return bytes
    }

    /// Decodes `input` and checks the builders; returns whether it became a row.
    @discardableResult
    package mutating func run(_ input: [UInt8]) -> Bool {
        let before = builders[0].count
        let decoded: Bool = input.withUnsafeBytes { bytes in
            do throws(JSONDecodeError) {
                try decoder.decodeRow(bytes, into: &builders)
                return true
            } catch {
                precondition(!error.message.isEmpty && error.offset >= 0 && error.offset <= input.count, "malformed error \(error)")
                return false
            }
        }
        let expected = before + (decoded ? 1 : 0)
        for builder in builders {
            precondition(builder.count == expected, "builder of \(builder.type.sqlName) has \(builder.count) rows, expected \(expected) (decoded: \(decoded))")
        }
        if decoded { rows += 1 } else { errors += 1 }
        if builders[0].count >= Chunk.preferredSize || (!decoded && input.count % 7 == 0) {
            // Finishing checks the nested invariants (struct children and list offsets).
            let chunk = Chunk(columns: builders.map { $0.finish() })
            for column in chunk.columns { Self.check(column, count: chunk.count) }
            builders = decoder.makeBuilders()
        }
        return decoded
    }

    private static func check(_ column: Column, count: Int) {
        precondition(column.count == count, "column of \(column.type.sqlName) has \(column.count) rows, expected \(count)")
        switch column.storage {
        case .structure(let children, _):
            for child in children { check(child, count: count) }
        case .list(let offsets, let elements):
            precondition(offsets.first == 0 && zip(offsets, offsets.dropFirst()).allSatisfy { $0 <= $1 }, "list offsets out of order")
            check(elements, count: Int(offsets.last ?? 0))
        case .bytes(let bytes):
            precondition(bytes.offsets.count == count + 1 && Int(bytes.offsets.last!) == bytes.data.count, "byte offsets disagree with data")
            if column.type == .varchar || column.type == .jsonb {
                for row in 0 ..< count {
                    precondition(bytes.withBytes(at: row) { String(validating: $0, as: UTF8.self) != nil }, "invalid UTF-8 in a text column")
                }
            }
        default:
            break
        }
    }
}
