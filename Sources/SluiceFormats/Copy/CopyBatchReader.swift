import SluiceCore

/// Rows of COPY input split into their fields, up to ``CopyBatchReader/batchRows`` at a time:
/// where each field's bytes lie and whether it is NULL, for a caller that casts a column of the
/// batch at a time.
///
/// A plain row's fields are ranges of ``input``, the data as it came (no copy). A row with
/// escapes, quotes or other than ASCII was split by ``CopyRowReader`` and its unescaped fields
/// lie in ``unescaped`` (``isUnescaped``). Both buffers are valid only during the call that
/// hands the batch over. Not `Sendable`: it points into the reader's buffer.
package struct CopyBatch {
    /// Fields in every row: the copied columns.
    package let fieldCount: Int
    /// Per field, row by row (`row * fieldCount + field`): the start of its bytes, or -1 for NULL.
    package fileprivate(set) var starts: [Int] = []
    /// Per field: the end of its bytes.
    package fileprivate(set) var ends: [Int] = []
    /// Per row: whether its fields lie in ``unescaped`` rather than ``input``.
    package fileprivate(set) var isUnescaped: [Bool] = []
    /// Per row: its line number, 1-based, counting a header line.
    package fileprivate(set) var lineNumbers: [Int] = []
    /// Per row: where its raw line (without the line end) lies in ``input``.
    fileprivate var lineRanges: [Range<Int>] = []
    /// The data the plain rows' fields lie in.
    package fileprivate(set) var input = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The unescaped fields of the other rows, back to back.
    package fileprivate(set) var unescapedBytes: [UInt8] = []
    /// ``unescapedBytes`` while the batch is handed over.
    package fileprivate(set) var unescaped = UnsafeRawBufferPointer(start: nil, count: 0)

    init(fieldCount: Int) {
        self.fieldCount = fieldCount
    }

    /// The number of rows.
    package var rowCount: Int { lineNumbers.count }

    /// Field `field` of row `row`, or nil for NULL.
    @inline(__always)
    package func field(_ row: Int, _ field: Int) -> UnsafeRawBufferPointer? {
        let index = row &* fieldCount &+ field
        let start = starts[index]
        guard start >= 0 else { return nil }
        let base = isUnescaped[row] ? unescaped : input
        return UnsafeRawBufferPointer(rebasing: base[start ..< ends[index]])
    }

    /// Row `row`'s raw line, without its line end (for error messages).
    package func line(_ row: Int) -> [UInt8] {
        Array(input[lineRanges[row]])
    }

    /// Row `row` as ``CopyRowReader`` gives it.
    package func row(_ row: Int) -> CopyRow {
        var result = CopyRow()
        for field in 0 ..< fieldCount {
            let bytes = self.field(row, field)
            result.bytes.append(contentsOf: bytes ?? UnsafeRawBufferPointer(start: nil, count: 0))
            result.ends.append(result.bytes.count)
            result.isNull.append(bytes == nil)
        }
        result.lineNumber = lineNumbers[row]
        result.line = line(row)
        return result
    }

    fileprivate mutating func removeAll() {
        starts.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        isUnescaped.removeAll(keepingCapacity: true)
        lineNumbers.removeAll(keepingCapacity: true)
        lineRanges.removeAll(keepingCapacity: true)
        unescapedBytes.removeAll(keepingCapacity: true)
    }
}

/// Splits COPY input into batches of rows (``CopyBatch``) as it arrives, in PostgreSQL's text
/// or CSV format, with the rows, the errors and the line numbers ``CopyRowReader`` gives.
///
/// The data is gathered into one buffer and read a few tens of kilobytes at a time. Each line is
/// scanned once with a table of the bytes that matter (the delimiter, the line end, a backslash
/// in text or a quote in CSV, a carriage return, a byte outside ASCII or NUL): a line without
/// them (and a text field that is just the null text, such as `\N`) is split in place, its
/// fields left where they are. Any other line (the first, escapes, quotes, other than ASCII, too
/// few or too many fields) goes to a ``CopyRowReader``, which unescapes and checks it as it
/// checks every line, and its fields are copied into the batch. A row with the wrong number of
/// fields fails with 22P04 as PostgreSQL's COPY does, after the rows before it were handed over.
///
/// - Complexity: O(bytes), each byte of a plain line read once by the scan; memory O(the
///   buffer, at least 64 KiB, and the longest line).
package struct CopyBatchReader {
    /// Rows in a full batch, by default.
    package static let batchRows = Chunk.preferredSize
    /// Bytes gathered before they are read, by default.
    package static let readThreshold = 1 << 16

    package let format: CopyFormat
    /// Rows in a full batch.
    package let batchRows: Int
    /// Bytes gathered before they are read.
    private let readThreshold: Int
    private var rowReader: CopyRowReader
    private var pending: [UInt8] = []
    private var batch: CopyBatch
    /// Bytes to gather before the next read: more while a long line is unfinished, so it is
    /// not scanned again for every piece.
    private var threshold: Int
    /// The class of each byte value (``ByteClass``).
    private let classes: [UInt8]
    private let nullStartsWithBackslash: Bool
    private let nullCanBeUnquoted: [Bool]

    private enum ByteClass {
        static let plain: UInt8 = 0
        static let delimiter: UInt8 = 1
        static let newline: UInt8 = 2
        /// A backslash in text, the quote in CSV.
        static let escape: UInt8 = 3
        static let carriageReturn: UInt8 = 4
        /// Outside ASCII, or NUL: the line is checked as UTF-8.
        static let other: UInt8 = 5
    }

    /// A reader of `format` for the copied columns `columnNames` (their count is the fields a
    /// row must have), handing over batches of up to `batchRows` rows, reading once
    /// `readThreshold` bytes are gathered (tests make both small).
    package init(format: CopyFormat, columnNames: [String], batchRows: Int = CopyBatchReader.batchRows, readThreshold: Int = CopyBatchReader.readThreshold) {
        precondition(batchRows > 0 && readThreshold > 0, "a batch holds a row and a read takes a byte")
        self.format = format
        self.batchRows = batchRows
        self.readThreshold = readThreshold
        threshold = readThreshold
        rowReader = CopyRowReader(format: format, columnNames: columnNames)
        batch = CopyBatch(fieldCount: columnNames.count)
        var classes = [UInt8](repeating: ByteClass.plain, count: 256)
        for byte in 0x80 ... 0xFF { classes[byte] = ByteClass.other }
        classes[0] = ByteClass.other
        classes[Int(UInt8(ascii: "\r"))] = ByteClass.carriageReturn
        classes[Int(format.kind == .text ? UInt8(ascii: "\\") : format.quote)] = ByteClass.escape
        classes[Int(format.delimiter)] = ByteClass.delimiter
        classes[Int(UInt8(ascii: "\n"))] = ByteClass.newline
        self.classes = classes
        nullStartsWithBackslash = format.kind == .text && format.null.first == UInt8(ascii: "\\")
        nullCanBeUnquoted = (0 ..< columnNames.count).map { !(format.kind == .csv && format.forceNotNull.contains($0)) }
        self.columnNames = columnNames
    }

    private let columnNames: [String]

    /// Lines read so far, the header counted.
    package var lineCount: Int { rowReader.lineCount }

    /// Takes the next bytes of the data, calling `body` with each batch of rows they complete.
    package mutating func read(_ bytes: UnsafeRawBufferPointer, _ body: (CopyBatch) throws(SluiceError) -> Void) throws(SluiceError) {
        guard !rowReader.isAtEndMarker else { return }
        pending.append(contentsOf: bytes)
        if pending.count >= threshold { try readPending(isFinal: false, body) }
    }

    /// Takes the next bytes of the data (see ``read(_:_:)-(UnsafeRawBufferPointer,_)``).
    package mutating func read(_ bytes: [UInt8], _ body: (CopyBatch) throws(SluiceError) -> Void) throws(SluiceError) {
        try bytes.withRawBytes { (buffer) throws(SluiceError) in try read(buffer, body) }
    }

    /// The data ended: what is gathered is read, and a last line without a line end is a row too.
    package mutating func finish(_ body: (CopyBatch) throws(SluiceError) -> Void) throws(SluiceError) {
        guard !rowReader.isAtEndMarker else { return }
        try readPending(isFinal: true, body)
    }

    // MARK: Reading

    /// Reads the whole lines gathered (with `isFinal`, the rest too) and keeps what follows them.
    private mutating func readPending(isFinal: Bool, _ body: (CopyBatch) throws(SluiceError) -> Void) throws(SluiceError) {
        var input: [UInt8] = []
        swap(&input, &pending)
        var consumed = 0
        var failure: SluiceError?
        do throws(SluiceError) {
            try input.withRawBytes { (buffer) throws(SluiceError) in try readLines(buffer, consumed: &consumed, isFinal: isFinal, body) }
        } catch {
            failure = error
        }
        // What follows the lines read is kept, whether the read failed or not.
        input.removeSubrange(0 ..< consumed)
        swap(&input, &pending)
        if let failure { throw failure }
        // An unfinished line longer than the threshold waits for twice its bytes.
        threshold = max(readThreshold, pending.count * 2)
    }

    /// Reads the lines of `input`, handing `body` each full batch and the last one; `consumed`
    /// ends after the last line read.
    private mutating func readLines(
        _ input: UnsafeRawBufferPointer, consumed: inout Int, isFinal: Bool, _ body: (CopyBatch) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        batch.removeAll()
        batch.input = input
        var failure: SluiceError?
        var position = 0
        while position < input.count && !rowReader.isAtEndMarker {
            let lineStart = position
            let fieldsBefore = batch.starts.count
            let plainEnd = rowReader.endsInCarriageReturn == nil ? nil : plainLine(input, from: lineStart)
            if let plainEnd {
                rowReader.countLine()
                batch.isUnescaped.append(false)
                batch.lineNumbers.append(rowReader.lineCount)
                batch.lineRanges.append(lineStart ..< plainEnd.lineEnd)
                position = plainEnd.next
            } else {
                // Back to the line's start: the row reader splits it.
                batch.starts.removeSubrange(fieldsBefore...)
                batch.ends.removeSubrange(fieldsBefore...)
                guard let lineEnd = endOfLine(input, from: lineStart) else {
                    if isFinal {
                        // The last line, without a line end: the row reader's `finish` ends it,
                        // or fails on an open quote.
                        do throws(SluiceError) {
                            var rows: [CopyRow] = []
                            try rowReader.read(UnsafeRawBufferPointer(rebasing: input[lineStart...])) { rows.append($0) }
                            try rowReader.finish { rows.append($0) }
                            for row in rows { try add(row, lineRange: lineStart ..< input.count) }
                        } catch {
                            failure = error
                        }
                        position = input.count
                    }
                    break
                }
                do throws(SluiceError) {
                    var split: CopyRow?
                    try rowReader.readLine(UnsafeRawBufferPointer(rebasing: input[lineStart ..< lineEnd])) { split = $0 }
                    if let split { try add(split, lineRange: lineStart ..< lineEnd) }
                } catch {
                    failure = error
                    position = lineEnd + 1
                    break
                }
                position = lineEnd + 1
            }
            if batch.rowCount == batchRows {
                try handOver(body)
                batch.removeAll()
            }
        }
        consumed = position
        // The rows before a failing line are handed over first: an error among them comes first.
        if batch.rowCount > 0 { try handOver(body) }
        batch.removeAll()
        batch.input = UnsafeRawBufferPointer(start: nil, count: 0)
        if let failure { throw failure }
    }

    private func handOver(_ body: (CopyBatch) throws(SluiceError) -> Void) throws(SluiceError) {
        var handed = batch
        try batch.unescapedBytes.withRawBytes { (unescaped) throws(SluiceError) in
            handed.unescaped = unescaped
            try body(handed)
        }
    }

    /// Adds a row the row reader split, its fields copied.
    private mutating func add(_ row: CopyRow, lineRange: Range<Int>) throws(SluiceError) {
        guard row.count == batch.fieldCount else {
            var error = SluiceError(
                .badCopyFileFormat,
                row.count > batch.fieldCount ? "extra data after last expected column" : "missing data for column \"\(columnNames[row.count])\"")
            error.context = CopyContext.line(row.lineNumber, text: row.line)
            throw error
        }
        let base = batch.unescapedBytes.count
        batch.unescapedBytes.append(contentsOf: row.bytes)
        for field in 0 ..< row.count {
            let range = row.range(of: field)
            batch.starts.append(row.isNull[field] ? -1 : base + range.lowerBound)
            batch.ends.append(base + range.upperBound)
        }
        batch.isUnescaped.append(true)
        batch.lineNumbers.append(row.lineNumber)
        batch.lineRanges.append(lineRange)
    }

    /// Splits the line at `start` in place when it is plain: its fields' ranges appended to the
    /// batch, and where the line ends and the next begins returned. Nil when the row reader must
    /// read it (or it is not whole yet); the fields appended then are the caller's to remove.
    @inline(__always)
    private mutating func plainLine(_ input: UnsafeRawBufferPointer, from start: Int) -> (lineEnd: Int, next: Int)? {
        let count = input.count
        let fieldCount = batch.fieldCount
        let isCRLF = rowReader.endsInCarriageReturn == true
        var field = 0
        var fieldStart = start
        var index = start
        var isNull = false
        return classes.withUnsafeBufferPointer { classes -> (lineEnd: Int, next: Int)? in
            while true {
                var byteClass = ByteClass.plain
                while index < count {
                    byteClass = classes[Int(input[index])]
                    if byteClass != ByteClass.plain { break }
                    index += 1
                }
                guard index < count else { return nil }
                var fieldEnd = index
                var next = index + 1
                switch byteClass {
                case ByteClass.delimiter:
                    break
                case ByteClass.newline:
                    // A bare newline where lines end in `\r\n` is the row reader's to refuse.
                    if isCRLF { return nil }
                case ByteClass.carriageReturn:
                    guard isCRLF, next < count, input[next] == UInt8(ascii: "\n") else { return nil }
                    byteClass = ByteClass.newline
                    next += 1
                case ByteClass.escape:
                    // Only a text field that is just the null text (`\N`) stays plain.
                    guard nullStartsWithBackslash, index == fieldStart, !isNull else { return nil }
                    let null = format.null
                    guard index + null.count < count else { return nil }
                    for offset in 0 ..< null.count where input[index + offset] != null[offset] { return nil }
                    index += null.count
                    isNull = true
                    continue
                default:
                    return nil
                }
                guard field < fieldCount else { return nil }
                if isNull {
                    // The null text, and nothing after it.
                    guard fieldEnd - fieldStart == format.null.count else { return nil }
                } else if fieldEnd - fieldStart == format.null.count, nullCanBeUnquoted[field] {
                    isNull = Self.equals(input, fieldStart ..< fieldEnd, format.null)
                }
                if isNull {
                    batch.starts.append(-1)
                    fieldEnd = fieldStart
                } else {
                    batch.starts.append(fieldStart)
                }
                batch.ends.append(fieldEnd)
                field += 1
                isNull = false
                fieldStart = next
                index = next
                if byteClass == ByteClass.newline {
                    guard field == fieldCount else { return nil }
                    return (isCRLF ? next - 2 : next - 1, next)
                }
            }
        }
    }

    private static func equals(_ input: UnsafeRawBufferPointer, _ range: Range<Int>, _ text: [UInt8]) -> Bool {
        for offset in 0 ..< text.count where input[range.lowerBound + offset] != text[offset] { return false }
        return true
    }

    /// Where the line at `start` ends (its newline), as ``CopyRowReader`` finds it: not at a
    /// newline a backslash escapes in text, nor inside quotes in CSV. Nil when no newline ends it.
    private func endOfLine(_ input: UnsafeRawBufferPointer, from start: Int) -> Int? {
        let newline = UInt8(ascii: "\n")
        var index = start
        let count = input.count
        switch format.kind {
        case .text:
            while index < count {
                let byte = input[index]
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == newline { return index }
                index += 1
            }
        case .csv:
            let (quote, escape) = (format.quote, format.escape)
            var isInQuotes = false
            while index < count {
                let byte = input[index]
                if isInQuotes {
                    if byte == escape && escape != quote {
                        index += 2
                        continue
                    }
                    if byte == quote { isInQuotes = false }
                } else if byte == quote {
                    isInQuotes = true
                } else if byte == newline {
                    return index
                }
                index += 1
            }
        }
        return nil
    }
}
