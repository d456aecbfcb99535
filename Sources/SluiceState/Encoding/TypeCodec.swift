import SluiceCore

/// Column types and `Value` rows as bytes, for state that must describe itself on disk: a
/// checkpoint section names its column types, so it can be read (and checked against what the
/// operator expects) without the catalog.
enum TypeCodec {
    static func append(_ type: DataType, to out: inout [UInt8]) {
        switch type {
        case .boolean: out.append(1)
        case .int16: out.append(2)
        case .int32: out.append(3)
        case .int64: out.append(4)
        case .float32: out.append(5)
        case .float64: out.append(6)
        case .decimal(let precision, let scale):
            out.append(7)
            out.appendLittleEndian(Int32(precision ?? -1))
            out.appendLittleEndian(Int32(scale ?? -1))
        case .varchar: out.append(8)
        case .date: out.append(9)
        case .time: out.append(10)
        case .timestamp: out.append(11)
        case .timestamptz: out.append(12)
        case .interval: out.append(13)
        case .jsonb: out.append(14)
        case .bytea: out.append(15)
        case .structure(let fields):
            out.append(16)
            out.appendLittleEndian(UInt32(fields.count))
            for field in fields {
                appendString(field.name, to: &out)
                append(field.type, to: &out)
            }
        case .list(let element):
            out.append(17)
            append(element, to: &out)
        case .unknown: out.append(18)
        }
    }

    static func readType(_ reader: inout ByteReader, depth: Int = 0) throws(SluiceError) -> DataType {
        guard depth < 64 else { throw SluiceError(.ioError, "stored type nests too deeply") }
        switch try reader.read(UInt8.self) {
        case 1: return .boolean
        case 2: return .int16
        case 3: return .int32
        case 4: return .int64
        case 5: return .float32
        case 6: return .float64
        case 7:
            let precision = try reader.read(Int32.self)
            let scale = try reader.read(Int32.self)
            return .decimal(precision: precision < 0 ? nil : Int(precision), scale: scale < 0 ? nil : Int(scale))
        case 8: return .varchar
        case 9: return .date
        case 10: return .time
        case 11: return .timestamp
        case 12: return .timestamptz
        case 13: return .interval
        case 14: return .jsonb
        case 15: return .bytea
        case 16:
            let count = Int(try reader.read(UInt32.self))
            guard count <= reader.bytes.count - reader.offset else { throw SluiceError(.ioError, "stored data is truncated") }
            var fields: [StructField] = []
            for _ in 0 ..< count {
                let name = try readString(&reader)
                fields.append(StructField(name: name, type: try readType(&reader, depth: depth + 1)))
            }
            return .structure(fields)
        case 17: return .list(try readType(&reader, depth: depth + 1))
        case 18: return .unknown
        case let tag: throw SluiceError(.ioError, "stored type has unknown tag \(tag)")
        }
    }

    static func appendString(_ string: String, to out: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        out.appendLittleEndian(UInt32(utf8.count))
        out += utf8
    }

    static func readString(_ reader: inout ByteReader) throws(SluiceError) -> String {
        let count = Int(try reader.read(UInt32.self))
        return String(decoding: try reader.readBytes(count), as: UTF8.self)
    }

    // MARK: Values

    /// A row of values, each with a tag byte: for state whose rows are not one fixed type per
    /// column (an aggregate's counters, a join's rows with their multiplicity).
    static func appendRow(_ row: [Value], to out: inout [UInt8]) {
        out.appendLittleEndian(UInt32(row.count))
        for value in row { append(value, to: &out) }
    }

    static func readRow(_ reader: inout ByteReader) throws(SluiceError) -> [Value] {
        let count = Int(try reader.read(UInt32.self))
        guard count <= reader.bytes.count - reader.offset else { throw SluiceError(.ioError, "stored data is truncated") }
        var row: [Value] = []
        row.reserveCapacity(count)
        for _ in 0 ..< count { row.append(try readValue(&reader, depth: 0)) }
        return row
    }

    static func append(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(0)
        case .bool(let value): out += [1, value ? 1 : 0]
        case .int16(let value): out.append(2); out.appendLittleEndian(value)
        case .int32(let value): out.append(3); out.appendLittleEndian(value)
        case .int64(let value): out.append(4); out.appendLittleEndian(value)
        case .float32(let value): out.append(5); out.appendLittleEndian(value.bitPattern)
        case .float64(let value): out.append(6); out.appendLittleEndian(value.bitPattern)
        case .decimal(let value):
            out.append(7)
            out.appendLittleEndian(UInt64(truncatingIfNeeded: value.mantissa))
            out.appendLittleEndian(UInt64(truncatingIfNeeded: value.mantissa >> 64))
            out.appendLittleEndian(value.scale)
        case .string(let value): out.append(8); appendString(value, to: &out)
        case .date(let value): out.append(9); out.appendLittleEndian(value)
        case .time(let value): out.append(10); out.appendLittleEndian(value)
        case .timestamp(let value): out.append(11); out.appendLittleEndian(value)
        case .timestamptz(let value): out.append(12); out.appendLittleEndian(value)
        case .interval(let value):
            out.append(13)
            out.appendLittleEndian(value.months)
            out.appendLittleEndian(value.days)
            out.appendLittleEndian(value.microseconds)
        case .jsonb(let value): out.append(14); appendString(value, to: &out)
        case .bytea(let value):
            out.append(15)
            out.appendLittleEndian(UInt32(value.count))
            out += value
        case .structure(let values): out.append(16); appendRow(values, to: &out)
        case .list(let values): out.append(17); appendRow(values, to: &out)
        }
    }

    static func readValue(_ reader: inout ByteReader, depth: Int) throws(SluiceError) -> Value {
        guard depth < 64 else { throw SluiceError(.ioError, "stored value nests too deeply") }
        switch try reader.read(UInt8.self) {
        case 0: return .null
        case 1: return .bool(try reader.read(UInt8.self) != 0)
        case 2: return .int16(try reader.read(Int16.self))
        case 3: return .int32(try reader.read(Int32.self))
        case 4: return .int64(try reader.read(Int64.self))
        case 5: return .float32(Float(bitPattern: try reader.read(UInt32.self)))
        case 6: return .float64(Double(bitPattern: try reader.read(UInt64.self)))
        case 7:
            let low = try reader.read(UInt64.self)
            let high = try reader.read(UInt64.self)
            let scale = try reader.read(Int16.self)
            let mantissa = Int128(Int64(bitPattern: high)) << 64 | Int128(low)
            return .decimal(Decimal(mantissa: mantissa, scale: scale))
        case 8: return .string(try readString(&reader))
        case 9: return .date(try reader.read(Int32.self))
        case 10: return .time(try reader.read(Int64.self))
        case 11: return .timestamp(try reader.read(Int64.self))
        case 12: return .timestamptz(try reader.read(Int64.self))
        case 13:
            let months = try reader.read(Int32.self)
            let days = try reader.read(Int32.self)
            let microseconds = try reader.read(Int64.self)
            return .interval(Interval(months: months, days: days, microseconds: microseconds))
        case 14: return .jsonb(try readString(&reader))
        case 15:
            let count = Int(try reader.read(UInt32.self))
            return .bytea(try reader.readBytes(count))
        case let tag where tag == 16 || tag == 17:
            let count = Int(try reader.read(UInt32.self))
            guard count <= reader.bytes.count - reader.offset else { throw SluiceError(.ioError, "stored data is truncated") }
            var values: [Value] = []
            for _ in 0 ..< count { values.append(try readValue(&reader, depth: depth + 1)) }
            return tag == 16 ? .structure(values) : .list(values)
        case let tag: throw SluiceError(.ioError, "stored value has unknown tag \(tag)")
        }
    }
}
