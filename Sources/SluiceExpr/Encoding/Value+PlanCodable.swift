import SluiceCore

/// A value as a tag byte, then its payload: integers as zigzag varints, floats by their bit
/// patterns (so NaN and -0 come back as they were), a decimal as its mantissa and scale.
extension Value: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        switch self {
        case .null: writer.write(byte: 0)
        case .bool(let value):
            writer.write(byte: 1)
            writer.write(bool: value)
        case .int16(let value):
            writer.write(byte: 2)
            writer.write(int64: Int64(value))
        case .int32(let value):
            writer.write(byte: 3)
            writer.write(int64: Int64(value))
        case .int64(let value):
            writer.write(byte: 4)
            writer.write(int64: value)
        case .float32(let value):
            writer.write(byte: 5)
            writer.write(unsigned: UInt64(value.bitPattern))
        case .float64(let value):
            writer.write(byte: 6)
            writer.write(unsigned: value.bitPattern)
        case .decimal(let value):
            writer.write(byte: 7)
            writer.write(int64: Int64(truncatingIfNeeded: value.mantissa >> 64))
            writer.write(unsigned: UInt64(truncatingIfNeeded: value.mantissa))
            writer.write(int64: Int64(value.scale))
        case .string(let value):
            writer.write(byte: 8)
            writer.write(string: value)
        case .date(let value):
            writer.write(byte: 9)
            writer.write(int64: Int64(value))
        case .time(let value):
            writer.write(byte: 10)
            writer.write(int64: value)
        case .timestamp(let value):
            writer.write(byte: 11)
            writer.write(int64: value)
        case .timestamptz(let value):
            writer.write(byte: 12)
            writer.write(int64: value)
        case .interval(let value):
            writer.write(byte: 13)
            writer.write(int64: Int64(value.months))
            writer.write(int64: Int64(value.days))
            writer.write(int64: value.microseconds)
        case .jsonb(let value):
            writer.write(byte: 14)
            writer.write(string: value)
        case .bytea(let value):
            writer.write(byte: 15)
            writer.write(raw: value)
        case .structure(let values):
            writer.write(byte: 16)
            try writer.write(list: values)
        case .list(let values):
            writer.write(byte: 17)
            try writer.write(list: values)
        }
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let tag = try reader.readByte()
        switch tag {
        case 0: self = .null
        case 1: self = .bool(try reader.readBool())
        case 2: self = .int16(try reader.readInteger(Int16.self))
        case 3: self = .int32(try reader.readInteger(Int32.self))
        case 4: self = .int64(try reader.readInt64())
        case 5:
            let bits = try reader.readUnsigned()
            guard let pattern = UInt32(exactly: bits) else { throw PlanReader.corrupted("a real's bits overflow") }
            self = .float32(Float(bitPattern: pattern))
        case 6: self = .float64(Double(bitPattern: try reader.readUnsigned()))
        case 7:
            let high = try reader.readInt64()
            let low = try reader.readUnsigned()
            let scale = try reader.readInteger(Int16.self)
            self = .decimal(Decimal(mantissa: Int128(high) << 64 | Int128(low), scale: scale))
        case 8: self = .string(try reader.readString())
        case 9: self = .date(try reader.readInteger(Int32.self))
        case 10: self = .time(try reader.readInt64())
        case 11: self = .timestamp(try reader.readInt64())
        case 12: self = .timestamptz(try reader.readInt64())
        case 13:
            let months = try reader.readInteger(Int32.self)
            let days = try reader.readInteger(Int32.self)
            let microseconds = try reader.readInt64()
            self = .interval(Interval(months: months, days: days, microseconds: microseconds))
        case 14: self = .jsonb(try reader.readString())
        case 15: self = .bytea(try reader.readRaw())
        case 16:
            self = .structure(try reader.nested { (reader: inout PlanReader) throws(SluiceError) in try reader.readList(Value.self) })
        case 17:
            self = .list(try reader.nested { (reader: inout PlanReader) throws(SluiceError) in try reader.readList(Value.self) })
        default: throw PlanReader.corrupted("unknown value tag \(tag)")
        }
    }
}

/// An ORDER BY key: its column, direction and where nulls sort.
extension SortKey: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        writer.write(int: column)
        writer.write(bool: descending)
        writer.write(bool: nullsFirst)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let column = try reader.readIndex()
        let descending = try reader.readBool()
        let nullsFirst = try reader.readBool()
        self.init(column: column, descending: descending, nullsFirst: nullsFirst)
    }
}

/// One end of a key range: its value and whether the range takes it.
extension KeyBound: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try value.encode(into: &writer)
        writer.write(bool: inclusive)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let value = try Value(from: &reader)
        self.init(value: value, inclusive: try reader.readBool())
    }
}
