import SluiceCore

/// Writes chunks as lines of text: newline-delimited JSON objects (one per row, keys the column
/// names), JSON arrays of each row's values (what the front doors' protocols send), CSV (RFC 4180: a field is quoted when it holds the delimiter, the quote, a line end,
/// or reads as the null text; quotes inside are doubled), or PostgreSQL's COPY text format (tab
/// between fields, `\N` for NULL, backslash escapes: what a Postgres sink sends to COPY FROM).
///
/// Each column is first rendered on its own, a typed loop per column (``RenderedColumn``); the
/// rows are then put together from the pieces. No value goes through `Value` or `Any` except a
/// nested one (a struct or a list), which has no flat text form.
package struct RowTextEncoder {
    package enum Kind: Sendable, Equatable {
        case json
        /// Each row a JSON array of its values, framed as ``JSONArrayLines`` says.
        case jsonArray(JSONArrayLines)
        case csv(CSVTextOptions)
        /// COPY's text format (`CopyAttributeOutText` in copyto.c): the same lines
        /// ``CopyRowWriter`` writes for COPY TO with the defaults.
        case copyText
    }

    package let kind: Kind
    private let names: [String]
    /// JSON: each column's `"name":` (with the comma before all but the first), and their
    /// bytes together.
    private let keys: [[UInt8]]
    private let keyBytes: Int
    private var rendered: [RenderedColumn]

    package init(kind: Kind, columnNames: [String]) {
        self.kind = kind
        self.names = columnNames
        keys = columnNames.enumerated().map { index, name in
            var key: [UInt8] = index == 0 ? [] : [UInt8(ascii: ",")]
            appendJSONString(Array(name.utf8), to: &key)
            key.append(UInt8(ascii: ":"))
            return key
        }
        keyBytes = keys.reduce(0) { $0 + $1.count }
        rendered = Array(repeating: RenderedColumn(), count: columnNames.count)
    }

    /// The bytes a new file starts with: CSV's header line, unless `without_header`.
    package func header() -> [UInt8] {
        guard case .csv(let options) = kind, options.writesHeader else { return [] }
        var out: [UInt8] = []
        for (index, name) in names.enumerated() {
            if index > 0 { out.append(options.delimiter) }
            appendCSVField(Array(name.utf8)[...], options: options, to: &out)
        }
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// Appends `chunk`'s rows (its columns the encoder's, in order) to `out`.
    package mutating func append(_ chunk: Chunk, to out: inout [UInt8]) {
        var ends: [Int] = []
        append(chunk, to: &out, lineEnds: &ends)
    }

    /// Appends `chunk`'s rows to `out`, and to `lineEnds` where each row's line ends (past its
    /// newline): a message per row for a Kafka sink.
    package mutating func append(_ chunk: Chunk, to out: inout [UInt8], lineEnds: inout [Int]) {
        guard chunk.count > 0 else { return }
        render(chunk)
        assemble(rows: chunk.count, into: &out, lineEnds: &lineEnds)
    }

    /// Renders `chunk`'s values, a column at a time, for ``lineLengths(_:into:)`` and
    /// ``writeLines(_:to:starts:)``: for a caller that lays the lines out itself (a Kafka
    /// producer puts each in its record).
    package mutating func render(_ chunk: Chunk) {
        for (index, column) in chunk.columns.enumerated() {
            rendered[index].removeAll()
            switch kind {
            case .json, .jsonArray: rendered[index].renderJSON(column)
            case .csv(let options): rendered[index].renderCSV(column, options: options)
            case .copyText: rendered[index].renderCopyText(column)
            }
        }
    }

    /// The length of each rendered row's line, its newline not counted, in `lengths` (replacing
    /// what it held): a column at a time.
    package func lineLengths(_ rows: Int, into lengths: inout [Int]) {
        lengths.removeAll(keepingCapacity: true)
        lengths.append(contentsOf: repeatElement(framingBytes, count: rows))
        lengths.withUnsafeMutableBufferPointer { lengths in
            for column in rendered.indices {
                rendered[column].ends.withUnsafeBufferPointer { ends in
                    var previous = 0
                    for row in 0 ..< rows {
                        lengths[row] += ends[row] - previous
                        previous = ends[row]
                    }
                }
            }
        }
    }

    /// Writes the rendered lines of `rows` without their newlines, row `rows.lowerBound + i` at
    /// `base + starts[i]` (each with room for its ``lineLengths(_:into:)`` bytes).
    package func writeLines(_ rows: Range<Int>, to base: UnsafeMutableRawPointer, starts: UnsafeBufferPointer<Int>) {
        var cursors = Array(starts)
        cursors.withUnsafeMutableBufferPointer { cursors in
            place(rows, into: base.assumingMemoryBound(to: UInt8.self), cursors: cursors, newline: false)
        }
    }

    /// The bytes of a line that are not values, its newline not counted: JSON's braces and keys
    /// (with the commas between them), an array's brackets and commas, the delimiters.
    private var framingBytes: Int {
        switch kind {
        case .json: 2 + keyBytes
        case .jsonArray(let lines): lines.open.count + lines.close.count + max(rendered.count - 1, 0)
        case .csv, .copyText: max(rendered.count - 1, 0)
        }
    }

    /// What ends each line: a newline, or an array's terminator.
    private var terminator: UInt8 {
        if case .jsonArray(let lines) = kind { return lines.terminator }
        return UInt8(ascii: "\n")
    }

    /// Puts the rendered columns together as lines: each line's place is worked out first, then
    /// each column's pieces are copied into their lines, a column at a time.
    private func assemble(rows: Int, into out: inout [UInt8], lineEnds: inout [Int]) {
        guard !rendered.isEmpty else {
            let empty: [UInt8] = switch kind {
            case .json: Array("{}".utf8)
            case .jsonArray(let lines): lines.open + lines.close
            case .csv, .copyText: []
            }
            for _ in 0 ..< rows {
                out += empty
                out.append(terminator)
                lineEnds.append(out.count)
            }
            return
        }
        // Per line: its framing and the newline (JSON's keys are in the columns' pieces, with the
        // commas between them).
        let fixed = framingBytes + 1
        var cursors = [Int](repeating: 0, count: rows)
        var end = out.count
        for row in 0 ..< rows {
            cursors[row] = end
            end += fixed
            for column in rendered.indices { end += rendered[column].length(row) }
        }
        out.append(contentsOf: repeatElement(0, count: end - out.count))
        out.withUnsafeMutableBufferPointer { output in
            guard let base = output.baseAddress else { return }
            cursors.withUnsafeMutableBufferPointer { cursors in place(0 ..< rows, into: base, cursors: cursors, newline: true) }
        }
        lineEnds += cursors
    }

    /// Copies each column's pieces of `rows` into their lines, a column at a time: row
    /// `rows.lowerBound + i`'s line at `cursors[i]`, which ends past it.
    private func place(_ rows: Range<Int>, into base: UnsafeMutablePointer<UInt8>, cursors: UnsafeMutableBufferPointer<Int>, newline: Bool) {
        let isJSON = kind == .json
        let delimiter: UInt8 = switch kind {
        case .csv(let options): options.delimiter
        case .copyText: UInt8(ascii: "\t")
        case .json, .jsonArray: UInt8(ascii: ",")
        }
        var open: [UInt8] = []
        var close: [UInt8] = []
        if case .jsonArray(let lines) = kind { (open, close) = (lines.open, lines.close) }
        let terminator = terminator
        let last = rendered.count - 1
        for column in rendered.indices {
            let key = isJSON ? keys[column] : []
            key.withUnsafeBufferPointer { key in
                rendered[column].bytes.withUnsafeBufferPointer { bytes in
                    rendered[column].ends.withUnsafeBufferPointer { ends in
                        for (slot, row) in rows.enumerated() {
                            var at = cursors[slot]
                            if isJSON {
                                if column == 0 {
                                    base[at] = UInt8(ascii: "{")
                                    at += 1
                                }
                                Self.copy(key.baseAddress!, to: base + at, count: key.count)
                                at += key.count
                            } else if column == 0 {
                                for byte in open {
                                    base[at] = byte
                                    at += 1
                                }
                            } else {
                                base[at] = delimiter
                                at += 1
                            }
                            let start = row == 0 ? 0 : ends[row - 1]
                            let count = ends[row] - start
                            if count > 0 { Self.copy(bytes.baseAddress! + start, to: base + at, count: count) }
                            at += count
                            if column == last {
                                if isJSON {
                                    base[at] = UInt8(ascii: "}")
                                    at += 1
                                }
                                for byte in close {
                                    base[at] = byte
                                    at += 1
                                }
                                if newline {
                                    base[at] = terminator
                                    at += 1
                                }
                            }
                            cursors[slot] = at
                        }
                    }
                }
            }
        }
    }
}

extension RowTextEncoder {
    /// Copies `count` bytes: pieces of up to 32 bytes (most values and keys) with overlapping
    /// word loads and stores and no call; longer ones with `memmove`. Lines are put together a
    /// piece at a time, where a call per piece was most of the work.
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(target)
        switch count {
        case 16 ... 32:
            let a = from.loadUnaligned(as: UInt64.self)
            let b = from.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let c = from.loadUnaligned(fromByteOffset: count - 16, as: UInt64.self)
            let d = from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            to.storeBytes(of: a, as: UInt64.self)
            to.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
            to.storeBytes(of: c, toByteOffset: count - 16, as: UInt64.self)
            to.storeBytes(of: d, toByteOffset: count - 8, as: UInt64.self)
        case 8 ..< 16:
            let a = from.loadUnaligned(as: UInt64.self)
            let b = from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            to.storeBytes(of: a, as: UInt64.self)
            to.storeBytes(of: b, toByteOffset: count - 8, as: UInt64.self)
        case 4 ..< 8:
            let a = from.loadUnaligned(as: UInt32.self)
            let b = from.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            to.storeBytes(of: a, as: UInt32.self)
            to.storeBytes(of: b, toByteOffset: count - 4, as: UInt32.self)
        case 0 ..< 4:
            for index in 0 ..< count { target[index] = source[index] }
        default:
            target.update(from: source, count: count)
        }
    }
}

/// How ``RowTextEncoder/Kind/jsonArray(_:)`` frames a row: `open`, the values with commas
/// between them, `close`, then `terminator` (`[1,"a"]` and a newline by default; Flink's gateway
/// sends `{"kind":"INSERT","fields":[1,"a"]}` and a comma).
package struct JSONArrayLines: Sendable, Equatable {
    package var open: [UInt8]
    package var close: [UInt8]
    package var terminator: UInt8

    package init(open: String = "[", close: String = "]", terminator: UInt8 = UInt8(ascii: "\n")) {
        self.open = Array(open.utf8)
        self.close = Array(close.utf8)
        self.terminator = terminator
    }
}

/// How CSV is written and read: `ENCODE CSV (without_header = 'true', delimiter = ';', quote = '''',
/// null_string = 'NULL')`.
package struct CSVTextOptions: Sendable, Equatable {
    package var delimiter: UInt8 = UInt8(ascii: ",")
    package var quote: UInt8 = UInt8(ascii: "\"")
    /// The text of a NULL (empty by default, unquoted; an empty string is written `""`).
    package var null: [UInt8] = []
    package var writesHeader = true

    package init() {}
}

/// One column's values as text, back to back, with where each row's ends.
struct RenderedColumn {
    var bytes: [UInt8] = []
    var ends: [Int] = []

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    /// The length of row `row`'s text.
    @inline(__always)
    func length(_ row: Int) -> Int {
        ends[row] - (row == 0 ? 0 : ends[row - 1])
    }

    /// An integer column's values in decimal, `null` for NULL.
    fileprivate mutating func renderIntegers<T: BinaryInteger>(_ values: [T], _ column: Column, null: [UInt8]) {
        // (The null text and the validity are taken once, not retained per row.)
        let validity = column.validity
        bytes.reserveCapacity(bytes.count + values.count * 20)
        null.withUnsafeBufferPointer { null in
            values.withUnsafeBufferPointer { values in
                for row in values.indices {
                    if let validity, !validity[row] { bytes.append(contentsOf: null) } else { DecimalText.append(Int64(values[row]), to: &bytes) }
                    ends.append(bytes.count)
                }
            }
        }
    }

    /// Each value's PostgreSQL text form, written by `write` (quoted or escaped); `null` for NULL.
    fileprivate mutating func renderTexts(_ column: Column, null: [UInt8], _ write: (inout [UInt8], [UInt8]) -> Void) {
        var text: [UInt8] = []
        for row in 0 ..< column.count {
            if column.isNull(row) {
                bytes += null
            } else {
                text.removeAll(keepingCapacity: true)
                column.appendText(at: row, to: &text)
                write(&bytes, text)
            }
            ends.append(bytes.count)
        }
    }

    // MARK: JSON

    /// Each value's JSON (the keys, `"name":`, are put in when the lines are laid out).
    mutating func renderJSON(_ column: Column) {
        ends.reserveCapacity(column.count)
        let validity = column.validity
        switch (column.storage, column.type) {
        case (.bool(let values), _):
            renderRaw(rows: values.count, room: values.count * 5) { row, out in
                if let validity, !validity[row] { return Self.writeNull(out) }
                return Self.write(values[row] ? Self.trueText : Self.falseText, to: out)
            }
        case (.int16(let values), _):
            renderRawIntegers(values, validity)
        case (.int32(let values), .int32):
            renderRawIntegers(values, validity)
        case (.int64(let values), .int64):
            renderRawIntegers(values, validity)
        case (.bytes(let values), .varchar), (.bytes(let values), .unknown):
            values.data.withUnsafeBytes { data in
                values.offsets.withUnsafeBufferPointer { offsets in
                    renderRaw(rows: values.count, room: 4 * values.count + RawText.maximumQuotedJSONLength(data.count)) { row, out in
                        if let validity, !validity[row] { return Self.writeNull(out) }
                        return RawText.writeQuotedJSON(UnsafeRawBufferPointer(rebasing: data[Int(offsets[row]) ..< Int(offsets[row + 1])]), to: out)
                    }
                }
            }
        case (.bytes(let values), .jsonb):
            for row in 0 ..< values.count {
                if column.isNull(row) { bytes += Self.null } else { bytes.append(contentsOf: values.data[values.byteRange(at: row)]) }
                ends.append(bytes.count)
            }
        case (.float32, _), (.float64, _), (.decimal, _):
            // NaN and the infinities are not JSON numbers: they go as strings.
            renderTexts(column, null: Self.null) { out, text in
                if isJSONNumber(text) { out += text } else { appendJSONString(text, to: &out) }
            }
        case (.structure, _), (.list, _):
            for row in 0 ..< column.count {
                appendJSON(column.value(at: row), type: column.type, to: &bytes)
                ends.append(bytes.count)
            }
        case (.int64(let values), .timestamp), (.int64(let values), .timestamptz):
            // A timestamp's text needs no escaping.
            var writer = TemporalText.TimestampWriter(withZone: column.type == .timestamptz)
            values.withUnsafeBufferPointer { values in
                renderRaw(rows: values.count, room: values.count * (TemporalText.TimestampWriter.maximumLength + 2)) { row, out in
                    if let validity, !validity[row] { return Self.writeNull(out) }
                    out[0] = UInt8(ascii: "\"")
                    let length = writer.write(values[row], to: out + 1)
                    out[length + 1] = UInt8(ascii: "\"")
                    return length + 2
                }
            }
        default:
            // Dates, times, intervals, bytea: their text form, as a string.
            renderTexts(column, null: Self.null) { out, text in appendJSONString(text, to: &out) }
        }
    }

    private static let null = Array("null".utf8)
    private static let trueText = Array("true".utf8)
    private static let falseText = Array("false".utf8)

    /// Renders `rows` values through raw memory: `write` stores row `row`'s text at the pointer
    /// it is given and returns its length; `room` bounds their total.
    @inline(__always)
    private mutating func renderRaw(rows: Int, room: Int, _ write: (Int, UnsafeMutablePointer<UInt8>) -> Int) {
        let start = bytes.count
        let firstEnd = ends.count
        bytes.append(contentsOf: repeatElement(0, count: room))
        ends.append(contentsOf: repeatElement(0, count: rows))
        var at = start
        bytes.withUnsafeMutableBufferPointer { bytes in
            ends.withUnsafeMutableBufferPointer { ends in
                let base = bytes.baseAddress!
                for row in 0 ..< rows {
                    at += write(row, base + at)
                    ends[firstEnd + row] = at
                }
            }
        }
        bytes.removeLast(bytes.count - at)
    }

    /// An integer column's values in decimal, `null` for NULL, through raw memory.
    private mutating func renderRawIntegers<T: BinaryInteger>(_ values: [T], _ validity: Bitmap?) {
        values.withUnsafeBufferPointer { values in
            renderRaw(rows: values.count, room: values.count * RawText.maximumDecimalLength) { row, out in
                if let validity, !validity[row] { return Self.writeNull(out) }
                return RawText.writeDecimal(Int64(values[row]), to: out)
            }
        }
    }

    @inline(__always)
    private static func writeNull(_ out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = UInt8(ascii: "n")
        out[1] = UInt8(ascii: "u")
        out[2] = UInt8(ascii: "l")
        out[3] = UInt8(ascii: "l")
        return 4
    }

    @inline(__always)
    private static func write(_ text: [UInt8], to out: UnsafeMutablePointer<UInt8>) -> Int {
        text.withUnsafeBufferPointer { out.update(from: $0.baseAddress!, count: $0.count) }
        return text.count
    }

    /// A nested value as JSON (objects for structs, arrays for lists).
    private func appendJSON(_ value: Value, type: DataType, to out: inout [UInt8]) {
        switch (value, type) {
        case (.null, _):
            out += Self.null
        case (.structure(let values), .structure(let fields)):
            out.append(UInt8(ascii: "{"))
            for (index, field) in fields.enumerated() where index < values.count {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendJSONString(Array(field.name.utf8), to: &out)
                out.append(UInt8(ascii: ":"))
                appendJSON(values[index], type: field.type, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case (.list(let values), .list(let element)):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendJSON(value, type: element, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case (.bool(let flag), _):
            out += flag ? Self.trueText : Self.falseText
        case (.int16(let number), _): DecimalText.append(Int64(number), to: &out)
        case (.int32(let number), .int32): DecimalText.append(Int64(number), to: &out)
        case (.int64(let number), .int64): DecimalText.append(number, to: &out)
        case (.jsonb(let text), _): out += Array(text.utf8)
        case (.float32, _), (.float64, _), (.decimal, _):
            let text = Array(value.textForm.utf8)
            if isJSONNumber(text) { out += text } else { appendJSONString(text, to: &out) }
        default:
            appendJSONString(Array(value.textForm.utf8), to: &out)
        }
    }

    // MARK: CSV

    mutating func renderCSV(_ column: Column, options: CSVTextOptions) {
        ends.reserveCapacity(column.count)
        switch (column.storage, column.type) {
        case (.bool(let values), _) where !Self.boolTexts.contains(options.null) && ![UInt8(ascii: "t"), UInt8(ascii: "f")].contains(options.delimiter)
            && ![UInt8(ascii: "t"), UInt8(ascii: "f")].contains(options.quote):
            // `t` and `f`, which never need quoting here.
            for row in values.indices {
                if column.isNull(row) { bytes += options.null } else { bytes.append(values[row] ? UInt8(ascii: "t") : UInt8(ascii: "f")) }
                ends.append(bytes.count)
            }
        case (.int16(let values), _):
            renderIntegers(values, column, null: options.null)
        case (.int32(let values), .int32):
            renderIntegers(values, column, null: options.null)
        case (.int64(let values), .int64):
            renderIntegers(values, column, null: options.null)
        case (.bytes(let values), .varchar), (.bytes(let values), .jsonb), (.bytes(let values), .unknown):
            for row in 0 ..< values.count {
                if column.isNull(row) { bytes += options.null } else { appendCSVField(values.data[values.byteRange(at: row)], options: options, to: &bytes) }
                ends.append(bytes.count)
            }
        case (.int64(let values), .timestamp), (.int64(let values), .timestamptz)
            where Self.plainTemporal(options):
            // A timestamp's text has no delimiter, quote or line end to quote (the delimiters
            // that could appear in it go the general way), and is never empty.
            var writer = TemporalText.TimestampWriter(withZone: column.type == .timestamptz)
            for row in values.indices {
                if column.isNull(row) { bytes += options.null } else { writer.append(values[row], to: &bytes) }
                ends.append(bytes.count)
            }
        default:
            renderTexts(column, null: options.null) { out, text in appendCSVField(text[...], options: options, to: &out) }
        }
    }

    /// Whether a timestamp's text never needs quoting under `options`: neither the delimiter
    /// nor the quote is a byte such text holds, and the null text is not one.
    private static func plainTemporal(_ options: CSVTextOptions) -> Bool {
        !temporalBytes.contains(options.delimiter) && !temporalBytes.contains(options.quote)
            && (options.null.isEmpty || options.null.contains { !temporalBytes.contains($0) })
    }

    private static let boolTexts: [[UInt8]] = [[UInt8(ascii: "t")], [UInt8(ascii: "f")]]

    /// Every byte a timestamp's text form may hold.
    private static let temporalBytes = Set("0123456789-:+. BCinfty".utf8)
}

extension RenderedColumn {
    // MARK: COPY text

    mutating func renderCopyText(_ column: Column) {
        ends.reserveCapacity(column.count)
        let null = Self.copyNull
        switch (column.storage, column.type) {
        case (.bool(let values), _):
            for row in values.indices {
                if column.isNull(row) { bytes += null } else { bytes.append(values[row] ? UInt8(ascii: "t") : UInt8(ascii: "f")) }
                ends.append(bytes.count)
            }
        case (.int16(let values), _):
            renderIntegers(values, column, null: null)
        case (.int32(let values), .int32):
            renderIntegers(values, column, null: null)
        case (.int64(let values), .int64):
            renderIntegers(values, column, null: null)
        case (.int32(let values), .date):
            for row in values.indices {
                if column.isNull(row) { bytes += null } else { TemporalText.appendDate(values[row], to: &bytes) }
                ends.append(bytes.count)
            }
        case (.int64(let values), .timestamp), (.int64(let values), .timestamptz):
            // A timestamp's text has nothing to escape.
            var writer = TemporalText.TimestampWriter(withZone: column.type == .timestamptz)
            for row in values.indices {
                if column.isNull(row) { bytes += null } else { writer.append(values[row], to: &bytes) }
                ends.append(bytes.count)
            }
        case (.bytes(let values), .varchar), (.bytes(let values), .jsonb), (.bytes(let values), .unknown):
            values.data.withUnsafeBytes { data in
                for row in 0 ..< values.count {
                    if column.isNull(row) {
                        bytes += null
                    } else {
                        CopyText.appendEscaped(UnsafeRawBufferPointer(rebasing: data[values.byteRange(at: row)]), to: &bytes)
                    }
                    ends.append(bytes.count)
                }
            }
        default:
            renderTexts(column, null: null) { out, text in text.withUnsafeBytes { CopyText.appendEscaped($0, to: &out) } }
        }
    }

    private static let copyNull: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "N")]


}

/// Appends `field`, quoted when it must be (RFC 4180, and when it reads as the null text or is
/// empty while the null text is empty, so that it reads back as itself).
func appendCSVField(_ field: ArraySlice<UInt8>, options: CSVTextOptions, to out: inout [UInt8]) {
    let needsQuotes = field.elementsEqual(options.null)
        || field.contains { $0 == options.delimiter || $0 == options.quote || $0 == 10 || $0 == 13 }
    guard needsQuotes else {
        out.append(contentsOf: field)
        return
    }
    out.append(options.quote)
    for byte in field {
        if byte == options.quote { out.append(byte) }
        out.append(byte)
    }
    out.append(options.quote)
}

/// Whether `text` (a number's text form) is a JSON number: not NaN nor an infinity.
func isJSONNumber(_ text: [UInt8]) -> Bool {
    let digit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    guard let first = text.first else { return false }
    return digit(first) || (first == UInt8(ascii: "-") && text.count > 1 && digit(text[1]))
}

func appendJSONString(_ text: UnsafeRawBufferPointer, to out: inout [UInt8]) {
    JSONText.appendQuoted(text, to: &out)
}

func appendJSONString(_ text: [UInt8], to out: inout [UInt8]) {
    text.withUnsafeBytes { JSONText.appendQuoted($0, to: &out) }
}
