import SluiceCore

/// Our types as Trino names and spells them: the `type` and `typeSignature` of a result
/// column, and each value in `data` in the JSON form Trino's clients parse (Trino's
/// `ClientTypeSignature` and the JSON encodings of `io.trino.client`).
///
/// Timestamps keep their microseconds (`timestamp(6)`), so a client's Python values equal
/// what psycopg gives for the same query; `numeric` without a declared precision is
/// `decimal(38,9)` (Trino has no unconstrained decimal; values are sent at their own scale);
/// an interval, which Trino cannot hold with months and days together, is sent as its text.
enum TrinoTypes {
    /// Trino's name of `type`, as `DESCRIBE` and a column's `type` show it.
    static func name(of type: DataType) -> String {
        switch type {
        case .boolean: "boolean"
        case .int16: "smallint"
        case .int32: "integer"
        case .int64: "bigint"
        case .float32: "real"
        case .float64: "double"
        case .decimal(let precision, let scale):
            "decimal(\(precision ?? 38),\(scale ?? (precision == nil ? 9 : 0)))"
        case .varchar, .interval: "varchar"
        case .date: "date"
        case .time: "time(6)"
        case .timestamp: "timestamp(6)"
        case .timestamptz: "timestamp(6) with time zone"
        case .jsonb: "json"
        case .bytea: "varbinary"
        case .structure(let fields): "row(\(fields.map { "\(quotedField($0.name)) \(name(of: $0.type))" }.joined(separator: ", ")))"
        case .list(let element): "array(\(name(of: element)))"
        default: "unknown"
        }
    }

    private static func quotedField(_ name: String) -> String {
        name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? name : "\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\""
    }

    /// Writes `type`'s `typeSignature` object: `{"rawType": …, "arguments": […]}`.
    static func writeSignature(of type: DataType, to json: inout TrinoJSONWriter) {
        json.raw("{\"rawType\":")
        func long(_ value: Int) {
            json.raw("{\"kind\":\"LONG\",\"value\":")
            json.integer(Int64(value))
            json.byte("}")
        }
        switch type {
        case .decimal(let precision, let scale):
            json.raw("\"decimal\",\"arguments\":[")
            long(precision ?? 38)
            json.byte(",")
            long(scale ?? (precision == nil ? 9 : 0))
            json.byte("]")
        case .varchar, .interval:
            // Unbounded, as Trino's `varchar` (clients read a length from every varchar).
            json.raw("\"varchar\",\"arguments\":[")
            long(Int(Int32.max))
            json.byte("]")
        case .time:
            json.raw("\"time\",\"arguments\":[")
            long(6)
            json.byte("]")
        case .timestamp, .timestamptz:
            json.raw(type == .timestamp ? "\"timestamp\",\"arguments\":[" : "\"timestamp with time zone\",\"arguments\":[")
            long(6)
            json.byte("]")
        case .list(let element):
            json.raw("\"array\",\"arguments\":[{\"kind\":\"TYPE\",\"value\":")
            writeSignature(of: element, to: &json)
            json.raw("}]")
        case .structure(let fields):
            json.raw("\"row\",\"arguments\":[")
            for (index, field) in fields.enumerated() {
                if index > 0 { json.byte(",") }
                json.raw("{\"kind\":\"NAMED_TYPE\",\"value\":{\"fieldName\":{\"name\":")
                json.string(field.name)
                json.raw("},\"typeSignature\":")
                writeSignature(of: field.type, to: &json)
                json.raw("}}")
            }
            json.byte("]")
        default:
            // The rest take no arguments: the name is the raw type.
            json.string(name(of: type))
            json.raw(",\"arguments\":[]")
        }
        json.byte("}")
    }

    /// Writes row `rowIndex` of `column` as Trino's JSON form of its type.
    static func writeValue(_ column: Column, at rowIndex: Int, to json: inout TrinoJSONWriter) {
        if column.isNull(rowIndex) { return json.raw("null") }
        switch (column.storage, column.type) {
        case (.int64(let values), .int64):
            json.integer(values[rowIndex])
        case (.int32(let values), .int32):
            json.integer(Int64(values[rowIndex]))
        case (.int16(let values), _):
            json.integer(Int64(values[rowIndex]))
        case (.bool(let values), _):
            json.bool(values[rowIndex])
        case (.bytes(let values), .varchar):
            values.data.withUnsafeBytes { buffer in
                JSONText.appendQuoted(UnsafeRawBufferPointer(rebasing: buffer[values.byteRange(at: rowIndex)]), to: &json.bytes)
            }
        case (.int64(let values), .timestamp), (.int64(let values), .timestamptz):
            json.byte("\"")
            appendTimestamp(values[rowIndex], to: &json.bytes)
            if column.type == .timestamptz { json.raw(" UTC") }
            json.byte("\"")
        default:
            writeValue(column.value(at: rowIndex), as: column.type, to: &json)
        }
    }

    /// Writes `value` (of `type`) as Trino's JSON form of the type.
    static func writeValue(_ value: Value, as type: DataType, to json: inout TrinoJSONWriter) {
        switch value {
        case .null: json.raw("null")
        case .bool(let flag): json.bool(flag)
        case .int16(let integer): json.integer(Int64(integer))
        case .int32(let integer) where type == .date:
            json.byte("\"")
            TemporalText.appendDate(integer, to: &json.bytes)
            json.byte("\"")
        case .date(let days):
            json.byte("\"")
            TemporalText.appendDate(days, to: &json.bytes)
            json.byte("\"")
        case .int32(let integer): json.integer(Int64(integer))
        case .int64(let integer): json.integer(integer)
        case .float32(let number): writeFloating(Double(number), text: value.textForm, to: &json)
        case .float64(let number): writeFloating(number, text: value.textForm, to: &json)
        case .timestamp(let microseconds), .timestamptz(let microseconds):
            json.byte("\"")
            appendTimestamp(microseconds, to: &json.bytes)
            if case .timestamptz = value { json.raw(" UTC") }
            json.byte("\"")
        case .bytea(let bytes):
            json.string(Base64.encode(bytes))
        case .list(let elements):
            let element: DataType = if case .list(let inner) = type { inner } else { .unknown }
            json.byte("[")
            for (index, item) in elements.enumerated() {
                if index > 0 { json.byte(",") }
                writeValue(item, as: element, to: &json)
            }
            json.byte("]")
        case .structure(let members):
            let fields: [StructField] = if case .structure(let fields) = type { fields } else { [] }
            json.byte("[")
            for (index, item) in members.enumerated() {
                if index > 0 { json.byte(",") }
                writeValue(item, as: index < fields.count ? fields[index].type : .unknown, to: &json)
            }
            json.byte("]")
        default:
            // Decimals as strings (Trino's form), text, time, intervals and JSON as their text.
            json.string(value.textForm)
        }
    }

    /// A finite number as a JSON number; NaN and the infinities as the strings Trino sends.
    private static func writeFloating(_ number: Double, text: String, to json: inout TrinoJSONWriter) {
        if number.isFinite {
            json.bytes.append(contentsOf: text.utf8)
        } else {
            json.string(number.isNaN ? "NaN" : number < 0 ? "-Infinity" : "Infinity")
        }
    }

    /// `YYYY-MM-DD HH:MM:SS.ffffff`: Postgres's text with the fraction always six digits.
    static func appendTimestamp(_ microseconds: Int64, to out: inout [UInt8]) {
        let start = out.count
        TemporalText.appendTimestamp(microseconds, withZone: false, to: &out)
        // `YYYY-MM-DD HH:MM:SS` is 19 bytes for years of four digits; the fraction follows.
        guard out.count >= start + 19, out[start + 4] == UInt8(ascii: "-"), out[start + 10] == UInt8(ascii: " ") else { return }
        if out.count == start + 19 { out.append(UInt8(ascii: ".")) }
        while out.count < start + 26 { out.append(UInt8(ascii: "0")) }
    }
}
