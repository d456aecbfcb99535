import SluiceCore

/// Writes chunks as lines of text: newline-delimited JSON objects (one per row, keys the column
/// names) or CSV (RFC 4180: a field is quoted when it holds the delimiter, the quote, a line end,
/// or reads as the null text; quotes inside are doubled).
///
/// Each column is first rendered on its own, a typed loop per column (``RenderedColumn``); the
/// rows are then put together from the pieces. No value goes through `Value` or `Any` except a
/// nested one (a struct or a list), which has no flat text form.
package struct RowTextEncoder {
    package enum Kind: Sendable, Equatable {
        case json
        case csv(CSVTextOptions)
    }

    package let kind: Kind
    private let names: [String]
    /// JSON: each column's `"name":` (with the comma before all but the first).
    private let keys: [[UInt8]]
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
        guard chunk.count > 0 else { return }
        for (index, column) in chunk.columns.enumerated() {
            rendered[index].removeAll()
            switch kind {
            case .json: rendered[index].renderJSON(column)
            case .csv(let options): rendered[index].renderCSV(column, options: options)
            }
        }
        out.reserveCapacity(out.count + rendered.reduce(0) { $0 + $1.bytes.count } + chunk.count * (keys.reduce(2) { $0 + $1.count } + 1))
        switch kind {
        case .json:
            for row in 0 ..< chunk.count {
                out.append(UInt8(ascii: "{"))
                for column in rendered.indices {
                    out.append(contentsOf: keys[column])
                    rendered[column].append(row, to: &out)
                }
                out.append(UInt8(ascii: "}"))
                out.append(UInt8(ascii: "\n"))
            }
        case .csv(let options):
            for row in 0 ..< chunk.count {
                for column in rendered.indices {
                    if column > 0 { out.append(options.delimiter) }
                    rendered[column].append(row, to: &out)
                }
                out.append(UInt8(ascii: "\n"))
            }
        }
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

    @inline(__always)
    func append(_ row: Int, to out: inout [UInt8]) {
        let start = row == 0 ? 0 : ends[row - 1]
        out.append(contentsOf: bytes[start ..< ends[row]])
    }

    /// An integer column's values in decimal, `null` for NULL.
    private mutating func renderIntegers<T: BinaryInteger>(_ values: [T], _ column: Column, null: [UInt8]) {
        for row in values.indices {
            if column.isNull(row) { bytes += null } else { appendDigits(Int64(values[row]), to: &bytes) }
            ends.append(bytes.count)
        }
    }

    /// Each value's PostgreSQL text form, written by `write` (quoted or escaped); `null` for NULL.
    private mutating func renderTexts(_ column: Column, null: [UInt8], _ write: (inout [UInt8], [UInt8]) -> Void) {
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

    mutating func renderJSON(_ column: Column) {
        ends.reserveCapacity(column.count)
        switch (column.storage, column.type) {
        case (.bool(let values), _):
            for row in values.indices {
                if column.isNull(row) { bytes += Self.null } else { bytes += values[row] ? Self.trueText : Self.falseText }
                ends.append(bytes.count)
            }
        case (.int16(let values), _):
            renderIntegers(values, column, null: Self.null)
        case (.int32(let values), .int32):
            renderIntegers(values, column, null: Self.null)
        case (.int64(let values), .int64):
            renderIntegers(values, column, null: Self.null)
        case (.bytes(let values), .varchar), (.bytes(let values), .unknown):
            values.data.withUnsafeBytes { data in
                for row in 0 ..< values.count {
                    if column.isNull(row) { bytes += Self.null } else { appendJSONString(UnsafeRawBufferPointer(rebasing: data[values.byteRange(at: row)]), to: &bytes) }
                    ends.append(bytes.count)
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
        default:
            // Dates, times, timestamps, intervals, bytea: their text form, as a string.
            renderTexts(column, null: Self.null) { out, text in appendJSONString(text, to: &out) }
        }
    }

    private static let null = Array("null".utf8)
    private static let trueText = Array("true".utf8)
    private static let falseText = Array("false".utf8)

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
        case (.int16(let number), _): appendDigits(Int64(number), to: &out)
        case (.int32(let number), .int32): appendDigits(Int64(number), to: &out)
        case (.int64(let number), .int64): appendDigits(number, to: &out)
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
        default:
            renderTexts(column, null: options.null) { out, text in appendCSVField(text[...], options: options, to: &out) }
        }
    }
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

/// Appends `value` in decimal.
@inline(__always)
func appendDigits(_ value: Int64, to out: inout [UInt8]) {
    if value >= 0 && value < 10 {
        out.append(UInt8(ascii: "0") &+ UInt8(value))
        return
    }
    var magnitude = value.magnitude
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    var count = 0
    withUnsafeMutableBytes(of: &digits) { buffer in
        repeat {
            buffer[23 - count] = UInt8(ascii: "0") &+ UInt8(magnitude % 10)
            magnitude /= 10
            count += 1
        } while magnitude > 0
        if value < 0 { out.append(UInt8(ascii: "-")) }
        out.append(contentsOf: buffer[(24 - count)...])
    }
}

func appendJSONString(_ text: UnsafeRawBufferPointer, to out: inout [UInt8]) {
    JSONText.appendQuoted(text, to: &out)
}

func appendJSONString(_ text: [UInt8], to out: inout [UInt8]) {
    text.withUnsafeBytes { JSONText.appendQuoted($0, to: &out) }
}
