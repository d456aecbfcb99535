import SluiceCore
import SluiceDataflow
import SluiceFormats

/// Turns one message's payload into one row of a source's columns: the *encoding* half of a
/// source (a reader brings the payloads). Readers are generic over their parser, so the call per
/// message is static, never through an existential.
package protocol RowParser {
    /// Empty builders for a chunk of the parser's columns.
    func makeBuilders() -> [ColumnBuilder]
    /// Appends the row `payload` holds; on failure throws why and leaves the builders as they were.
    mutating func parse(_ payload: UnsafeRawBufferPointer, into builders: inout [ColumnBuilder]) throws(RowParseError)
}

/// Why a payload is not a row, for `sluice_source_errors`.
package struct RowParseError: Error {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }
}

/// `ENCODE JSON`: a JSON object whose members fill the columns of their names
/// (``JSONRowDecoder``, the fast path).
package struct JSONRowParser: RowParser {
    private var decoder: JSONRowDecoder

    package init(columns: [(name: String, type: DataType)]) {
        decoder = JSONRowDecoder(columns: columns)
    }

    package func makeBuilders() -> [ColumnBuilder] { decoder.makeBuilders() }

    @inline(__always)
    package mutating func parse(_ payload: UnsafeRawBufferPointer, into builders: inout [ColumnBuilder]) throws(RowParseError) {
        do throws(JSONDecodeError) {
            try decoder.decodeRow(payload, into: &builders)
        } catch {
            throw RowParseError(error.message)
        }
    }
}

/// `ENCODE CSV`: one CSV record per message, its fields the columns in order (a message has no
/// header to name them).
package struct CSVRowParser: RowParser {
    private let caster: CSVRowCaster
    private let options: CSVTextOptions

    package init(columns: [(name: String, type: DataType)], options: CSVTextOptions) {
        caster = CSVRowCaster(columns: columns, mapping: columns.indices.map { Optional($0) }, null: options.null, constants: [])
        self.options = options
    }

    package func makeBuilders() -> [ColumnBuilder] { caster.makeBuilders() }

    package mutating func parse(_ payload: UnsafeRawBufferPointer, into builders: inout [ColumnBuilder]) throws(RowParseError) {
        var reader = CSVRecordReader(delimiter: options.delimiter, quote: options.quote)
        var record: CSVRecordReader.Record?
        var count = 0
        reader.feed(payload, isLast: true) { found in
            count += 1
            if record == nil { record = found }
        }
        guard let record, count == 1 else { throw RowParseError(count == 0 ? "an empty message" : "a message of \(count) CSV records, not one") }
        if let problem = caster.append(record, to: &builders) { throw RowParseError(problem) }
    }
}

/// Casts CSV records' fields into columns: field `i` into column `mapping[i]` (nil: dropped),
/// the null text (unquoted) as NULL, other text as the column type's input reads it.
package struct CSVRowCaster {
    let columns: [(name: String, type: DataType)]
    let mapping: [Int?]
    let null: [UInt8]
    /// Columns filled by someone else (a file's Hive folders): left out here.
    let constants: Set<Int>

    package func makeBuilders() -> [ColumnBuilder] {
        columns.map { ColumnBuilder(type: $0.type, capacity: Chunk.preferredSize) }
    }

    /// Appends `record` as a row; returns why it cannot (the builders unchanged), or nil.
    package func append(_ record: CSVRecordReader.Record, to builders: inout [ColumnBuilder]) -> String? {
        if record.isCut { return "line \(record.line): a record longer than 16 MiB" }
        if record.isUnterminated { return "line \(record.line): a quote that is never closed" }
        guard record.fields.count == mapping.count else {
            return "line \(record.line): \(record.fields.count) fields where there should be \(mapping.count)"
        }
        var values: [(Int, Value)] = []
        values.reserveCapacity(mapping.count)
        for (field, column) in mapping.enumerated() {
            guard let column, !constants.contains(column) else { continue }
            let bytes = record.fields[field]
            if !record.quoted[field] && bytes == null {
                values.append((column, .null))
                continue
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if case .varchar = columns[column].type {
                values.append((column, .string(text)))
                continue
            }
            do throws(SluiceError) {
                values.append((column, try Value(parsingText: String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()), as: columns[column].type)))
            } catch {
                return "line \(record.line), column \"\(columns[column].name)\": \(error.message)"
            }
        }
        var set = [Bool](repeating: false, count: columns.count)
        for (column, value) in values {
            builders[column].append(value)
            set[column] = true
        }
        for column in columns.indices where !set[column] { builders[column].appendNull() }
        return nil
    }
}

/// Which parser an `ENCODE` names, for readers of messages (Kafka).
package enum MessageEncoding: Sendable {
    case json
    case csv(CSVTextOptions)

    /// The encoding `description`'s `ENCODE` names, its options checked.
    package static func of(_ description: SourceDescription, connector: String) throws(SluiceError) -> MessageEncoding {
        switch description.encode {
        case "JSON":
            try ConnectorOptionSchema("ENCODE JSON", []).check(description.formatOptions)
            return .json
        case "CSV":
            try ConnectorOptionSchema("ENCODE CSV", [.boolean("without_header"), .text("delimiter"), .text("quote"), .text("null_string")])
                .check(description.formatOptions)
            var options = CSVTextOptions()
            options.writesHeader = false
            options.delimiter = try FileSinkOptions.singleByte(description.formatOptions, "delimiter") ?? options.delimiter
            options.quote = try FileSinkOptions.singleByte(description.formatOptions, "quote") ?? options.quote
            options.null = Array((description.formatOptions["null_string"] ?? "").utf8)
            return .csv(options)
        default:
            throw SluiceError(.featureNotSupported, "ENCODE \(description.encode) is not supported by the \(connector) connector yet; use ENCODE JSON or CSV")
        }
    }
}
