/// Postgres text and binary forms of column values, as `typoutput`/`typsend` produce them.
extension Column {
    /// Appends the Postgres text form of row `rowIndex`, which must not be null.
    package func appendText(at rowIndex: Int, to out: inout [UInt8]) {
        switch storage {
        case .bool(let values):
            out.append(values[rowIndex] ? UInt8(ascii: "t") : UInt8(ascii: "f"))
        case .int16(let values):
            out.append(contentsOf: String(values[rowIndex]).utf8)
        case .int32(let values):
            out.append(contentsOf: String(values[rowIndex]).utf8)
        case .int64(let values):
            out.append(contentsOf: String(values[rowIndex]).utf8)
        case .bytes(let values):
            out.append(contentsOf: values.data[values.byteRange(at: rowIndex)])
        default:
            out.append(contentsOf: value(at: rowIndex).textForm.utf8)
        }
    }

    /// Appends the Postgres binary form (`typsend`) of row `rowIndex`, which must not be null.
    package func appendBinary(at rowIndex: Int, to out: inout [UInt8]) {
        value(at: rowIndex).appendBinary(to: &out)
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
        case .float32(let value): String(value)
        case .float64(let value): String(value)
        case .decimal(let value): "\(value.mantissa)e-\(value.scale)"
        case .string(let value), .jsonb(let value): value
        case .date(let value): String(value)
        case .time(let value), .timestamp(let value), .timestamptz(let value): String(value)
        case .interval(let value): "\(value.months) \(value.days) \(value.microseconds)"
        case .bytea(let value): "\\x" + value.map { String($0, radix: 16) }.joined()
        case .structure(let values): "(" + values.map(\.textForm).joined(separator: ",") + ")"
        case .list(let values): "{" + values.map(\.textForm).joined(separator: ",") + "}"
        }
    }

    /// Appends the Postgres binary form (`typsend`) of this value; nothing for `NULL`.
    package func appendBinary(to out: inout [UInt8]) {
        func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
        }
        switch self {
        case .null: break
        case .bool(let value): out.append(value ? 1 : 0)
        case .int16(let value): appendBigEndian(value)
        case .int32(let value): appendBigEndian(value)
        case .int64(let value): appendBigEndian(value)
        case .float32(let value): appendBigEndian(value.bitPattern)
        case .float64(let value): appendBigEndian(value.bitPattern)
        default: out.append(contentsOf: textForm.utf8)
        }
    }

    /// Parses the Postgres text form of a value of `type` (`typinput`).
    package init(parsingText text: String, as type: DataType) throws(SluiceError) {
        func invalid() -> SluiceError {
            SluiceError(.invalidTextRepresentation, "invalid input syntax for type \(type.sqlName): \"\(text)\"")
        }
        let trimmed = text.trimmingSpaces
        switch type {
        case .boolean:
            switch trimmed.lowercased() {
            case "t", "true", "yes", "y", "on", "1": self = .bool(true)
            case "f", "false", "no", "n", "off", "0": self = .bool(false)
            default: throw invalid()
            }
        case .int16:
            guard let value = Int16(trimmed) else { throw invalid() }
            self = .int16(value)
        case .int32:
            guard let value = Int32(trimmed) else { throw invalid() }
            self = .int32(value)
        case .int64:
            guard let value = Int64(trimmed) else { throw invalid() }
            self = .int64(value)
        case .float32:
            guard let value = Float(trimmed) else { throw invalid() }
            self = .float32(value)
        case .float64:
            guard let value = Double(trimmed) else { throw invalid() }
            self = .float64(value)
        case .varchar, .unknown:
            self = .string(text)
        case .jsonb:
            self = .jsonb(text)
        default:
            throw SluiceError(.featureNotSupported, "text input for type \(type.sqlName) is not supported yet")
        }
    }

    /// Parses the Postgres binary form (`typreceive`) of a value of `type`.
    package init(parsingBinary bytes: [UInt8], as type: DataType) throws(SluiceError) {
        func bigEndian<T: FixedWidthInteger>(_: T.Type) throws(SluiceError) -> T {
            guard bytes.count == MemoryLayout<T>.size else {
                throw SluiceError(.invalidParameterValue, "incorrect binary data format for type \(type.sqlName)")
            }
            return bytes.reduce(T.zero) { ($0 << 8) | T(truncatingIfNeeded: $1) }
        }
        switch type {
        case .boolean: self = .bool(try bigEndian(UInt8.self) != 0)
        case .int16: self = .int16(try bigEndian(Int16.self))
        case .int32: self = .int32(try bigEndian(Int32.self))
        case .int64: self = .int64(try bigEndian(Int64.self))
        case .float32: self = .float32(Float(bitPattern: try bigEndian(UInt32.self)))
        case .float64: self = .float64(Double(bitPattern: try bigEndian(UInt64.self)))
        case .varchar, .unknown: self = .string(String(decoding: bytes, as: UTF8.self))
        default:
            throw SluiceError(.featureNotSupported, "binary input for type \(type.sqlName) is not supported yet")
        }
    }
}

extension String {
    /// This string without leading and trailing ASCII whitespace.
    package var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = lastIndex(where: { !isSpace($0) })!
        return String(self[first ... last])
    }
}
