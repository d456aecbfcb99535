import SluiceCore
import SluicePGWire

/// ksqlDB's JSON shapes: its error bodies, type names and rows (docs.ksqldb.io, "ksqlDB REST API
/// Reference"; the entity classes of `io.confluent.ksql.rest.entity`).
enum KsqlJSON {
    /// ksqlDB's error codes (`io.confluent.ksql.rest.Errors`).
    enum ErrorCode {
        static let badRequest: Int64 = 40000
        static let badStatement: Int64 = 40001
        static let queryEndpoint: Int64 = 40002
        static let notFound: Int64 = 40400
        static let serverError: Int64 = 50000
    }

    /// `{"@type":"statement_error","error_code":…,"message":…,"statementText":…,"entities":[]}`.
    static func statementError(_ message: String, statement: String, code: Int64 = ErrorCode.badStatement, entities: [JSONDocument] = []) -> JSONDocument {
        .object([
            "@type": .string("statement_error"), "error_code": .int(code), "message": .string(message), "statementText": .string(statement),
            "entities": .array(entities),
        ])
    }

    /// `{"@type":"generic_error","error_code":…,"message":…}`.
    static func genericError(_ message: String, code: Int64 = ErrorCode.badRequest) -> JSONDocument {
        .object(["@type": .string("generic_error"), "error_code": .int(code), "message": .string(message)])
    }

    /// A SQL error as ksqlDB words its statement errors: the message, and the detail and hint
    /// after it on lines of their own.
    static func message(of error: SluiceError) -> String {
        var text = error.message
        if let detail = error.detail { text += "\n" + detail }
        if let hint = error.hint { text += "\n" + hint }
        return text
    }

    /// ksqlDB's SQL name of a type (`STRING`, `INTEGER`, `ARRAY<STRING>`, `STRUCT<`A` INTEGER>`).
    static func typeName(_ type: DataType) -> String {
        switch type {
        case .boolean: "BOOLEAN"
        case .int16, .int32: "INTEGER"
        case .int64: "BIGINT"
        case .float32, .float64: "DOUBLE"
        case .decimal(let precision, let scale): "DECIMAL(\(precision ?? 38), \(scale ?? 0))"
        case .varchar, .jsonb, .interval, .unknown: "STRING"
        case .date: "DATE"
        case .time: "TIME"
        case .timestamp, .timestamptz: "TIMESTAMP"
        case .bytea: "BYTES"
        case .list(let element): "ARRAY<\(typeName(element))>"
        case .structure(let fields): "STRUCT<" + fields.map { "`\($0.name.uppercased())` \(typeName($0.type))" }.joined(separator: ", ") + ">"
        }
    }

    /// ksqlDB's schema object of a field's type (`{"type":"STRING","fields":null,"memberSchema":null}`).
    static func schema(_ type: DataType) -> JSONDocument {
        switch type {
        case .list(let element):
            return .object(["type": .string("ARRAY"), "fields": .null, "memberSchema": schema(element)])
        case .structure(let fields):
            return .object([
                "type": .string("STRUCT"),
                "fields": .array(fields.map { .object(["name": .string($0.name.uppercased()), "schema": schema($0.type)]) }),
                "memberSchema": .null,
            ])
        default:
            let name = typeName(type)
            let base = name.hasPrefix("DECIMAL") ? "DECIMAL" : name
            return .object(["type": .string(base), "fields": .null, "memberSchema": .null])
        }
    }

    /// ksqlDB's column names: upper-cased unless they were quoted with lower case.
    static func columnName(_ name: String) -> String { name.uppercased() }

    /// The classic `/query` header's schema: `` `A` STRING, `B` INTEGER ``.
    static func schemaText(_ columns: [PGColumn]) -> String {
        columns.map { "`\(columnName($0.name))` \(typeName($0.type))" }.joined(separator: ", ")
    }

    /// Appends row `row` of `chunk` as a JSON array: numbers and booleans as themselves, JSON
    /// values as their JSON, everything else as a string in its Postgres text form.
    static func appendRow(_ chunk: Chunk, _ row: Int, zone: TimeZoneRules, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        var text: [UInt8] = []
        for (index, column) in chunk.columns.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if column.isNull(row) {
                out.append(contentsOf: "null".utf8)
                continue
            }
            switch column.type {
            case .list, .structure:
                appendNested(column.value(at: row), type: column.type, zone: zone, to: &out)
                continue
            default:
                break
            }
            text.removeAll(keepingCapacity: true)
            column.appendText(at: row, to: &text, zone: zone)
            switch column.type {
            case .boolean:
                out.append(contentsOf: text.first == UInt8(ascii: "t") ? "true".utf8 : "false".utf8)
            case .int16, .int32, .int64, .decimal, .jsonb:
                out.append(contentsOf: text)
            case .float32, .float64:
                if text.contains(where: { $0 >= UInt8(ascii: "A") }) {
                    text.withUnsafeBytes { JSONText.appendQuoted($0, to: &out) }
                } else {
                    out.append(contentsOf: text)
                }
            default:
                text.withUnsafeBytes { JSONText.appendQuoted($0, to: &out) }
            }
        }
        out.append(UInt8(ascii: "]"))
    }

    /// An ARRAY as a JSON array and a STRUCT as an object with ksqlDB's upper-cased field names.
    static func appendNested(_ value: Value, type: DataType, zone: TimeZoneRules, to out: inout [UInt8]) {
        switch (value, type) {
        case (.null, _):
            out.append(contentsOf: "null".utf8)
        case (.list(let elements), .list(let elementType)):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendNested(element, type: elementType, zone: zone, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case (.structure(let values), .structure(let fields)):
            out.append(UInt8(ascii: "{"))
            for (index, field) in fields.enumerated() where index < values.count {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Array(columnName(field.name).utf8).withUnsafeBytes { JSONText.appendQuoted($0, to: &out) }
                out.append(UInt8(ascii: ":"))
                appendNested(values[index], type: field.type, zone: zone, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        default:
            let single = Chunk(columns: [Column(type: type, values: [value])])
            var row: [UInt8] = []
            appendRow(single, 0, zone: zone, to: &row)
            // `[value]` without its brackets.
            out.append(contentsOf: row.dropFirst().dropLast())
        }
    }
}
