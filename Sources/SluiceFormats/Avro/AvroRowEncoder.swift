import SluiceCore

/// Encodes rows of columns as Avro binary records, column by column: each column's values of a
/// chunk are encoded into a buffer of their own (one pass over its typed storage), then each
/// row's record is put together from its columns' slices.
///
/// The schema is derived from the columns (``schema``): a record named as given whose fields are
/// the columns, each `["null", T]` with default null:
/// - `boolean`; `smallint` and `integer` as `int`; `bigint` as `long`; `real` as `float`;
///   `double precision` as `double`;
/// - `numeric(p, s)` as `bytes` with the `decimal` logical type; `numeric` without a scale, and
///   `interval`, as their text in a `string`;
/// - `varchar` and `jsonb` as `string`; `bytea` as `bytes`;
/// - `date` as `int` (`date`); `time` as `long` (`time-micros`); `timestamp` as `long`
///   (`local-timestamp-micros`), `timestamptz` as `long` (`timestamp-micros`);
/// - a struct as a nested record (named after the record and the field), a list as an array of
///   nullable items.
///
/// Field and record names are made valid Avro names (other characters become `_`).
package struct AvroRowEncoder {
    /// The record schema the rows are written in.
    package let schema: AvroSchema
    private let kinds: [AvroColumnKind]
    /// Each column's encoded values for the chunk being encoded, and where each row's ends.
    private var columnBytes: [[UInt8]]
    private var columnEnds: [[Int]]

    /// An encoder of rows of `columns` as records named `recordName` (a full name: a dotted
    /// prefix is its namespace).
    package init(columns: [(name: String, type: DataType)], recordName: String) {
        kinds = columns.map { AvroColumnKind($0.type) }
        schema = Self.recordSchema(name: recordName, columns.map { StructField(name: $0.name, type: $0.type) })
        columnBytes = Array(repeating: [], count: columns.count)
        columnEnds = Array(repeating: [], count: columns.count)
    }

    /// Appends each row of `chunk` to `bytes`: `prefix` (a Confluent frame's header, say), then
    /// the row's record; `rowEnds` gets where each row ends in `bytes`.
    ///
    /// - Complexity: O(rows × columns + bytes written).
    package mutating func append(_ chunk: Chunk, prefix: [UInt8], to bytes: inout [UInt8], rowEnds: inout [Int]) {
        for index in kinds.indices {
            columnBytes[index].removeAll(keepingCapacity: true)
            columnEnds[index].removeAll(keepingCapacity: true)
            Self.encode(chunk.columns[index], as: kinds[index], rows: 0 ..< chunk.count, into: &columnBytes[index], ends: &columnEnds[index])
        }
        for row in 0 ..< chunk.count {
            bytes += prefix
            for index in kinds.indices {
                let start = row == 0 ? 0 : columnEnds[index][row - 1]
                bytes += columnBytes[index][start ..< columnEnds[index][row]]
            }
            rowEnds.append(bytes.count)
        }
    }

    // MARK: - Values

    /// Encodes rows `rows` of `column`, each as a `["null", T]` union, appending each row's end.
    private static func encode(_ column: Column, as kind: AvroColumnKind, rows: Range<Int>, into out: inout [UInt8], ends: inout [Int]) {
        // The values are written straight into `out`, lent to the encoder for the call.
        var writer = AvroBinaryEncoder()
        swap(&writer.bytes, &out)
        defer { swap(&writer.bytes, &out) }
        func value(_ row: Int, _ body: (inout AvroBinaryEncoder) -> Void) {
            if column.isNull(row) {
                writer.writeLong(0)
            } else {
                writer.writeLong(1)
                body(&writer)
            }
            ends.append(writer.bytes.count)
        }
        switch (kind, column.storage) {
        case (.boolean, .bool(let values)):
            for row in rows { value(row) { $0.bytes.append(values[row] ? 1 : 0) } }
        case (_, .int16(let values)):
            for row in rows { value(row) { $0.writeLong(Int64(values[row])) } }
        case (_, .int32(let values)):
            for row in rows { value(row) { $0.writeLong(Int64(values[row])) } }
        case (_, .int64(let values)):
            for row in rows { value(row) { $0.writeLong(values[row]) } }
        case (_, .float32(let values)):
            for row in rows { value(row) { $0.writeFloat(values[row]) } }
        case (_, .float64(let values)):
            for row in rows { value(row) { $0.writeDouble(values[row]) } }
        case (.decimal(let scale), .decimal(let values)):
            for row in rows {
                // NaN, the infinities and a value the scale cannot hold have no Avro decimal: NULL.
                guard !column.isNull(row), values[row].scale != Decimal.specialScale, let rescaled = try? values[row].rounded(scale: scale) else {
                    writer.bytes.append(0)
                    ends.append(writer.bytes.count)
                    continue
                }
                value(row) { encoder in appendTwosComplement(rescaled.mantissa, to: &encoder) }
            }
        case (.varBytes, .bytes(let values)):
            for row in rows {
                value(row) { encoder in
                    encoder.writeLong(Int64(values.length(at: row)))
                    values.withBytes(at: row) { encoder.writeRaw(UnsafeRawBufferPointer($0)) }
                }
            }
        case (.structure(let fields), .structure(let children, _)):
            var childBytes = Array(repeating: [UInt8](), count: fields.count)
            var childEnds = Array(repeating: [Int](), count: fields.count)
            for index in fields.indices { encode(children[index], as: fields[index], rows: rows, into: &childBytes[index], ends: &childEnds[index]) }
            for (offset, row) in rows.enumerated() {
                if column.isNull(row) {
                    writer.bytes.append(0)
                } else {
                    writer.bytes.append(2)
                    for index in fields.indices {
                        let start = offset == 0 ? 0 : childEnds[index][offset - 1]
                        writer.bytes += childBytes[index][start ..< childEnds[index][offset]]
                    }
                }
                ends.append(writer.bytes.count)
            }
        case (.list(let element), .list(let offsets, let elements)):
            var elementBytes: [UInt8] = []
            var elementEnds: [Int] = []
            let first = Int(offsets[rows.lowerBound])
            let last = Int(offsets[rows.upperBound])
            encode(elements, as: element, rows: first ..< last, into: &elementBytes, ends: &elementEnds)
            for row in rows {
                if column.isNull(row) {
                    writer.bytes.append(0)
                } else {
                    writer.bytes.append(2)
                    let start = Int(offsets[row])
                    let end = Int(offsets[row + 1])
                    if end > start {
                        writer.writeLong(Int64(end - start))
                        let from = start == first ? 0 : elementEnds[start - first - 1]
                        writer.bytes += elementBytes[from ..< elementEnds[end - first - 1]]
                    }
                    writer.bytes.append(0)
                }
                ends.append(writer.bytes.count)
            }
        default:
            // Text forms: `numeric` without a scale, `interval`.
            var text: [UInt8] = []
            for row in rows {
                value(row) { encoder in
                    text.removeAll(keepingCapacity: true)
                    column.appendText(at: row, to: &text)
                    encoder.writeLong(Int64(text.count))
                    encoder.writeRaw(text)
                }
            }
        }
    }

    /// `value` as the fewest big-endian two's-complement bytes that hold it.
    static func twosComplement(_ value: Int128) -> [UInt8] {
        let (bits, start) = significantBytes(value)
        return (start ..< 16).map { byte($0, of: bits) }
    }

    /// `value` as Avro `bytes` (its length, then ``twosComplement(_:)``), without an array.
    static func appendTwosComplement(_ value: Int128, to encoder: inout AvroBinaryEncoder) {
        let (bits, start) = significantBytes(value)
        encoder.writeLong(Int64(16 - start))
        for index in start ..< 16 { encoder.bytes.append(byte(index, of: bits)) }
    }

    /// `value`'s 16 big-endian bytes, and the first that does not only extend the sign.
    private static func significantBytes(_ value: Int128) -> (bits: UInt128, start: Int) {
        let bits = UInt128(bitPattern: value)
        var start = 0
        while start < 15 {
            let (current, next) = (byte(start, of: bits), byte(start + 1, of: bits))
            if (current == 0 && next & 0x80 == 0) || (current == 0xFF && next & 0x80 != 0) { start += 1 } else { break }
        }
        return (bits, start)
    }

    @inline(__always)
    private static func byte(_ index: Int, of bits: UInt128) -> UInt8 {
        UInt8(truncatingIfNeeded: bits >> (8 * UInt128(15 - index)))
    }

    // MARK: - Schema

    /// The record schema of `fields`, each optional with default null.
    static func recordSchema(name: String, _ fields: [StructField]) -> AvroSchema {
        let name = AvroNames.valid(name, dotted: true)
        var used: Set<String> = []
        let avroFields = fields.map { field -> AvroField in
            var fieldName = AvroNames.valid(field.name, dotted: false)
            while !used.insert(fieldName).inserted { fieldName += "_" }
            let type = valueSchema(field.type, name: name + "_" + fieldName)
            return AvroField(fieldName, .optional(type), defaultValue: .null)
        }
        return .record(name, avroFields)
    }

    /// The (non-null) schema of a column type's values; `name` names a nested record.
    static func valueSchema(_ type: DataType, name: String) -> AvroSchema {
        switch type {
        case .boolean: return .boolean
        case .int16, .int32: return .int
        case .int64: return .long
        case .float32: return .float
        case .float64: return .double
        case .decimal(let precision?, let scale): return AvroSchema(.bytes, logicalType: .decimal(precision: precision, scale: scale ?? 0))
        case .decimal, .interval, .varchar, .jsonb, .unknown: return .string
        case .bytea: return .bytes
        case .date: return AvroSchema(.int, logicalType: .date)
        case .time: return AvroSchema(.long, logicalType: .timeMicros)
        case .timestamp: return AvroSchema(.long, logicalType: .localTimestampMicros)
        case .timestamptz: return AvroSchema(.long, logicalType: .timestampMicros)
        case .structure(let fields): return recordSchema(name: name, fields)
        case .list(let element): return AvroSchema(.array(items: .optional(valueSchema(element, name: name + "_item"))))
        }
    }
}

/// How a column's values are written: chosen once per column from its type.
indirect enum AvroColumnKind {
    case boolean
    /// Integers, floating point numbers, dates, times and timestamps: as stored.
    case number
    /// `numeric(p, s)`: the unscaled value at scale `s`.
    case decimal(scale: Int)
    /// `varchar`, `jsonb`, `bytea`: their bytes.
    case varBytes
    /// `numeric` without a scale, `interval`: their text.
    case text
    case structure([AvroColumnKind])
    case list(AvroColumnKind)

    init(_ type: DataType) {
        switch type {
        case .boolean: self = .boolean
        case .int16, .int32, .int64, .float32, .float64, .date, .time, .timestamp, .timestamptz: self = .number
        case .decimal(_?, let scale): self = .decimal(scale: scale ?? 0)
        case .decimal, .interval: self = .text
        case .varchar, .jsonb, .bytea, .unknown: self = .varBytes
        case .structure(let fields): self = .structure(fields.map { AvroColumnKind($0.type) })
        case .list(let element): self = .list(AvroColumnKind(element))
        }
    }
}

/// Avro names (specification, "Names"): `[A-Za-z_][A-Za-z0-9_]*`, dot-separated in a full name.
package enum AvroNames {
    /// `text` made a valid name: other characters become `_`, and a leading digit gets a `_`
    /// before it; with `dotted`, each dot-separated part is made valid.
    package static func valid(_ text: String, dotted: Bool) -> String {
        if dotted { return text.split(separator: ".", omittingEmptySubsequences: false).map { valid(String($0), dotted: false) }.joined(separator: ".") }
        var bytes = text.utf8.map { byte -> UInt8 in
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            return isLetter || isDigit || byte == UInt8(ascii: "_") ? byte : UInt8(ascii: "_")
        }
        if bytes.isEmpty || (bytes[0] >= UInt8(ascii: "0") && bytes[0] <= UInt8(ascii: "9")) { bytes.insert(UInt8(ascii: "_"), at: 0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
