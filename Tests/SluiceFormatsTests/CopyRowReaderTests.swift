import SluiceCore
import SluiceFormats
import Testing

@Suite struct CopyRowReaderTests {
    /// The fields of every row of `data`, NULL as nil.
    private func rows(_ data: String, _ format: CopyFormat, columns: [String] = ["a", "b"]) throws(SluiceError) -> [[String?]] {
        var reader = CopyRowReader(format: format, columnNames: columns)
        var rows: [[String?]] = []
        let collect = { (row: CopyRow) throws(SluiceError) in
            rows.append((0 ..< row.count).map { row.isNull[$0] ? nil : row.string(at: $0) })
        }
        try reader.read(Array(data.utf8), collect)
        try reader.finish(collect)
        return rows
    }

    private func error(_ data: String, _ format: CopyFormat) -> SluiceError? {
        do throws(SluiceError) {
            _ = try rows(data, format)
            return nil
        } catch {
            return error
        }
    }

    @Test func textEscapesNullsAndTheEndMarker() throws {
        let text = CopyFormat(kind: .text)
        #expect(try rows("1\t\\N\n\\t\\n\\\\\t\\101\\x41\\x4g\\7\n\\N\\N\tlast", text) == [
            ["1", nil], ["\t\n\\", "AA\u{4}g\u{7}"], ["NN", "last"],
        ])
        #expect(try rows("a\\\tb\tc\n\\.\nignored\n", text) == [["a\tb", "c"]])
        #expect(try rows("x\\\ny\tz\n", text) == [["x\ny", "z"]])
    }

    @Test func csvQuotesNullsAndHeaders() throws {
        var csv = CopyFormat(kind: .csv)
        #expect(try rows("1,\"a,\"\"b\"\"\"\n,\"\"\n\"multi\nline\",x\n", csv) == [["1", "a,\"b\""], [nil, ""], ["multi\nline", "x"]])
        csv.header = .present
        #expect(try rows("anything,at all\n1,2\n", csv) == [["1", "2"]])
        csv.header = .match
        #expect(try rows("a,b\n1,2\n", csv) == [["1", "2"]])
        #expect(error("a,c\n1,2\n", csv)?.message == "column name mismatch in header line field 2: got \"c\", expected \"b\"")
        csv.header = .absent
        csv.forceNull = [1]
        csv.forceNotNull = [0]
        #expect(try rows(",\"\"\n", csv) == [["", nil]])
    }

    @Test func layoutErrorsNameTheLine() {
        let failure = error("1,\"open\n", CopyFormat(kind: .csv))
        #expect(failure?.code == .badCopyFileFormat)
        #expect(failure?.message == "unterminated CSV quoted field")
        #expect(failure?.context == "line 1: \"1,\"open\n\"")
        let carriageReturn = error("1\t2\n3\t4\r\n", CopyFormat(kind: .text))
        #expect(carriageReturn?.message == "literal carriage return found in data")
        #expect(carriageReturn?.context == "line 2")
        #expect(error("1\t\\xff\n", CopyFormat(kind: .text))?.code == .characterNotInRepertoire)
    }

    @Test func writerOutputReadsBack() throws {
        let chunk = Chunk(columns: [
            Column(type: .varchar, values: [.string("tab\there"), .null, .string(""), .string("q\"uote,\nline")]),
            Column(type: .int32, values: [.int32(1), .int32(2), .null, .int32(4)]),
        ])
        for kind in [CopyFormat.Kind.text, .csv] {
            var writer = CopyRowWriter(format: CopyFormat(kind: kind))
            var out: [UInt8] = []
            for rowIndex in 0 ..< chunk.count { writer.appendRow(rowIndex, of: chunk, to: &out) }
            #expect(try rows(String(decoding: out, as: UTF8.self), CopyFormat(kind: kind)) == [
                ["tab\there", "1"], [nil, "2"], ["", nil], ["q\"uote,\nline", "4"],
            ])
        }
        var writer = CopyRowWriter(format: CopyFormat(kind: .text))
        var out: [UInt8] = []
        writer.appendRow(0, of: chunk, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "tab\\there\t1\n")
    }

    /// Seeded random inputs: no crash, the same rows however the bytes are cut, clean errors,
    /// and written rows read back (the harness checks each with preconditions).
    @Test func fuzzedInputsAreReadTheSameInPieces() {
        var random = SplitMix64(seed: 7)
        var fuzz = CopyRowFuzz()
        for _ in 0 ..< 20_000 { fuzz.run(CopyRowFuzz.input(random: &random)) }
        #expect(fuzz.rows > 1000)
        #expect(fuzz.errors > 100)
    }
}
