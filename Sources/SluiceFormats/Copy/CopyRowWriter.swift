import SluiceCore

/// Writes rows as COPY output in PostgreSQL's text or CSV format (`CopyAttributeOutText`,
/// `CopyAttributeOutCSV` in copyto.c): values in their text output form, one line per row.
package struct CopyRowWriter {
    package let format: CopyFormat
    /// The session's time zone: `timestamptz` values are written in it, as PostgreSQL does.
    package let zone: TimeZoneRules
    private var scratch: [UInt8] = []

    package init(format: CopyFormat, zone: TimeZoneRules = .utc) {
        self.format = format
        self.zone = zone
    }

    /// Appends the header line: the column names, quoted or escaped as values are.
    package mutating func appendHeader(_ names: [String], to out: inout [UInt8]) {
        for (index, name) in names.enumerated() {
            if index > 0 { out.append(format.delimiter) }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: name.utf8)
            appendField(isQuoteForced: false, isSingleColumn: names.count == 1, to: &out)
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// Appends row `rowIndex` of `chunk` as one line.
    package mutating func appendRow(_ rowIndex: Int, of chunk: Chunk, to out: inout [UInt8]) {
        for (index, column) in chunk.columns.enumerated() {
            if index > 0 { out.append(format.delimiter) }
            if column.isNull(rowIndex) {
                out.append(contentsOf: format.null)
                continue
            }
            scratch.removeAll(keepingCapacity: true)
            column.appendText(at: rowIndex, to: &scratch, zone: zone)
            appendField(isQuoteForced: format.forceQuote.contains(index), isSingleColumn: chunk.columns.count == 1, to: &out)
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// Appends `scratch`, a non-null value's text, escaped for the format.
    private func appendField(isQuoteForced: Bool, isSingleColumn: Bool, to out: inout [UInt8]) {
        switch format.kind {
        case .text:
            scratch.withUnsafeBytes { CopyText.appendEscaped($0, delimiter: format.delimiter, to: &out) }
        case .csv:
            let (quote, escape, delimiter) = (format.quote, format.escape, format.delimiter)
            // Quoted when forced, when it reads as the null text, when it holds a delimiter, a
            // quote or a line end, and `\.` alone (the end marker) when it is the only column.
            var isQuoted = isQuoteForced || scratch.elementsEqual(format.null)
            if !isQuoted {
                isQuoted = scratch.contains { $0 == delimiter || $0 == quote || $0 == 10 || $0 == 13 }
                    || (isSingleColumn && scratch == [UInt8(ascii: "\\"), UInt8(ascii: ".")])
            }
            guard isQuoted else {
                out.append(contentsOf: scratch)
                return
            }
            out.append(quote)
            for byte in scratch {
                if byte == quote || byte == escape { out.append(escape) }
                out.append(byte)
            }
            out.append(quote)
        }
    }
}

/// COPY's text format escapes (`CopyAttributeOutText` in copyto.c): a backslash before a
/// backslash or the delimiter, and `\b \t \n \v \f \r` for those control bytes.
package enum CopyText {
    /// Appends `text` escaped; text with nothing to escape (the common case) is copied at once.
    package static func appendEscaped(_ text: UnsafeRawBufferPointer, delimiter: UInt8 = UInt8(ascii: "\t"), to out: inout [UInt8]) {
        guard text.contains(where: { $0 == UInt8(ascii: "\\") || $0 == delimiter || ($0 >= 8 && $0 <= 13) }) else {
            out.append(contentsOf: text)
            return
        }
        for byte in text {
            let escaped: UInt8? = switch byte {
            case 8: UInt8(ascii: "b")
            case 9: UInt8(ascii: "t")
            case 10: UInt8(ascii: "n")
            case 11: UInt8(ascii: "v")
            case 12: UInt8(ascii: "f")
            case 13: UInt8(ascii: "r")
            case UInt8(ascii: "\\"), delimiter: byte
            default: nil
            }
            if let escaped {
                out.append(UInt8(ascii: "\\"))
                out.append(escaped)
            } else {
                out.append(byte)
            }
        }
    }
}
