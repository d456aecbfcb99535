import SluiceCore

/// One row of COPY input as ``CopyRowReader`` split it: the fields' bytes, unescaped, back to
/// back, with where each ends and whether it is NULL.
package struct CopyRow {
    /// The unescaped bytes of all fields, in order.
    package var bytes: [UInt8] = []
    /// The end offset in `bytes` of each field.
    package var ends: [Int] = []
    package var isNull: [Bool] = []
    /// The line the row came from, 1-based, counting a header line.
    package var lineNumber = 0
    /// The row's raw line, without its line end (for error messages).
    package var line: [UInt8] = []

    /// The number of fields.
    package var count: Int { ends.count }

    /// Where field `index` lies in `bytes`.
    package func range(of index: Int) -> Range<Int> {
        (index == 0 ? 0 : ends[index - 1]) ..< ends[index]
    }

    /// Field `index` as text (invalid UTF-8 never reaches here: the reader rejects it).
    package func string(at index: Int) -> String {
        String(decoding: bytes[range(of: index)], as: UTF8.self)
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        isNull.removeAll(keepingCapacity: true)
    }
}

/// Splits COPY input into rows as it arrives, in PostgreSQL's text or CSV format
/// (`CopyReadLineText`, `CopyReadAttributesText`, `CopyReadAttributesCSV` in copyfromparse.c).
///
/// Bytes may come in pieces of any size, cut anywhere; only the current unfinished line is held.
/// A line ends at a newline outside a CSV quoted field and not escaped by a backslash in text.
/// The first line sets the line ends, `\n` or `\r\n`, and the others must use the same (so a
/// bare carriage return in data is refused, as PostgreSQL refuses it). A line holding just `\.`
/// ends the data. Errors carry
/// the SQLSTATE PostgreSQL uses: 22P04 for the layout of the data, 22021 for invalid UTF-8.
///
/// - Complexity: O(bytes) over all input; memory O(longest line).
package struct CopyRowReader {
    package let format: CopyFormat
    /// The names of the copied columns, for HEADER MATCH.
    package let columnNames: [String]
    /// True once the `\.` line was read: what follows is ignored.
    package private(set) var isAtEndMarker = false
    /// Lines read so far, the header counted.
    package private(set) var lineCount = 0

    private var line: [UInt8] = []
    /// Text: the previous byte was an unpaired backslash. CSV: the previous byte was the escape
    /// character inside quotes.
    private var isEscaping = false
    private var isInQuotes = false
    private var row = CopyRow()
    /// Whether lines end in `\r\n`; nil until the first line ended.
    package private(set) var endsInCarriageReturn: Bool?

    package init(format: CopyFormat, columnNames: [String]) {
        self.format = format
        self.columnNames = columnNames
    }

    /// Takes the next bytes of the data, calling `body` for each row they complete.
    package mutating func read(
        _ bytes: UnsafeRawBufferPointer, _ body: (CopyRow) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        guard !isAtEndMarker else { return }
        let newline = UInt8(ascii: "\n")
        var lineStart = 0
        var index = 0
        let count = bytes.count
        switch format.kind {
        case .text:
            while index < count {
                let byte = bytes[index]
                if isEscaping {
                    isEscaping = false
                } else if byte == UInt8(ascii: "\\") {
                    isEscaping = true
                } else if byte == newline {
                    line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[lineStart ..< index]))
                    try lineCompleted(body)
                    if isAtEndMarker { return }
                    lineStart = index + 1
                }
                index += 1
            }
        case .csv:
            let (quote, escape) = (format.quote, format.escape)
            while index < count {
                let byte = bytes[index]
                if isInQuotes {
                    if isEscaping {
                        isEscaping = false
                    } else if byte == escape && escape != quote {
                        isEscaping = true
                    } else if byte == quote {
                        isInQuotes = false
                    }
                } else if byte == quote {
                    isInQuotes = true
                } else if byte == newline {
                    line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[lineStart ..< index]))
                    try lineCompleted(body)
                    if isAtEndMarker { return }
                    lineStart = index + 1
                }
                index += 1
            }
        }
        line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[lineStart ..< count]))
    }

    /// Takes the next bytes of the data (see ``read(_:_:)-(UnsafeRawBufferPointer,_)``).
    package mutating func read(_ bytes: [UInt8], _ body: (CopyRow) throws(SluiceError) -> Void) throws(SluiceError) {
        try bytes.withRawBytes { (buffer) throws(SluiceError) in try read(buffer, body) }
    }

    /// The data ended: a last line without a line end is a row too.
    package mutating func finish(_ body: (CopyRow) throws(SluiceError) -> Void) throws(SluiceError) {
        guard !isAtEndMarker else { return }
        if isInQuotes {
            throw error(.badCopyFileFormat, "unterminated CSV quoted field", lineNumber: lineCount + 1, line: line)
        }
        if !line.isEmpty { try lineCompleted(body) }
    }

    /// Takes one whole line, without its line end, as ``read(_:_:)-(UnsafeRawBufferPointer,_)``
    /// takes a line it found (the caller found where it ends): checks its line end, the end
    /// marker and the header, and calls `body` with its row.
    package mutating func readLine(_ bytes: UnsafeRawBufferPointer, _ body: (CopyRow) throws(SluiceError) -> Void) throws(SluiceError) {
        guard !isAtEndMarker else { return }
        line.removeAll(keepingCapacity: true)
        line.append(contentsOf: bytes)
        try lineCompleted(body)
    }

    /// Counts a line the caller read itself: a plain line after the first, which ended as the
    /// first did and is neither the header nor the end marker.
    package mutating func countLine() {
        lineCount += 1
    }

    // MARK: Lines

    private mutating func lineCompleted(_ body: (CopyRow) throws(SluiceError) -> Void) throws(SluiceError) {
        lineCount += 1
        defer { line.removeAll(keepingCapacity: true) }
        let hasCarriageReturn = line.last == UInt8(ascii: "\r") && !(format.kind == .text && Self.endsInBackslashes(line.dropLast()))
        if let endsInCarriageReturn, endsInCarriageReturn != hasCarriageReturn {
            let isCSV = format.kind == .csv
            var error = SluiceError(
                .badCopyFileFormat,
                endsInCarriageReturn ? "literal newline found in data" : (isCSV ? "unquoted carriage return found in data" : "literal carriage return found in data"),
                hint: endsInCarriageReturn
                    ? (isCSV ? "Use quoted CSV field to represent newline." : "Use \"\\n\" to represent newline.")
                    : (isCSV ? "Use quoted CSV field to represent carriage return." : "Use \"\\r\" to represent carriage return."))
            error.context = CopyContext.line(lineCount)
            throw error
        }
        endsInCarriageReturn = hasCarriageReturn
        if hasCarriageReturn { line.removeLast() }
        if line.count == 2, line[0] == UInt8(ascii: "\\"), line[1] == UInt8(ascii: ".") {
            isAtEndMarker = true
            return
        }
        row.removeAll()
        switch format.kind {
        case .text: try splitText()
        case .csv: try splitCSV()
        }
        row.lineNumber = lineCount
        if lineCount == 1, format.header != .absent {
            if format.header == .match { try matchHeader() }
            return
        }
        swap(&row.line, &line)
        defer { swap(&row.line, &line) }
        try body(row)
    }

    private func matchHeader() throws(SluiceError) {
        guard row.count == columnNames.count else {
            throw error(
                .badCopyFileFormat, "wrong number of fields in header line: got \(row.count), expected \(columnNames.count)",
                lineNumber: 1, line: line)
        }
        for (index, name) in columnNames.enumerated() {
            if row.isNull[index] {
                throw error(
                    .badCopyFileFormat,
                    "column name mismatch in header line field \(index + 1): got null value (\"\(String(decoding: format.null, as: UTF8.self))\"), expected \"\(name)\"",
                    lineNumber: 1, line: line)
            }
            let got = row.string(at: index)
            if got != name {
                throw error(
                    .badCopyFileFormat, "column name mismatch in header line field \(index + 1): got \"\(got)\", expected \"\(name)\"",
                    lineNumber: 1, line: line)
            }
        }
    }

    // MARK: Fields

    /// `CopyReadAttributesText`: fields end at the delimiter; a backslash escapes the next byte
    /// (`\b \f \n \r \t \v`, octal `\NNN`, hex `\xHH`, any other byte itself); a field whose raw
    /// text is the null text is NULL.
    private mutating func splitText() throws(SluiceError) {
        let delimiter = format.delimiter
        let end = line.count
        var index = 0
        var sawHighByte = false
        while true {
            let rawStart = index
            var foundDelimiter = false
            while index < end {
                var byte = line[index]
                index += 1
                if byte == delimiter {
                    foundDelimiter = true
                    break
                }
                if byte == UInt8(ascii: "\\") {
                    if index >= end { break }
                    byte = line[index]
                    index += 1
                    switch byte {
                    case UInt8(ascii: "0") ... UInt8(ascii: "7"):
                        var value = Int(byte - UInt8(ascii: "0"))
                        for _ in 0 ..< 2 {
                            guard index < end, (UInt8(ascii: "0") ... UInt8(ascii: "7")).contains(line[index]) else { break }
                            value = value * 8 + Int(line[index] - UInt8(ascii: "0"))
                            index += 1
                        }
                        byte = UInt8(truncatingIfNeeded: value)
                    case UInt8(ascii: "x"):
                        if index < end, let high = Self.hexValue(line[index]) {
                            index += 1
                            var value = high
                            if index < end, let low = Self.hexValue(line[index]) {
                                value = value * 16 + low
                                index += 1
                            }
                            byte = value
                        }
                    case UInt8(ascii: "b"): byte = 8
                    case UInt8(ascii: "f"): byte = 12
                    case UInt8(ascii: "n"): byte = 10
                    case UInt8(ascii: "r"): byte = 13
                    case UInt8(ascii: "t"): byte = 9
                    case UInt8(ascii: "v"): byte = 11
                    default: break
                    }
                }
                if byte >= 0x80 || byte == 0 { sawHighByte = true }
                row.bytes.append(byte)
            }
            let rawEnd = foundDelimiter ? index - 1 : index
            row.isNull.append(line[rawStart ..< rawEnd].elementsEqual(format.null))
            row.ends.append(row.bytes.count)
            if !foundDelimiter { break }
        }
        if sawHighByte { try checkEncoding() }
    }

    /// `CopyReadAttributesCSV`: fields end at the delimiter outside quotes; inside quotes the
    /// escape character before a quote or itself stands for that character; an unquoted field
    /// equal to the null text is NULL (unless FORCE_NOT_NULL), a quoted one only under FORCE_NULL.
    private mutating func splitCSV() throws(SluiceError) {
        let (delimiter, quote, escape) = (format.delimiter, format.quote, format.escape)
        let end = line.count
        var index = 0
        var sawHighByte = false
        while true {
            let rawStart = index
            let fieldStart = row.bytes.count
            var foundDelimiter = false
            var sawQuote = false
            fieldLoop: while index < end {
                let byte = line[index]
                index += 1
                if byte == delimiter {
                    foundDelimiter = true
                    break
                }
                if byte != quote {
                    if byte >= 0x80 || byte == 0 { sawHighByte = true }
                    row.bytes.append(byte)
                    continue
                }
                sawQuote = true
                while true {
                    guard index < end else {
                        throw error(.badCopyFileFormat, "unterminated CSV quoted field", lineNumber: lineCount, line: line)
                    }
                    let quoted = line[index]
                    index += 1
                    if quoted == escape, index < end, line[index] == quote || line[index] == escape {
                        row.bytes.append(line[index])
                        index += 1
                        continue
                    }
                    if quoted == quote { continue fieldLoop }
                    if quoted >= 0x80 || quoted == 0 { sawHighByte = true }
                    row.bytes.append(quoted)
                }
            }
            let position = row.ends.count
            let rawEnd = foundDelimiter ? index - 1 : index
            var isNull = false
            if !sawQuote {
                isNull = line[rawStart ..< rawEnd].elementsEqual(format.null) && !format.forceNotNull.contains(position)
            } else if format.forceNull.contains(position) {
                isNull = row.bytes[fieldStart...].elementsEqual(format.null)
            }
            row.isNull.append(isNull)
            row.ends.append(row.bytes.count)
            if !foundDelimiter { break }
        }
        if sawHighByte { try checkEncoding() }
    }

    /// Each field must be UTF-8 without NUL bytes, as PostgreSQL's server encoding demands.
    private func checkEncoding() throws(SluiceError) {
        for index in 0 ..< row.count where !row.isNull[index] {
            let field = row.bytes[row.range(of: index)]
            var failure: SluiceError?
            if field.contains(0) {
                failure = SluiceError(.characterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x00")
            } else if String(validating: field, as: UTF8.self) == nil {
                let bad = field.first { $0 >= 0x80 } ?? 0
                failure = SluiceError(.characterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x" + String(bad, radix: 16))
            }
            if var failure {
                // The line is not shown: it is not valid text.
                failure.context = CopyContext.line(lineCount)
                throw failure
            }
        }
    }

    /// Whether `bytes` ends in an odd number of backslashes (so the next byte is escaped).
    private static func endsInBackslashes(_ bytes: ArraySlice<UInt8>) -> Bool {
        var count = 0
        for byte in bytes.reversed() {
            guard byte == UInt8(ascii: "\\") else { break }
            count += 1
        }
        return count % 2 == 1
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? { HexDigits.value(byte) }

    private func error(_ code: SQLState, _ message: String, lineNumber: Int, line: [UInt8]) -> SluiceError {
        var error = SluiceError(code, message)
        error.context = CopyContext.line(lineNumber, text: line)
        return error
    }
}

/// The CONTEXT lines of COPY errors, worded as PostgreSQL's (`CopyFromErrorCallback`), except
/// that the relation name is added by the caller.
package enum CopyContext {
    /// `line N`, where the line's text cannot be shown.
    package static func line(_ number: Int) -> String {
        "line \(number)"
    }

    /// `line N: "…"`, the line cut to 100 bytes as PostgreSQL cuts it.
    package static func line(_ number: Int, text: [UInt8]) -> String {
        "line \(number): \"\(limited(text))\""
    }

    /// `line N, column c: "…"` for a bad value.
    package static func column(_ number: Int, name: String, value: [UInt8]) -> String {
        "line \(number), column \(name): \"\(limited(value))\""
    }

    /// `line N, column c: null input`.
    package static func nullColumn(_ number: Int, name: String) -> String {
        "line \(number), column \(name): null input"
    }

    static func limited(_ bytes: some Collection<UInt8>) -> String {
        guard bytes.count > 100 else { return String(decoding: bytes, as: UTF8.self) }
        var prefix = Array(bytes.prefix(100))
        // Do not cut a character in two.
        while let last = prefix.last, last & 0xC0 == 0x80 { prefix.removeLast() }
        if let last = prefix.last, last >= 0xC0 { prefix.removeLast() }
        return String(decoding: prefix, as: UTF8.self) + "..."
    }
}
