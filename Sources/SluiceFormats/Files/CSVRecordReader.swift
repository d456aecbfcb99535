/// Splits CSV text (RFC 4180) into records as it arrives: fields separated by the delimiter,
/// records by LF or CRLF; a quoted field may hold delimiters, line ends and doubled quotes.
/// Unlike COPY's reader it never fails: a record is what lies between line ends outside quotes,
/// and the caller judges its fields (a source counts a bad record and goes on).
///
/// Bytes are taken a block at a time (``feed(_:isLast:_:)``); a record cut by the end of a block
/// waits for the next. Memory: the longest record, bounded by `maximumRecordBytes` (a longer
/// one is handed over cut, flagged, so a file without line ends cannot exhaust memory).
package struct CSVRecordReader {
    package let delimiter: UInt8
    package let quote: UInt8
    package let maximumRecordBytes: Int
    private var pending: [UInt8] = []
    /// Lines read so far (a record spanning lines counts them all), for error messages.
    package private(set) var lineCount = 0

    package init(delimiter: UInt8, quote: UInt8, maximumRecordBytes: Int = 16 << 20) {
        self.delimiter = delimiter
        self.quote = quote
        self.maximumRecordBytes = maximumRecordBytes
    }

    /// One record: its fields (unquoted, quotes undoubled) and the line it starts on.
    package struct Record {
        package var fields: [[UInt8]] = []
        /// Per field: whether it was quoted (a quoted empty field is an empty string, not NULL).
        package var quoted: [Bool] = []
        package var line = 0
        /// The record's raw text, at most a few hundred bytes of it, for error records.
        package var raw: ArraySlice<UInt8> = []
        /// It ran past `maximumRecordBytes` without a line end and was cut.
        package var isCut = false
        /// A quote opened and never closed before the end of the data.
        package var isUnterminated = false
    }

    /// Takes `bytes`; calls `body` with each complete record. With `isLast`, the rest (a final
    /// record without a line end) is handed over too.
    package mutating func feed(_ bytes: UnsafeRawBufferPointer, isLast: Bool, _ body: (Record) throws -> Void) rethrows {
        pending.append(contentsOf: bytes)
        var start = 0
        var record = Record()
        while start < pending.count {
            guard let end = scan(from: start, isLast: isLast, into: &record) else { break }
            try body(record)
            record = Record()
            start = end
        }
        pending.removeFirst(start)
    }

    /// Parses the record at `start`; returns where the next begins, or nil when the record is not
    /// complete yet (more bytes are needed).
    private mutating func scan(from start: Int, isLast: Bool, into record: inout Record) -> Int? {
        var index = start
        var field: [UInt8] = []
        var inQuotes = false
        var wasQuoted = false
        var lines = 1
        let count = pending.count
        while index < count {
            let byte = pending[index]
            if inQuotes {
                if byte == quote {
                    if index + 1 < count && pending[index + 1] == quote {
                        field.append(quote)
                        index += 2
                        continue
                    }
                    if index + 1 == count && !isLast { return nil }
                    inQuotes = false
                    index += 1
                    continue
                }
                if byte == 10 { lines += 1 }
                field.append(byte)
                index += 1
            } else if byte == delimiter {
                record.fields.append(field)
                record.quoted.append(wasQuoted)
                field = []
                wasQuoted = false
                index += 1
            } else if byte == 10 || byte == 13 {
                if byte == 13 && index + 1 == count && !isLast { return nil }
                let next = byte == 13 && index + 1 < count && pending[index + 1] == 10 ? index + 2 : index + 1
                finish(&record, field: field, quoted: wasQuoted, lines: lines, raw: start ..< index)
                return next
            } else if byte == quote && field.isEmpty && !wasQuoted {
                inQuotes = true
                wasQuoted = true
                index += 1
            } else {
                field.append(byte)
                index += 1
            }
            if index - start > maximumRecordBytes {
                record.isCut = true
                finish(&record, field: field, quoted: wasQuoted, lines: lines, raw: start ..< index)
                return index
            }
        }
        guard isLast else { return nil }
        record.isUnterminated = inQuotes
        // Trailing bytes without a line end: a last record (an empty tail is none).
        if start == count { return nil }
        finish(&record, field: field, quoted: wasQuoted, lines: lines, raw: start ..< count)
        return count
    }

    private mutating func finish(_ record: inout Record, field: [UInt8], quoted: Bool, lines: Int, raw: Range<Int>) {
        record.fields.append(field)
        record.quoted.append(quoted)
        record.line = lineCount + 1
        record.raw = pending[raw.lowerBound ..< min(raw.upperBound, raw.lowerBound + 256)]
        lineCount += lines
    }
}
