import SluiceCore

/// A type as a tag byte, then what its case holds.
extension DataType: PlanCodable {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        switch self {
        case .boolean: writer.write(byte: 0)
        case .int16: writer.write(byte: 1)
        case .int32: writer.write(byte: 2)
        case .int64: writer.write(byte: 3)
        case .float32: writer.write(byte: 4)
        case .float64: writer.write(byte: 5)
        case .decimal(let precision, let scale):
            writer.write(byte: 6)
            writer.write(optionalInt: precision)
            writer.write(optionalInt: scale)
        case .varchar: writer.write(byte: 7)
        case .date: writer.write(byte: 8)
        case .time: writer.write(byte: 9)
        case .timestamp: writer.write(byte: 10)
        case .timestamptz: writer.write(byte: 11)
        case .interval: writer.write(byte: 12)
        case .jsonb: writer.write(byte: 13)
        case .bytea: writer.write(byte: 14)
        case .structure(let fields):
            writer.write(byte: 15)
            writer.write(unsigned: UInt64(fields.count))
            for field in fields {
                writer.write(string: field.name)
                try field.type.encode(into: &writer)
            }
        case .list(let element):
            writer.write(byte: 16)
            try element.encode(into: &writer)
        case .unknown: writer.write(byte: 17)
        }
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let tag = try reader.readByte()
        switch tag {
        case 0: self = .boolean
        case 1: self = .int16
        case 2: self = .int32
        case 3: self = .int64
        case 4: self = .float32
        case 5: self = .float64
        case 6:
            let precision = try reader.readOptionalInt()
            let scale = try reader.readOptionalInt()
            self = .decimal(precision: precision, scale: scale)
        case 7: self = .varchar
        case 8: self = .date
        case 9: self = .time
        case 10: self = .timestamp
        case 11: self = .timestamptz
        case 12: self = .interval
        case 13: self = .jsonb
        case 14: self = .bytea
        case 15:
            let count = try reader.readCount()
            var fields: [StructField] = []
            for _ in 0 ..< count {
                let name = try reader.readString()
                let type = try reader.nested { (reader: inout PlanReader) throws(SluiceError) in try DataType(from: &reader) }
                fields.append(StructField(name: name, type: type))
            }
            self = .structure(fields)
        case 16:
            self = .list(try reader.nested { (reader: inout PlanReader) throws(SluiceError) in try DataType(from: &reader) })
        case 17: self = .unknown
        default: throw PlanReader.corrupted("unknown type tag \(tag)")
        }
    }
}
