import SluiceCore

/// The fuzz harness of what file sources and sinks parse and write, shared by `sluice fuzz csv`
/// and the unit tests. Each input is CSV options and bytes — random bytes, mutated CSV, or rows
/// the ``RowTextEncoder`` wrote. It checks that nothing crashes; that ``CSVRecordReader`` gives
/// the same records however the bytes are cut into pieces; that rows the encoder wrote read back
/// as they were; that ``YAMLDocuments`` reads the bytes or refuses them; and that
/// ``GzipInflater`` over gzip data cut short or damaged either inflates or throws, never traps.
package struct CSVRecordFuzz {
    package struct Input {
        package var options: CSVTextOptions
        package var bytes: [UInt8]
        /// The rows written, when `bytes` came from the encoder (one text column per field).
        package var written: [[String]]?
        package var cuts: [Int]
    }

    static let seeds: [String] = [
        "a,b,c\n1,\"Smith, John\",\"said \"\"hi\"\"\"\n2,,\"\"\n3,\"multi\nline\",x\n",
        "1;2;3\r\n4;5;6\r\n",
        "\"never closed\n1,2\n",
        "x,y\n\n\n1,\n",
        "\u{00e9},\u{1F600}\n\"a\"\"b\",c",
        "meta:\n  version: 1.0\ninfo:\n  dates:\n  - 2017-06-04\n  teams: [England, 'South Africa']\n  note: |\n    two\n    lines\n",
        "- id: 1\n  name: \"a\\tb\"\n- id: 2\n  tags: {x: 1, y: [2, 3]}\n---\nid: 3\n",
    ]

    package private(set) var records = 0

    package init() {}

    package static func input(random: inout SplitMix64) -> Input {
        var options = CSVTextOptions()
        if random.next(below: 3) == 0 { options.delimiter = UInt8(ascii: [";", "|", "\t"][random.next(below: 3)]) }
        if random.next(below: 5) == 0 { options.quote = UInt8(ascii: "'") }
        var bytes: [UInt8]
        var written: [[String]]?
        switch random.next(below: 4) {
        case 0:
            bytes = (0 ..< random.next(below: 96)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        case 1:
            let alphabet = ["a", "1", ",", ";", "|", "\t", "\"", "'", "\n", "\r\n", "\r", " ", "\u{00e9}", ""]
            let rows = (0 ..< 1 + random.next(below: 5)).map { _ in
                (0 ..< 1 + random.next(below: 4)).map { _ in
                    (0 ..< random.next(below: 6)).map { _ in alphabet[random.next(below: alphabet.count)] }.joined()
                }
            }
            // Empty fields would read as NULL (the default null text): every field has a byte.
            let nonEmpty = rows.map { $0.map { $0.isEmpty ? "x" : $0 } }
            let columns = nonEmpty.map(\.count).max() ?? 1
            let padded = nonEmpty.map { $0 + Array(repeating: "z", count: columns - $0.count) }
            var encoder = RowTextEncoder(kind: .csv(options), columnNames: (0 ..< columns).map { "c\($0)" })
            bytes = []
            for row in padded {
                var builders = (0 ..< columns).map { _ in ColumnBuilder(type: .varchar, capacity: 1) }
                for (index, field) in row.enumerated() { builders[index].append(.string(field)) }
                encoder.append(Chunk(columns: builders.map { $0.finish() }, count: 1), to: &bytes)
            }
            written = padded
        default:
            bytes = Array(seeds[random.next(below: seeds.count)].utf8)
            for _ in 0 ..< random.next(below: 4) {
                guard !bytes.isEmpty else { break }
                bytes[random.next(below: bytes.count)] = UInt8(truncatingIfNeeded: random.next())
            }
        }
        let cuts = (0 ..< random.next(below: 4)).map { _ in random.next(below: bytes.count + 1) }.sorted()
        return Input(options: options, bytes: bytes, written: written, cuts: cuts)
    }

    /// Runs one input; a broken invariant stops the process with the input described.
    package mutating func run(_ input: Input) {
        let whole = Self.read(input.bytes, options: input.options, cuts: [])
        let pieces = Self.read(input.bytes, options: input.options, cuts: input.cuts)
        precondition(whole == pieces, "CSV records differ when the input is cut at \(input.cuts): \(input.bytes)")
        records += whole.count
        if let written = input.written {
            let read = whole.map { $0.map { String(decoding: $0, as: UTF8.self) } }
            precondition(read == written, "CSV written as \(written) read back as \(read)")
        }
        // The same bytes as YAML: rows or an error, never a trap; and every row is JSON the
        // JSON row decoder takes.
        if let rows = try? YAMLDocuments.rows(input.bytes) {
            var decoder = JSONRowDecoder(columns: [(name: "id", type: .varchar)])
            var builders = decoder.makeBuilders()
            for row in rows {
                let parsed: Bool = row.withUnsafeBytes { (try? decoder.decodeRow($0, into: &builders)) != nil }
                precondition(parsed || !row.isEmpty, "YAML gave an empty row for \(input.bytes)")
            }
        }
        // Gzip of the bytes, then cut short or damaged: inflated or refused, never a trap.
        var gzip: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + input.bytes.prefix(32)
        if !input.cuts.isEmpty { gzip = Array(gzip.prefix(input.cuts[0] + 2)) }
        let inflater = GzipInflater(pieceBytes: 64)
        try? gzip.withRawBytes { (raw) throws(SluiceError) in try inflater.feed(raw, isLast: true) { _ in } }
    }

    static func read(_ bytes: [UInt8], options: CSVTextOptions, cuts: [Int]) -> [[[UInt8]]] {
        var reader = CSVRecordReader(delimiter: options.delimiter, quote: options.quote)
        var records: [[[UInt8]]] = []
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            bytes[start ..< cut].withUnsafeBytes { piece in
                reader.feed(piece, isLast: cut == bytes.count) { records.append($0.fields) }
            }
            start = cut
        }
        return records
    }
}
