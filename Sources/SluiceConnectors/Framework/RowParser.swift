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
    private var caster: CSVRowCaster
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
    /// The row being cast, reused: its values by column, and whether each column got one.
    private var values: [Value] = []
    private var isSet: [Bool] = []

    init(columns: [(name: String, type: DataType)], mapping: [Int?], null: [UInt8], constants: Set<Int>) {
        self.columns = columns
        self.mapping = mapping
        self.null = null
        self.constants = constants
        values = Array(repeating: .null, count: columns.count)
        isSet = Array(repeating: false, count: columns.count)
    }

    package func makeBuilders() -> [ColumnBuilder] {
        columns.map { ColumnBuilder(type: $0.type, capacity: Chunk.preferredSize) }
    }

    /// Appends `record` as a row; returns why it cannot (the builders unchanged), or nil.
    package mutating func append(_ record: CSVRecordReader.Record, to builders: inout [ColumnBuilder]) -> String? {
        if record.isCut { return "line \(record.line): a record longer than 16 MiB" }
        if record.isUnterminated { return "line \(record.line): a quote that is never closed" }
        guard record.fields.count == mapping.count else {
            return "line \(record.line): \(record.fields.count) fields where there should be \(mapping.count)"
        }
        // Every field is cast before any is appended: a bad one leaves the builders as they were.
        for column in isSet.indices { isSet[column] = false }
        for (field, column) in mapping.enumerated() {
            guard let column, !constants.contains(column) else { continue }
            let bytes = record.fields[field]
            isSet[column] = true
            if !record.quoted[field] && bytes == null {
                values[column] = .null
                continue
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if case .varchar = columns[column].type {
                values[column] = .string(text)
                continue
            }
            do throws(SluiceError) {
                values[column] = try Value(parsingText: String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()), as: columns[column].type)
            } catch {
                return "line \(record.line), column \"\(columns[column].name)\": \(error.message)"
            }
        }
        for column in columns.indices {
            if isSet[column] { builders[column].append(values[column]) } else { builders[column].appendNull() }
        }
        return nil
    }
}

/// What every connector's `FORMAT … ENCODE …` shares: the format must be PLAIN (for now), the
/// encoding one the connector takes, its options those the encoding declares.
package enum EncodeClause {
    /// The options of each encoding, for readers and writers alike.
    static let csvOptions: [ConnectorOption] = [.boolean("without_header"), .text("delimiter"), .text("quote"), .text("null_string")]
    /// `ENCODE JSON`'s options: RisingWave's schema registry (a JSON schema; taken and not read
    /// yet) and its handling of timestamps with a zone (accepted as RisingWave's default).
    static let jsonOptions: [ConnectorOption] = [
        .text("schema.registry"), .text("schema.registry.username"), .text("schema.registry.password"), .text("timestamptz.handling.mode"),
    ]

    /// `ENCODE AVRO`'s options: the schema registry (Confluent's REST API; subjects by
    /// RisingWave's `topic_name_strategy`, `<topic>-value` and `<topic>-key`) and its login.
    static let avroOptions: [ConnectorOption] = [
        .text("schema.registry"), .text("schema.registry.username"), .text("schema.registry.password"), .choice("schema.registry.name.strategy", ["topic_name_strategy"]),
    ]

    /// Checks `format`, `encode` and `options` against `schemas` (the encodings `subject` takes,
    /// with their options); returns the encoding's name.
    static func check(
        format: String, encode: String, options: [String: String], schemas: [String: [ConnectorOption]], subject: String, verb: String
    ) throws(SluiceError) -> String {
        guard !encode.isEmpty else {
            throw SluiceError(.syntaxError, "\(subject) needs a format, as in FORMAT PLAIN ENCODE \(schemas.keys.sorted().first ?? "JSON")")
        }
        guard format == "PLAIN" else { throw SluiceError(.featureNotSupported, "\(subject) \(verb) FORMAT PLAIN, not FORMAT \(format)") }
        guard let schema = schemas[encode] else {
            throw SluiceError(.featureNotSupported, "\(subject) \(verb) ENCODE \(schemas.keys.sorted().joined(separator: ", ")), not ENCODE \(encode)")
        }
        try ConnectorOptionSchema("ENCODE \(encode)", schema).check(options)
        return encode
    }

    /// `ENCODE CSV (without_header, delimiter, quote, null_string)` as CSV settings.
    static func csv(_ options: [String: String]) throws(SluiceError) -> CSVTextOptions {
        var csv = CSVTextOptions()
        csv.writesHeader = !(try OptionValues.boolean(options, "without_header") ?? false)
        csv.delimiter = try singleByte(options, "delimiter") ?? csv.delimiter
        csv.quote = try singleByte(options, "quote") ?? csv.quote
        csv.null = Array((options["null_string"] ?? "").utf8)
        guard csv.delimiter != csv.quote else { throw SluiceError(.invalidParameterValue, "the CSV delimiter and quote must differ") }
        guard !csv.null.contains(where: { $0 == 10 || $0 == 13 }) else { throw SluiceError(.invalidParameterValue, "null_string cannot hold a line end") }
        return csv
    }

    /// An option that must be one ASCII character other than a line end.
    static func singleByte(_ options: [String: String], _ name: String) throws(SluiceError) -> UInt8? {
        guard let text = options[name] else { return nil }
        let bytes = Array(text.utf8)
        guard bytes.count == 1, bytes[0] < 0x80, bytes[0] != 10, bytes[0] != 13 else {
            throw SluiceError(.invalidParameterValue, "option \"\(name)\" must be one character, not '\(text)'")
        }
        return bytes[0]
    }
}

/// Which parser an `ENCODE` names, for readers of messages (Kafka).
package enum MessageEncoding: Sendable {
    case json
    case csv(CSVTextOptions)
    /// Confluent-framed Avro, its schemas in this registry.
    case avro(SchemaRegistryClient)

    /// The encoding `description`'s `ENCODE` names, its options checked.
    package static func of(_ description: SourceDescription, connector: String) throws(SluiceError) -> MessageEncoding {
        let encode = try EncodeClause.check(
            format: description.format, encode: description.encode, options: description.formatOptions,
            schemas: ["JSON": EncodeClause.jsonOptions, "CSV": EncodeClause.csvOptions, "AVRO": EncodeClause.avroOptions],
            subject: "the \(connector) connector", verb: "reads")
        if encode == "AVRO" { return .avro(try SchemaRegistryClient(options: description.formatOptions)) }
        guard encode == "CSV" else { return .json }
        var options = try EncodeClause.csv(description.formatOptions)
        options.writesHeader = false
        return .csv(options)
    }
}
