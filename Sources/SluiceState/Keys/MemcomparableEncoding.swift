import SluiceCore

/// An order-preserving byte encoding of SQL values: comparing two encodings byte by byte
/// (shorter first on a common prefix) orders them as SQL orders the values, so ordered state
/// (min/max under deletes, top-N, range windows) is a plain range scan over encoded keys.
///
/// Each field starts with a tag byte: `0x00` for NULL (NULLs sort first), `0x01` otherwise.
/// Integers are big-endian with the sign bit flipped; doubles use the IEEE total-order trick;
/// strings escape `0x00` as `0x00 0xFF` and end with `0x00 0x01`, so a prefix sorts first;
/// decimals are normalized to sign, exponent and digits. A descending field has every byte of
/// its encoding inverted. Decoding needs the field types.
package enum MemcomparableEncoding {
    /// Appends the encoding of `value` (of `type`) to `out`.
    package static func append(_ value: Value, as type: DataType, descending: Bool = false, to out: inout [UInt8]) {
        let start = out.count
        appendAscending(value, as: type, to: &out)
        if descending {
            for index in start ..< out.count { out[index] = ~out[index] }
        }
    }

    /// Appends the ascending encoding of row `row` of `column`, the same bytes as
    /// ``append(_:as:descending:to:)`` of its value, read straight from the column's buffers for
    /// strings and integers (no `Value`, no `String` per row).
    package static func append(_ column: Column, row: Int, to out: inout [UInt8]) {
        if column.isNull(row) {
            out.append(0x00)
            return
        }
        switch (column.storage, column.type) {
        case (.bytes(let bytes), .varchar), (.bytes(let bytes), .jsonb), (.bytes(let bytes), .bytea):
            out.append(0x01)
            let range = bytes.byteRange(at: row)
            bytes.data.withUnsafeBufferPointer { data in
                for index in range {
                    let byte = data[index]
                    out.append(byte)
                    if byte == 0x00 { out.append(0xFF) }
                }
            }
            out.append(0x00)
            out.append(0x01)
        case (.int16(let values), .int16):
            out.append(0x01)
            appendBigEndian(UInt16(bitPattern: values[row]) ^ 0x8000, to: &out)
        // (Cases matched by pattern, not by `==` on the type: this runs per row.)
        case (.int32(let values), .int32), (.int32(let values), .date):
            out.append(0x01)
            appendBigEndian(UInt32(bitPattern: values[row]) ^ 0x8000_0000, to: &out)
        case (.int64(let values), .int64), (.int64(let values), .time), (.int64(let values), .timestamp), (.int64(let values), .timestamptz):
            out.append(0x01)
            appendBigEndian(UInt64(bitPattern: values[row]) ^ 0x8000_0000_0000_0000, to: &out)
        default:
            appendAscending(column.value(at: row), as: column.type, to: &out)
        }
    }

    /// Appends `value` as an ORDER BY key: like ``append(_:as:descending:to:)``, but NULL goes
    /// first or last as `nullsFirst` says, whatever the direction (SQL's `NULLS FIRST/LAST`).
    /// A NULL is one byte, `0x00` or `0x02`; any other value is `0x01` and its encoding.
    package static func append(_ value: Value, as type: DataType, descending: Bool, nullsFirst: Bool, to out: inout [UInt8]) {
        if value.isNull {
            out.append(nullsFirst ? 0x00 : 0x02)
            return
        }
        out.append(0x01)
        append(value, as: type, descending: descending, to: &out)
    }

    /// The bytes of ``append(_:as:descending:nullsFirst:to:)`` for row `row` of `column`, read
    /// from the column's buffers (``append(_:row:to:)``).
    package static func append(_ column: Column, row: Int, descending: Bool, nullsFirst: Bool, to out: inout [UInt8]) {
        if column.isNull(row) {
            out.append(nullsFirst ? 0x00 : 0x02)
            return
        }
        out.append(0x01)
        let start = out.count
        append(column, row: row, to: &out)
        if descending {
            for index in start ..< out.count { out[index] = ~out[index] }
        }
    }

    /// Appends bytes that tell apart values that encode alike but are not the same — `1.5` and
    /// `1.50`, `0` and `-0`, `1 mon` and `30 days` — so a key made of a value's encoding and
    /// then these bytes is equal only for identical values. Empty for most values; fixed-width
    /// per type otherwise, so whatever follows stays aligned between keys whose encodings match.
    package static func appendExactForm(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .decimal(let v): appendBigEndian(UInt16(bitPattern: v.scale), to: &out)
        case .float32(let v): if v == 0 { out.append(v.sign == .minus ? 1 : 0) }
        case .float64(let v): if v == 0 { out.append(v.sign == .minus ? 1 : 0) }
        case .interval(let v):
            appendBigEndian(UInt32(bitPattern: v.months), to: &out)
            appendBigEndian(UInt32(bitPattern: v.days), to: &out)
            appendBigEndian(UInt64(bitPattern: v.microseconds), to: &out)
        case .structure(let elements), .list(let elements):
            for element in elements { appendExactForm(element, to: &out) }
        case .null, .bool, .int16, .int32, .int64, .string, .date, .time, .timestamp, .timestamptz, .jsonb, .bytea:
            break
        }
    }

    /// ``appendExactForm(_:to:)`` of row `row` of `column`, read from its buffers for the types
    /// that have none (integers, strings, booleans, dates and times).
    package static func appendExactForm(_ column: Column, row: Int, to out: inout [UInt8]) {
        switch column.storage {
        case .bool, .int16, .int32, .int64, .bytes: return
        default: appendExactForm(column.value(at: row), to: &out)
        }
    }

    /// The encoding of row `row` of `columns`, field by field.
    package static func encode(_ columns: [Column], row: Int, descending: [Bool] = []) -> [UInt8] {
        var out: [UInt8] = []
        for (index, column) in columns.enumerated() {
            append(column.value(at: row), as: column.type, descending: index < descending.count && descending[index], to: &out)
        }
        return out
    }

    private static func appendAscending(_ value: Value, as type: DataType, to out: inout [UInt8]) {
        if value.isNull {
            out.append(0x00)
            return
        }
        out.append(0x01)
        switch value {
        case .null: break
        case .bool(let v): out.append(v ? 1 : 0)
        case .int16(let v): appendBigEndian(UInt16(bitPattern: v) ^ 0x8000, to: &out)
        case .int32(let v), .date(let v): appendBigEndian(UInt32(bitPattern: v) ^ 0x8000_0000, to: &out)
        case .int64(let v), .time(let v), .timestamp(let v), .timestamptz(let v):
            appendBigEndian(UInt64(bitPattern: v) ^ 0x8000_0000_0000_0000, to: &out)
        case .float32(let v): appendBigEndian(orderedBits(Double(v)), to: &out)
        case .float64(let v): appendBigEndian(orderedBits(v), to: &out)
        case .decimal(let v): appendDecimal(v, to: &out)
        case .interval(let v):
            // Postgres orders (and equates) intervals by their length with 30-day months.
            let key = (Int128(v.months) * 30 + Int128(v.days)) * 86_400_000_000 + Int128(v.microseconds)
            appendBigEndian(UInt128(bitPattern: key) ^ (UInt128(1) << 127), to: &out)
        case .string(let v), .jsonb(let v): appendBytes(Array(v.utf8), to: &out)
        case .bytea(let v): appendBytes(v, to: &out)
        case .structure(let fields):
            guard case .structure(let types) = type else { return }
            for (field, fieldType) in zip(fields, types) { appendAscending(field, as: fieldType.type, to: &out) }
        case .list(let elements):
            guard case .list(let element) = type else { return }
            for item in elements {
                out.append(0x01)
                appendAscending(item, as: element, to: &out)
            }
            out.append(0x00)
        }
    }

    /// Doubles ordered as Postgres orders them: -Inf < … < -0 = 0 < … < Inf < NaN.
    static func orderedBits(_ value: Double) -> UInt64 {
        if value.isNaN { return UInt64.max }
        let bits = (value == 0 ? 0.0 : value).bitPattern
        return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
    }

    static func appendBytes(_ bytes: [UInt8], to out: inout [UInt8]) {
        for byte in bytes {
            out.append(byte)
            if byte == 0x00 { out.append(0xFF) }
        }
        out.append(0x00)
        out.append(0x01)
    }

    /// Sign byte (0 negative, 1 zero, 2 positive), then for non-zero values the decimal exponent
    /// (position of the first significant digit, biased) and the significant digits ended by a
    /// terminator; negative values invert the exponent and digits so larger magnitudes sort first.
    ///
    /// The special values fit around them: `-Infinity` is a negative value with an exponent
    /// below every real one's encoding (all zero bytes), `Infinity` a positive value with an
    /// exponent above (all one bytes), and `NaN` a sign byte of its own above both.
    static func appendDecimal(_ value: Decimal, to out: inout [UInt8]) {
        if value.isSpecial {
            switch value.mantissa {
            case 0: out.append(3)
            case 1: out += [2, 0xFF, 0xFF, 0xFF, 0xFF]
            default: out += [0, 0, 0, 0, 0]
            }
            return
        }
        let normalized = value.normalized
        if normalized.mantissa == 0 {
            out.append(1)
            return
        }
        let negative = normalized.mantissa < 0
        let digits = Array(String(normalized.mantissa.magnitude).utf8).map { $0 - UInt8(ascii: "0") }
        let exponent = Int32(digits.count) - Int32(normalized.scale)
        var body: [UInt8] = []
        appendBigEndian(UInt32(bitPattern: exponent) ^ 0x8000_0000, to: &body)
        for digit in digits { body.append(digit + 1) }  // 1...10, so 0 can terminate
        body.append(0)
        out.append(negative ? 0 : 2)
        out += negative ? body.map { ~$0 } : body
    }

    static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }
}
