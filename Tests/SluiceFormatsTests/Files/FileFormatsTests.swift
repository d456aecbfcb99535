import Foundation
import SluiceCore
import SluiceFormats
import Testing

/// What file sources and sinks read and write: CSV records (RFC 4180), JSON lines and CSV rows
/// from chunks, gzip inflated in pieces, and Parquet row groups flushed and resumed.
@Suite struct FileFormatsTests {
    private func records(_ text: String, delimiter: Character = ",", piece: Int = .max) -> [[String]] {
        var reader = CSVRecordReader(delimiter: UInt8(ascii: delimiter.unicodeScalars.first!), quote: UInt8(ascii: "\""))
        var records: [[String]] = []
        let bytes = Array(text.utf8)
        var start = 0
        repeat {
            let end = min(bytes.count, start + piece)
            bytes[start ..< end].withUnsafeBytes { chunk in
                reader.feed(chunk, isLast: end == bytes.count) { record in records.append(record.fields.map { String(decoding: $0, as: UTF8.self) }) }
            }
            start = end
        } while start < bytes.count
        return records
    }

    @Test func rfc4180RecordsWithQuotesLineEndsAndCRLF() {
        let text = "a,b\r\n1,\"Smith, John\"\r\n2,\"say \"\"hi\"\"\"\n3,\"two\nlines\"\n4,"
        let expected = [["a", "b"], ["1", "Smith, John"], ["2", "say \"hi\""], ["3", "two\nlines"], ["4", ""]]
        #expect(records(text) == expected)
        for piece in [1, 2, 3, 7] { #expect(records(text, piece: piece) == expected) }
        #expect(records("x;y\n", delimiter: ";") == [["x", "y"]])
    }

    @Test func anUnclosedQuoteIsFlaggedNotLost() {
        var reader = CSVRecordReader(delimiter: UInt8(ascii: ","), quote: UInt8(ascii: "\""))
        var flagged: [Bool] = []
        Array("1,\"open\n2,3\n".utf8).withUnsafeBytes { reader.feed($0, isLast: true) { flagged.append($0.isUnterminated) } }
        #expect(flagged == [true])
    }

    private func chunk() -> Chunk {
        var ids = ColumnBuilder(type: .int64, capacity: 3), names = ColumnBuilder(type: .varchar, capacity: 3)
        var scores = ColumnBuilder(type: .float64, capacity: 3), tags = ColumnBuilder(type: .jsonb, capacity: 3)
        for (id, name, score, tag) in [(1, "plain", 1.5, #"{"a": 1}"#), (-20, "quote \" and , comma\nline", Double.nan, "[1, 2]")] {
            ids.append(int64: Int64(id))
            names.append(.string(name))
            scores.append(double: score)
            tags.append(.jsonb(tag))
        }
        ids.appendNull(); names.appendNull(); scores.appendNull(); tags.appendNull()
        return Chunk(columns: [ids.finish(), names.finish(), scores.finish(), tags.finish()], count: 3)
    }

    @Test func jsonLinesAreJSONDocumentsPythonReads() throws {
        var encoder = RowTextEncoder(kind: .json, columnNames: ["id", "name", "score", "tag"])
        var out: [UInt8] = []
        encoder.append(chunk(), to: &out)
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 3)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
        #expect(first?["id"] as? Int == 1 && first?["name"] as? String == "plain" && first?["score"] as? Double == 1.5)
        #expect((first?["tag"] as? [String: Any])?["a"] as? Int == 1)
        let second = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]
        #expect(second?["name"] as? String == "quote \" and , comma\nline" && second?["score"] as? String == "NaN")
        #expect(lines[2] == #"{"id":null,"name":null,"score":null,"tag":null}"#)
    }

    /// Every column kind the JSON renderer writes through raw memory (booleans, 16-, 32- and
    /// 64-bit integers, text of every length up to 40 with escapes, timestamps with and without
    /// a zone), with nulls, read back by Foundation's parser and compared with each value's own
    /// text form.
    @Test func jsonLinesOfEveryRawColumnKindReadBack() throws {
        let rows = 120
        var flags = ColumnBuilder(type: .boolean, capacity: rows), small = ColumnBuilder(type: .int16, capacity: rows)
        var ints = ColumnBuilder(type: .int32, capacity: rows), bigs = ColumnBuilder(type: .int64, capacity: rows)
        var texts = ColumnBuilder(type: .varchar, capacity: rows)
        var stamps = ColumnBuilder(type: .timestamptz, capacity: rows), plain = ColumnBuilder(type: .timestamp, capacity: rows)
        var expected: [[String: Any]] = []
        for row in 0 ..< rows {
            if row % 7 == 3 {
                for index in [0, 1, 2, 3, 4, 5, 6] {
                    switch index {
                    case 0: flags.appendNull()
                    case 1: small.appendNull()
                    case 2: ints.appendNull()
                    case 3: bigs.appendNull()
                    case 4: texts.appendNull()
                    case 5: stamps.appendNull()
                    default: plain.appendNull()
                    }
                }
                expected.append([:])
                continue
            }
            var text = ""
            for index in 0 ..< row % 41 {
                let letter = Character(UnicodeScalar(UInt8(97 + index % 26)))
                text.append(index % 13 == 5 ? "\"" : index % 17 == 9 ? "\n" : letter)
            }
            let micros = Int64(row - 60) * 86_400_123_457 + Int64(row % 3) * 500_000
            flags.append(.bool(row % 2 == 0))
            small.append(.int16(Int16(row * 271 - 16000)))
            ints.append(.int32(Int32(row) * 17_000_003 - 1_000_000_000))
            bigs.append(int64: Int64(row) * 76_543_210_987_654_321 - Int64.max / 2)
            texts.append(.string(text))
            stamps.append(int64: micros)
            plain.append(int64: micros)
            expected.append([
                "f": row % 2 == 0, "s": row * 271 - 16000, "i": row * 17_000_003 - 1_000_000_000,
                "b": String(Int64(row) * 76_543_210_987_654_321 - Int64.max / 2), "t": text,
                "z": TemporalText.timestamp(micros, withZone: true), "p": TemporalText.timestamp(micros, withZone: false),
            ])
        }
        let chunk = Chunk(columns: [flags, small, ints, bigs, texts, stamps, plain].map { $0.finish() }, count: rows)
        var encoder = RowTextEncoder(kind: .json, columnNames: ["f", "s", "i", "b", "t", "z", "p"])
        var out: [UInt8] = []
        encoder.append(chunk, to: &out)
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == rows)
        for (row, line) in lines.enumerated() {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            let want = expected[row]
            guard !want.isEmpty else {
                #expect(line == #"{"f":null,"s":null,"i":null,"b":null,"t":null,"z":null,"p":null}"#)
                continue
            }
            #expect(object["f"] as? Bool == want["f"] as? Bool, "\(line)")
            #expect(object["s"] as? Int == want["s"] as? Int && object["i"] as? Int == want["i"] as? Int, "\(line)")
            // (A 64-bit integer past a double's precision: compared as written.)
            #expect(line.contains("\"b\":\(want["b"] as! String),"), "\(line)")
            #expect(object["t"] as? String == want["t"] as? String, "\(line)")
            #expect(object["z"] as? String == want["z"] as? String && object["p"] as? String == want["p"] as? String, "\(line)")
        }
    }

    /// Lines laid out by the caller (a Kafka producer's records) are the appended lines less
    /// their newlines, whatever the gaps between them.
    @Test func linesWrittenInPlaceAreTheAppendedLines() {
        for kind in [RowTextEncoder.Kind.json, .csv(CSVTextOptions()), .copyText] {
            var encoder = RowTextEncoder(kind: kind, columnNames: ["id", "name", "score", "tag"])
            var appended: [UInt8] = []
            var ends: [Int] = []
            encoder.append(chunk(), to: &appended, lineEnds: &ends)
            encoder.render(chunk())
            var lengths: [Int] = []
            encoder.lineLengths(3, into: &lengths)
            // Each appended line's length, its newline not counted.
            let appendedLengths: [Int] = (0 ..< 3).map { (row: Int) -> Int in ends[row] - (row == 0 ? 0 : ends[row - 1]) - 1 }
            #expect(lengths == appendedLengths, "\(kind)")
            // Rows 1 and 2 only, with three bytes of gap before each.
            let starts = [3, 3 + lengths[1] + 3]
            var out = [UInt8](repeating: 0xEE, count: starts[1] + lengths[2])
            out.withUnsafeMutableBytes { base in
                starts.withUnsafeBufferPointer { encoder.writeLines(1 ..< 3, to: base.baseAddress!, starts: $0) }
            }
            for (slot, row) in [1, 2].enumerated() {
                let line = Array(appended[ends[row - 1] ..< ends[row] - 1])
                #expect(Array(out[starts[slot] ..< starts[slot] + lengths[row]]) == line, "\(kind) row \(row)")
            }
            #expect(out[0 ..< 3].allSatisfy { $0 == 0xEE })
        }
    }

    @Test func csvRowsQuoteWhatTheyMustAndReadBack() {
        var encoder = RowTextEncoder(kind: .csv(CSVTextOptions()), columnNames: ["id", "name", "score", "tag"])
        var out = encoder.header()
        encoder.append(chunk(), to: &out)
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.hasPrefix("id,name,score,tag\n1,plain,1.5,\"{\"\"a\"\": 1}\"\n"))
        #expect(records(text) == [["id", "name", "score", "tag"], ["1", "plain", "1.5", #"{"a": 1}"#], ["-20", "quote \" and , comma\nline", "NaN", "[1, 2]"], ["", "", "", ""]])
    }

    @Test func copyTextLinesAreWhatCopyToWrites() {
        // The column-by-column encoder against the row-at-a-time COPY TO writer, over every
        // storage the fast paths take and some they leave to the general one.
        var types: [DataType] = [.int64, .varchar, .float64, .jsonb, .boolean, .int16, .int32, .date, .timestamp, .timestamptz, .bytea, .interval]
        types.append(.list(.varchar))
        var builders = types.map { ColumnBuilder(type: $0, capacity: 3) }
        let rows: [[Value]] = [
            [.int64(1), .string("tab\there\nline \\ back\u{8}\u{b}\u{c}\r"), .float64(-0.5), .jsonb(#"{"a": "x\ty"}"#), .bool(true), .int16(-7),
             .int32(Int32.min), .date(19_000), .timestamp(1_700_000_000_123_456), .timestamptz(-1), .bytea([0, 255, 92]),
             .interval(Interval(months: 14, days: -3, microseconds: 3_723_000_001)), .list([.string("a\tb"), .null, .string("c")])],
            [.int64(-20), .string("\\N"), .float64(.nan), .jsonb("[]"), .bool(false), .int16(0), .int32(5), .date(-800_000), .timestamp(0),
             .timestamptz(1_700_000_000_000_000), .bytea([]), .interval(Interval(months: 0, days: 0, microseconds: 0)), .list([])],
            Array(repeating: .null, count: types.count),
        ]
        for row in rows {
            for (index, value) in row.enumerated() { builders[index].append(value) }
        }
        let chunk = Chunk(columns: builders.map { $0.finish() }, count: rows.count)
        var encoder = RowTextEncoder(kind: .copyText, columnNames: types.indices.map { "c\($0)" })
        var out: [UInt8] = []
        encoder.append(chunk, to: &out)
        var writer = CopyRowWriter(format: CopyFormat(kind: .text))
        var expected: [UInt8] = []
        for row in 0 ..< chunk.count { writer.appendRow(row, of: chunk, to: &expected) }
        #expect(String(decoding: out, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("1\ttab\\there\\nline \\\\ back\\b\\v\\f\\r\t-0.5\t{\"a\": \"x\\\\ty\"}\tt\t-7\t-2147483648\t2022-01-08\t"))
        #expect(lines[2] == Substring(Array(repeating: #"\N"#, count: types.count).joined(separator: "\t")))
    }

    @Test func gzipInflatesInPiecesAndRefusesATruncatedStream() throws {
        // `printf 'hello, gzip\n' | gzip -n`: a member with a known body.
        let member: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0x48, 0xaf, 0xca,
            0x2c, 0xe0, 0x02, 0x00, 0x86, 0x1f, 0x82, 0xa4, 0x0c, 0x00, 0x00, 0x00,
        ]
        #expect(GzipInflater.isGzip(member))
        var text: [UInt8] = []
        let inflater = GzipInflater(pieceBytes: 4)
        try (member + member).withRawBytes { (raw) throws(SluiceError) in try inflater.feed(raw, isLast: true) { text += $0 } }
        #expect(String(decoding: text, as: UTF8.self) == "hello, gzip\nhello, gzip\n")
        let cut = GzipInflater()
        #expect(throws: SluiceError.self) {
            try Array(member.prefix(20)).withRawBytes { (raw) throws(SluiceError) in try cut.feed(raw, isLast: true) { _ in } }
        }
    }

    @Test func aParquetFileFlushedAtCheckpointsGoesOnAfterACut() throws {
        let schema = [ParquetColumnSchema(name: "id", type: .int64), ParquetColumnSchema(name: "name", type: .varchar)]
        func rows(_ range: Range<Int>) -> Chunk {
            var ids = ColumnBuilder(type: .int64, capacity: range.count), names = ColumnBuilder(type: .varchar, capacity: range.count)
            for id in range {
                ids.append(int64: Int64(id))
                names.append(.string("n\(id)"))
            }
            return Chunk(columns: [ids.finish(), names.finish()], count: range.count)
        }
        var file: [UInt8] = []
        let writer = try ParquetWriter(schema: schema)
        try writer.write(rows(0 ..< 100))
        file += writer.takeOutput()
        let state = writer.flushRowGroup()
        file += writer.takeOutput()
        let durable = file.count
        // Rows after the checkpoint, then a crash: the file is cut back and the writer resumed.
        try writer.write(rows(100 ..< 150))
        file += writer.takeOutput()
        file.removeLast(file.count - durable)
        let resumed = try ParquetWriter(schema: schema, resuming: state)
        try resumed.write(rows(100 ..< 300))
        file += resumed.takeOutput()
        file += try resumed.finish().tail
        let reader = try ParquetReader(input: ParquetBytesInput(file))
        #expect(reader.rowCount == 300 && reader.rowGroups.count == 2)
        var ids: [Int64] = []
        for group in reader.rowGroups.indices {
            if case .int64(let values) = try reader.readRowGroup(group).columns[0].storage { ids += values }
        }
        #expect(ids == (0 ..< 300).map(Int64.init))
    }

    private func yaml(_ text: String) throws(SluiceError) -> [String] {
        try YAMLDocuments.rows(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func yamlDocumentsBecomeJSONRows() throws {
        #expect(try yaml("a: 1\nb: two\nc:\n  - x\n  - 'y z'\nd: {e: true, f: [1, 2.5]}\n") == [
            #"{"a":1,"b":"two","c":["x","y z"],"d":{"e":true,"f":[1,2.5]}}"#])
        // A sequence of mappings is a row each; several documents; comments and a null.
        #expect(try yaml("# players\n- id: 7  # the first\n  name: \"A\\tB\"\n- id: 8\n  name: ~\n---\nid: 9\n") == [
            #"{"id":7,"name":"A\tB"}"#, #"{"id":8,"name":null}"#, #"{"id":9}"#])
        // Block scalars, a key whose sequence sits at its own indent, numbers as YAML 1.2 reads them.
        #expect(try yaml("note: |\n  one\n  two\nfold: >\n  a\n  b\nlist:\n- 1\n- 2\nn: 007\nh: 0x1F\nd: 2017-06-04\n") == [
            #"{"note":"one\ntwo\n","fold":"a b\n","list":[1,2],"n":7,"h":31,"d":"2017-06-04"}"#])
    }

    @Test func yamlItCannotReadIsAnErrorNamingTheLine() {
        for text in ["a: &anchor 1\nb: *anchor\n", "a: [1, 2\n", "a: 1\na: 2\n", "- 1\n- 2\n", "x\ny: 1\n"] {
            #expect(throws: SluiceError.self) { try yaml(text) }
        }
        // Nesting is bounded, not a stack overflow.
        let deep = String(repeating: "[", count: 10_000)
        #expect(throws: SluiceError.self) { try yaml("a: " + deep) }
        var nested = ""
        for level in 0 ..< 200 { nested += String(repeating: " ", count: level) + "k\(level):\n" }
        #expect(throws: SluiceError.self) { try yaml(nested) }
    }

    @Test func theCSVFuzzHarnessHoldsForSeededInputs() {
        var random = SplitMix64(seed: 7)
        var fuzz = CSVRecordFuzz()
        for _ in 0 ..< 20_000 { fuzz.run(CSVRecordFuzz.input(random: &random)) }
        #expect(fuzz.records > 0)
    }
}
