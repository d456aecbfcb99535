import SluiceCore

/// The COPY row reader's fuzz harness, shared by `sluice fuzz copy` and the unit tests. Each
/// input is a format (text or CSV, with or without a header, odd delimiters and null texts) and
/// bytes — mutated COPY data, random bytes, or rows the ``CopyRowWriter`` wrote. It checks that
/// nothing crashes; that the reader gives the same rows, or the same error, however the bytes
/// are cut into pieces; that errors carry a COPY SQLSTATE and a line; and that rows the writer
/// wrote read back as they were. The batch reader (``CopyBatchReader``) must give the same rows,
/// line numbers and errors as the row reader, whole and in pieces.
package struct CopyRowFuzz {
    /// One fuzz input.
    package struct Input {
        package var format: CopyFormat
        package var bytes: [UInt8]
        /// The fields written, when `bytes` came from the writer (nil: a field is NULL).
        package var written: [[[UInt8]?]]?
        /// Where the bytes are cut when fed in pieces.
        package var cuts: [Int]
    }

    static let seeds: [String] = [
        "1\tplain\t1.5\n2\t\\N\t\\t\\n\\\\\n3\t\\101\\x41\\x4z\\777\tend\n\\.\nafter\n",
        "a,b,c\n1,\"Smith, John\",\"said \"\"hi\"\"\"\n2,,\"\"\n3,\"multi\nline\",x\n",
        "1\tone\r\n2\ttwo\r\n",
        "x|y\n\\|esc|NULL\n",
        "\"never closed\n",
        "\u{00e9}\t\u{1F600}\n\\xff\\xfe\n",
    ]

    static let dictionary: [String] = [
        "\t", "\n", "\r\n", "\r", "\\", "\\N", "\\.", "\\x", "\\0", "\\377", "\"", "\"\"", ",", "|", "NULL", "\u{00e9}",
        "\u{FF}", "\0", "\\\n", "\n\\.\n",
    ]

    package private(set) var rows = 0
    package private(set) var errors = 0

    package init() {}

    /// The next input.
    package static func input(random: inout SplitMix64) -> Input {
        var format = CopyFormat(kind: random.next(below: 2) == 0 ? .text : .csv)
        switch random.next(below: 6) {
        case 0: format.delimiter = UInt8(ascii: "|")
        case 1: format.null = Array("NULL".utf8)
        case 2: format.header = .present
        case 3 where format.kind == .csv: format.escape = UInt8(ascii: "\\")
        case 4 where format.kind == .csv: format.forceNull = [0, 1]; format.forceNotNull = [2]
        default: break
        }
        var bytes: [UInt8]
        var written: [[[UInt8]?]]?
        switch random.next(below: 8) {
        case 0:
            bytes = (0 ..< random.next(below: 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        case 1, 2:
            let fields = randomRows(random: &random)
            bytes = write(fields, format: format)
            // (FORCE_NULL and FORCE_NOT_NULL change what quoting means, so those do not round-trip.)
            let roundTrips = format.header == .absent && format.forceNull.isEmpty && format.forceNotNull.isEmpty
            written = roundTrips ? fields : nil
        default:
            bytes = Array(seeds[random.next(below: seeds.count)].utf8)
            for _ in 0 ... random.next(below: 4) {
                switch random.next(below: 5) {
                case 0: ByteMutations.overwriteByte(&bytes, random: &random)
                case 1: ByteMutations.deleteRun(&bytes, upTo: 6, random: &random)
                case 2: ByteMutations.insert(Array(dictionary[random.next(below: dictionary.count)].utf8), into: &bytes, random: &random)
                case 3: ByteMutations.duplicateRun(&bytes, upTo: 16, random: &random)
                default: ByteMutations.truncate(&bytes, random: &random)
                }
            }
        }
        var cuts: [Int] = []
        if !bytes.isEmpty {
            for _ in 0 ..< random.next(below: 6) { cuts.append(random.next(below: bytes.count)) }
        }
        return Input(format: format, bytes: bytes, written: written, cuts: cuts.sorted())
    }

    /// Reads `input` whole and in pieces and checks the outcomes.
    package mutating func run(_ input: Input) {
        let whole = Self.read(input.bytes, format: input.format, cuts: [])
        let pieces = Self.read(input.bytes, format: input.format, cuts: input.cuts)
        precondition(whole == pieces, "rows differ when the input is cut at \(input.cuts)")
        let expected = Self.readCounted(input.bytes, format: input.format)
        for (cuts, batchRows, threshold) in [([], CopyBatchReader.batchRows, CopyBatchReader.readThreshold), (input.cuts, 2, 1), (input.cuts, 3, 8)] {
            let batches = Self.readBatches(input.bytes, format: input.format, cuts: cuts, batchRows: batchRows, readThreshold: threshold)
            precondition(batches == expected, "the batch reader differs from the row reader when the input is cut at \(cuts): \(batches) against \(expected)")
        }
        switch whole {
        case .success(let read):
            rows += read.count
            if let written = input.written {
                precondition(read == written, "rows written as \(input.format.kind) read back differently")
            }
        case .failure(let error):
            precondition(
                [SQLState.badCopyFileFormat, .characterNotInRepertoire].contains(error.code) && error.context?.hasPrefix("line ") == true,
                "unexpected error \(error)")
            precondition(input.written == nil, "rows the writer wrote failed to read: \(error)")
            errors += 1
        }
    }

    /// `bytes` in pieces cut at `cuts` (ascending), each handed to `body` in order, as a client
    /// sending COPY data in messages would.
    private static func forEachPiece(
        of bytes: [UInt8], cutAt cuts: [Int], _ body: ([UInt8]) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        var start = 0
        for cut in cuts + [bytes.count] {
            try body(Array(bytes[start ..< cut]))
            start = cut
        }
    }

    private static func read(_ bytes: [UInt8], format: CopyFormat, cuts: [Int]) -> Result<[[[UInt8]?]], SluiceError> {
        var reader = CopyRowReader(format: format, columnNames: ["a", "b", "c"])
        var rows: [[[UInt8]?]] = []
        let collect = { (row: CopyRow) throws(SluiceError) in
            precondition(row.isNull.count == row.count && row.ends.last == row.bytes.count, "inconsistent row")
            var fields: [[UInt8]?] = []
            for index in 0 ..< row.count {
                if row.isNull[index] { fields.append(nil); continue }
                let field = Array(row.bytes[row.range(of: index)])
                precondition(String(validating: field, as: UTF8.self) != nil && !field.contains(0), "a field is not UTF-8")
                fields.append(field)
            }
            rows.append(fields)
        }
        do throws(SluiceError) {
            try forEachPiece(of: bytes, cutAt: cuts) { (piece) throws(SluiceError) in try reader.read(piece, collect) }
            try reader.finish(collect)
            return .success(rows)
        } catch {
            return .failure(error)
        }
    }

    /// A row's line number and fields (nil: NULL).
    struct NumberedRow: Equatable, CustomStringConvertible {
        var line: Int
        var fields: [[UInt8]?]

        var description: String {
            "\(line): \(fields.map { $0.map { String(decoding: $0, as: UTF8.self).debugDescription } ?? "NULL" })"
        }
    }

    static let columnNames = ["a", "b", "c"]

    /// The rows the row reader gives, failing at the first without one field per column as
    /// COPY does.
    private static func readCounted(_ bytes: [UInt8], format: CopyFormat) -> Result<[NumberedRow], SluiceError> {
        var reader = CopyRowReader(format: format, columnNames: columnNames)
        var rows: [NumberedRow] = []
        let collect = { (row: CopyRow) throws(SluiceError) in
            guard row.count == columnNames.count else {
                var error = SluiceError(
                    .badCopyFileFormat,
                    row.count > columnNames.count ? "extra data after last expected column" : "missing data for column \"\(columnNames[row.count])\"")
                error.context = CopyContext.line(row.lineNumber, text: row.line)
                throw error
            }
            rows.append(NumberedRow(line: row.lineNumber, fields: (0 ..< row.count).map { row.isNull[$0] ? nil : Array(row.bytes[row.range(of: $0)]) }))
        }
        do throws(SluiceError) {
            try reader.read(bytes, collect)
            try reader.finish(collect)
            return .success(rows)
        } catch {
            return .failure(error)
        }
    }

    /// The rows the batch reader gives when the input comes in pieces cut at `cuts`.
    private static func readBatches(
        _ bytes: [UInt8], format: CopyFormat, cuts: [Int], batchRows: Int, readThreshold: Int
    ) -> Result<[NumberedRow], SluiceError> {
        var reader = CopyBatchReader(format: format, columnNames: columnNames, batchRows: batchRows, readThreshold: readThreshold)
        var rows: [NumberedRow] = []
        let collect = { (batch: CopyBatch) throws(SluiceError) in
            precondition(batch.rowCount > 0 && batch.rowCount <= batchRows, "a batch of \(batch.rowCount) rows")
            for row in 0 ..< batch.rowCount {
                let fields = (0 ..< batch.fieldCount).map { batch.field(row, $0).map { Array($0) } }
                precondition(batch.row(row).count == batch.fieldCount, "a batch row is not whole")
                rows.append(NumberedRow(line: batch.lineNumbers[row], fields: fields))
            }
        }
        do throws(SluiceError) {
            try forEachPiece(of: bytes, cutAt: cuts) { (piece) throws(SluiceError) in try reader.read(piece, collect) }
            try reader.finish(collect)
            return .success(rows)
        } catch {
            return .failure(error)
        }
    }

    private static func randomRows(random: inout SplitMix64) -> [[[UInt8]?]] {
        let alphabet = Array("ab ,|\t\n\r\\\".N\u{00e9}".utf8)
        let columns = 1 + random.next(below: 3)
        return (0 ..< random.next(below: 5)).map { _ in
            (0 ..< columns).map { _ -> [UInt8]? in
                if random.next(below: 5) == 0 { return nil }
                var field: [UInt8] = []
                for _ in 0 ..< random.next(below: 6) {
                    let byte = alphabet[random.next(below: alphabet.count)]
                    // é is two bytes: keep them together.
                    if byte == 0xC3 { field += [0xC3, 0xA9] } else if byte != 0xA9 { field.append(byte) }
                }
                return field
            }
        }
    }

    private static func write(_ rows: [[[UInt8]?]], format: CopyFormat) -> [UInt8] {
        var writer = CopyRowWriter(format: format)
        var out: [UInt8] = []
        if format.header == .present, let first = rows.first { writer.appendHeader((0 ..< first.count).map { "c\($0)" }, to: &out) }
        for row in rows {
            let columns = row.map { field in
                Column(type: .varchar, values: [field.map { .string(String(decoding: $0, as: UTF8.self)) } ?? .null])
            }
            writer.appendRow(0, of: Chunk(columns: columns, count: 1), to: &out)
        }
        return out
    }
}
