/// Postgres text and binary forms of column values, as `typoutput`/`typsend` produce them.
///
/// Text output assumes the session settings Sluice reports: `DateStyle = ISO, MDY`,
/// `IntervalStyle = postgres`, `TimeZone = UTC`, `extra_float_digits = 1`,
/// `bytea_output = hex`.
extension Column {
    /// Appends the Postgres text form of row `rowIndex`, which must not be null; a
    /// `timestamptz` shows in `zone` (the session's time zone).
    package func appendText(at rowIndex: Int, to out: inout [UInt8], zone: TimeZoneRules = .utc) {
        switch (storage, type) {
        case (.int64(let values), .timestamptz):
            TemporalText.appendTimestamp(values[rowIndex], withZone: true, zone: zone, to: &out)
        case (.int64(let values), .timestamp):
            TemporalText.appendTimestamp(values[rowIndex], withZone: false, to: &out)
        case (.int64(let values), .time):
            TemporalText.appendTime(values[rowIndex], to: &out)
        case (.int32(let values), .date):
            TemporalText.appendDate(values[rowIndex], to: &out)
        case (.bool(let values), _):
            out.append(values[rowIndex] ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        case (.int16(let values), _):
            DecimalText.append(Int64(values[rowIndex]), to: &out)
        case (.int32(let values), .int32):
            DecimalText.append(Int64(values[rowIndex]), to: &out)
        case (.int64(let values), .int64):
            DecimalText.append(values[rowIndex], to: &out)
        case (.bytes(let values), .varchar), (.bytes(let values), .jsonb), (.bytes(let values), .unknown):
            out.append(contentsOf: values.data[values.byteRange(at: rowIndex)])
        default:
            out.append(contentsOf: value(at: rowIndex).textForm.utf8)
        }
    }

    /// Appends the Postgres binary form (`typsend`) of row `rowIndex`, which must not be null.
    package func appendBinary(at rowIndex: Int, to out: inout [UInt8]) {
        value(at: rowIndex).appendBinary(to: &out, as: type)
    }
}

extension Value {
    /// The Postgres text form of this value (`typoutput`); `NULL` has none and gives "".
    package var textForm: String {
        switch self {
        case .null: ""
        case .bool(let value): value ? "t" : "f"
        case .int16(let value): String(value)
        case .int32(let value): String(value)
        case .int64(let value): String(value)
        case .float32(let value): value.postgresText
        case .float64(let value): value.postgresText
        case .decimal(let value): value.textForm
        case .string(let value), .jsonb(let value): value
        case .date(let value): TemporalText.date(value)
        case .time(let value): TemporalText.time(value)
        case .timestamp(let value): TemporalText.timestamp(value, withZone: false)
        case .timestamptz(let value): TemporalText.timestamp(value, withZone: true)
        case .interval(let value): value.textForm
        case .bytea(let value): CompositeText.bytea(value)
        case .structure(let values): CompositeText.record(values)
        case .list(let values): CompositeText.array(values)
        }
    }

    /// Parses the Postgres text form of a value of `type` (`typinput`); a `timestamptz`
    /// without an offset is a reading of `zone`'s clocks.
    ///
    /// A `numeric(p, s)` type rounds and range-checks the value (``Decimal/coerced(precision:scale:)``).
    package init(parsingText text: String, as type: DataType, zone: TimeZoneRules = .utc) throws(SluiceError) {
        switch type {
        case .boolean:
            self = .bool(try ScalarText.parseBool(text))
        case .int16:
            self = .int16(Int16(try ScalarText.parseInteger(text, typeName: "smallint", range: Int64(Int16.min) ... Int64(Int16.max))))
        case .int32:
            self = .int32(Int32(try ScalarText.parseInteger(text, typeName: "integer", range: Int64(Int32.min) ... Int64(Int32.max))))
        case .int64:
            self = .int64(try ScalarText.parseInteger(text, typeName: "bigint", range: Int64.min ... Int64.max))
        case .float32:
            self = .float32(try ScalarText.parseFloat(text))
        case .float64:
            self = .float64(try ScalarText.parseDouble(text))
        case .decimal(let precision, let scale):
            var value = try Decimal(parsingText: text)
            if let precision { value = try value.coerced(precision: precision, scale: scale ?? 0) }
            self = .decimal(value)
        case .varchar, .unknown:
            self = .string(text)
        case .date:
            self = .date(try TemporalText.parseDate(text))
        case .time:
            self = .time(try TemporalText.parseTime(text))
        case .timestamp:
            self = .timestamp(try TemporalText.parseTimestamp(text, withZone: false))
        case .timestamptz:
            self = .timestamptz(try TemporalText.parseTimestamp(text, withZone: true, zone: zone))
        case .interval:
            self = .interval(try Interval(parsingText: text))
        case .jsonb:
            self = .jsonb(try JSONText.normalize(text))
        case .bytea:
            self = .bytea(try CompositeText.parseBytea(text))
        case .structure(let fields):
            let parts = try CompositeText.splitRecord(text)
            guard parts.count == fields.count else {
                throw SluiceError(.invalidTextRepresentation, "malformed record literal: \"\(text)\"",
                                  detail: parts.count < fields.count ? "Too few columns." : "Too many columns.")
            }
            var values: [Value] = []
            for (part, field) in zip(parts, fields) {
                values.append(try part.map { (part) throws(SluiceError) in try Value(parsingText: part, as: field.type) } ?? .null)
            }
            self = .structure(values)
        case .list(let element):
            let elements = try CompositeText.splitArray(text)
            guard CompositeText.isRectangular(elements) else {
                throw SluiceError(.invalidTextRepresentation, "malformed array literal: \"\(text)\"",
                                  detail: "Multidimensional arrays must have sub-arrays with matching dimensions.")
            }
            self = .list(try Value.arrayElements(elements, as: element, text: text))
        }
    }

    private static func arrayElements(_ elements: [CompositeText.ArrayElement], as type: DataType, text: String) throws(SluiceError) -> [Value] {
        var values: [Value] = []
        for element in elements {
            switch element {
            case .null:
                values.append(.null)
            case .text(let item):
                values.append(try Value(parsingText: item, as: type))
            case .nested(let nested):
                // Postgres arrays are multidimensional whatever the declared element type.
                let inner: DataType = if case .list(let inner) = type { inner } else { type }
                values.append(.list(try arrayElements(nested, as: inner, text: text)))
            }
        }
        return values
    }
}
