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
            for byte in scratch {
                switch byte {
                case 8: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
                case 9: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 10: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 11: out += [UInt8(ascii: "\\"), UInt8(ascii: "v")]
                case 12: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
                case 13: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case UInt8(ascii: "\\"), format.delimiter: out += [UInt8(ascii: "\\"), byte]
                default: out.append(byte)
                }
            }
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
