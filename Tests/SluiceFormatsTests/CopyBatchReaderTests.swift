import SluiceCore
import SluiceFormats
import Testing

@Suite struct CopyBatchReaderTests {
    /// The rows of `data` as the batch reader gives them, with their line numbers and whether
    /// the row reader split them (NULL as nil); the data comes in pieces of `piece` bytes.
    private func rows(
        _ data: String, _ format: CopyFormat, columns: [String] = ["a", "b"], piece: Int = .max, batchRows: Int = 4, readThreshold: Int = 1
    ) throws(SluiceError) -> [(line: Int, fields: [String?], isUnescaped: Bool)] {
        var reader = CopyBatchReader(format: format, columnNames: columns, batchRows: batchRows, readThreshold: readThreshold)
        var rows: [(line: Int, fields: [String?], isUnescaped: Bool)] = []
        let collect = { (batch: CopyBatch) throws(SluiceError) in
            #expect(batch.rowCount <= batchRows)
            for row in 0 ..< batch.rowCount {
                let fields = (0 ..< batch.fieldCount).map { batch.field(row, $0).map { String(decoding: $0, as: UTF8.self) } }
                rows.append((batch.lineNumbers[row], fields, batch.isUnescaped[row]))
            }
        }
        let bytes = Array(data.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + min(piece, bytes.count - start))
            try reader.read(Array(bytes[start ..< end]), collect)
            start = end
        }
        try reader.finish(collect)
        return rows
    }

    private func error(_ data: String, _ format: CopyFormat, piece: Int = .max) -> SluiceError? {
        do throws(SluiceError) {
            _ = try rows(data, format, piece: piece)
            return nil
        } catch {
            return error
        }
    }

    @Test func plainLinesAreSplitInPlaceAndOthersByTheRowReader() throws {
        let text = CopyFormat(kind: .text)
        for piece in [1, 3, 7, Int.max] {
            let read = try rows("1\tfirst\n2\tplain\n3\t\\N\n\\N\tx\\ty\n5\t\n6\tlast", text, piece: piece)
            #expect(read.map(\.line) == [1, 2, 3, 4, 5, 6])
            #expect(read.map(\.fields) == [["1", "first"], ["2", "plain"], ["3", nil], [nil, "x\ty"], ["5", ""], ["6", "last"]])
            // The first line sets the line ends, so the row reader reads it; the line with an
            // escape too, and the last, which has no line end; `\N` alone stays plain.
            #expect(read.map(\.isUnescaped) == [true, false, false, true, false, true])
        }
    }

    @Test func csvNullsQuotesAndLineEnds() throws {
        var csv = CopyFormat(kind: .csv)
        let read = try rows("h1,h2\r\n1,\r\n,\"a,b\"\r\n3,\"multi\r\nline\"\r\n4,x\r\n", csv, piece: 5)
        #expect(read.map(\.fields) == [["h1", "h2"], ["1", nil], [nil, "a,b"], ["3", "multi\r\nline"], ["4", "x"]])
        #expect(read.map(\.isUnescaped) == [true, false, true, true, false])
        csv.header = .present
        csv.forceNotNull = [1]
        #expect(try rows("a,b\n1,\n,2\n", csv).map(\.fields) == [["1", ""], [nil, "2"]])
        csv.header = .absent
        csv.forceNotNull = []
        csv.null = Array("NULL".utf8)
        #expect(try rows("x,NULL\nNULL,\"NULL\"\n", csv).map(\.fields) == [["x", nil], [nil, "NULL"]])
    }

    @Test func endMarkerAndCarriageReturns() throws {
        let text = CopyFormat(kind: .text)
        #expect(try rows("1\ta\n2\tb\n\\.\n3\tc\n", text).map(\.fields) == [["1", "a"], ["2", "b"]])
        let carriageReturn = error("1\t2\n3\t4\r\n", text)
        #expect(carriageReturn?.message == "literal carriage return found in data")
        #expect(carriageReturn?.context == "line 2")
        #expect(error("1\t2\r\n3\t4\n", text)?.message == "literal newline found in data")
        #expect(try rows("1\t2\r\n3\t4\r\n", text).map(\.fields) == [["1", "2"], ["3", "4"]])
    }

    @Test func aRowWithTheWrongFieldCountFailsAfterTheRowsBeforeIt() {
        var handed: [[String?]] = []
        var reader = CopyBatchReader(format: CopyFormat(kind: .text), columnNames: ["a", "b"])
        var failure: SluiceError?
        let collect = { (batch: CopyBatch) throws(SluiceError) in
            for row in 0 ..< batch.rowCount {
                handed.append((0 ..< 2).map { batch.field(row, $0).map { String(decoding: $0, as: UTF8.self) } })
            }
        }
        do throws(SluiceError) {
            try reader.read(Array("1\t2\n3\t4\n5\n6\t7\n".utf8), collect)
            try reader.finish(collect)
        } catch {
            failure = error
        }
        #expect(handed == [["1", "2"], ["3", "4"]])
        #expect(failure?.code == .badCopyFileFormat)
        #expect(failure?.message == "missing data for column \"b\"")
        #expect(failure?.context == "line 3: \"5\"")
        #expect(error("1\t2\n3\t4\t5\n", CopyFormat(kind: .text))?.message == "extra data after last expected column")
    }

    @Test func nonASCIIIsCheckedAsUTF8() throws {
        let text = CopyFormat(kind: .text)
        #expect(try rows("1\ta\n2\t\u{00e9}t\u{00e9}\n", text).map(\.fields) == [["1", "a"], ["2", "\u{00e9}t\u{00e9}"]])
        let bad = error("1\ta\n2\t\\xff\n", text)
        #expect(bad?.code == .characterNotInRepertoire)
        #expect(bad?.context == "line 2")
        #expect(error("1,a\n2,\"open\n", CopyFormat(kind: .csv))?.message == "unterminated CSV quoted field")
    }

    @Test func rowsMatchTheRowReaderForLargeInput() throws {
        var random = SplitMix64(seed: 11)
        var data = ""
        var expected: [[String?]] = []
        for id in 0 ..< 5_000 {
            let isNull = random.next(below: 10) == 0
            let hasTab = random.next(below: 20) == 0
            let digits = "v\(random.next(below: 1_000_000))"
            let value = digits + (hasTab ? "\t" : "")
            data += "\(id)\t" + (isNull ? "\\N" : digits + (hasTab ? "\\t" : "")) + "\n"
            expected.append([String(id), isNull ? nil : value])
        }
        for (piece, batchRows, threshold) in [(8192, 1024, CopyBatchReader.readThreshold), (100, 7, 64), (1, 1024, 1)] {
            let read = try rows(data, CopyFormat(kind: .text), piece: piece, batchRows: batchRows, readThreshold: threshold)
            #expect(read.map(\.fields) == expected)
            #expect(read.map(\.line) == Array(1 ... 5_000))
        }
    }

    /// Malformed input of every kind: the batch reader never crashes and gives what the row
    /// reader gives (the harness checks each input with preconditions).
    @Test func fuzzedInputsReadAsTheRowReaderReadsThem() {
        var random = SplitMix64(seed: 40)
        var fuzz = CopyRowFuzz()
        for _ in 0 ..< 20_000 { fuzz.run(CopyRowFuzz.input(random: &random)) }
        #expect(fuzz.rows > 1000)
        #expect(fuzz.errors > 100)
    }
}
