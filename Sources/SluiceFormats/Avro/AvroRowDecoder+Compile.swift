import SluiceCore

/// Compiles a writer schema against the columns it fills into an ``AvroRecordProgram``: each
/// writer field matched to its column once, each value's conversion chosen once.
struct AvroProgramCompiler {
    /// The program of writer record `writer` into `fields` (a source's columns or a struct's
    /// fields), with `reader`'s field defaults for the fields the writer lacks.
    mutating func record(_ writer: AvroSchema, reader: AvroSchema?, into fields: [StructField], path: String) throws(SluiceError) -> AvroRecordProgram {
        guard case .record(_, let writerFields) = writer.kind else {
            throw SluiceError(.datatypeMismatch, "Avro \(writer.typeName)\(Self.at(path)) is not a record")
        }
        var filled = Array(repeating: false, count: fields.count)
        var steps: [AvroFieldAction] = []
        steps.reserveCapacity(writerFields.count)
        for field in writerFields {
            let fieldPath = path.isEmpty ? field.name : path + "." + field.name
            // A column whose name matches exactly wins; else the first that matches up to case.
            let target = fields.firstIndex { $0.name == field.name } ?? fields.firstIndex { Self.equalIgnoringCase($0.name, field.name) }
            if let target, !filled[target] {
                filled[target] = true
                steps.append(.read(try step(field.type, into: fields[target].type, path: fieldPath), target: target))
            } else {
                steps.append(.skip(try skip(field.type, path: fieldPath)))
            }
        }
        var unset: [AvroRecordProgram.Unset] = []
        for (index, field) in fields.enumerated() where !filled[index] {
            let readerField = reader?.fields?.first { $0.name == field.name } ?? reader?.fields?.first { Self.equalIgnoringCase($0.name, field.name) }
            let value = readerField.flatMap { readerField in
                readerField.defaultValue.map { AvroDefaults.value($0, of: readerField.type, as: field.type) }
            } ?? .null
            unset.append(.init(target: index, value: value))
        }
        return AvroRecordProgram(fields: steps, unset: unset)
    }

    /// The step that reads a `writer` value into a column of `type`.
    mutating func step(_ writer: AvroSchema, into type: DataType, path: String) throws(SluiceError) -> AvroReadStep {
        func mismatch(_ hint: String? = nil) -> SluiceError {
            SluiceError(
                .datatypeMismatch, "Avro \(writer.typeName)\(writer.logicalType.map { " (\($0.name))" } ?? "")\(Self.at(path)) cannot fill a \(type.sqlName) column",
                hint: hint)
        }
        switch writer.kind {
        case .null:
            return .null
        case .union(let branches):
            var steps: [AvroReadStep] = []
            var firstProblem: SluiceError?
            var usable = false
            for branch in branches {
                do throws(SluiceError) {
                    steps.append(try step(branch, into: type, path: path))
                    if branch.kind != .null { usable = true }
                } catch {
                    if firstProblem == nil { firstProblem = error }
                    steps.append(.failure("\(error.message)"))
                }
            }
            if !usable, let firstProblem { throw firstProblem }
            if branches.count == 2, let nullIndex = branches.firstIndex(where: { $0.kind == .null }) {
                return .optional(nullIndex: Int64(nullIndex), steps[1 - nullIndex])
            }
            return .union(steps)
        case .reference(let name):
            throw SluiceError(.featureNotSupported, "the recursive Avro type \(name)\(Self.at(path)) cannot fill a column")
        case .boolean:
            guard type == .boolean else { throw mismatch() }
            return .boolean
        case .int, .long:
            switch (writer.logicalType, type) {
            case (.date?, .date): return .integer(.int32)
            case (.date?, .timestamp), (.date?, .timestamptz): return .integer(.int64(multiplier: 86_400_000_000))
            case (.timeMillis?, .time): return .integer(.int64(multiplier: 1000))
            case (.timeMicros?, .time): return .integer(.int64(multiplier: 1))
            case (.timestampMillis?, .timestamp), (.timestampMillis?, .timestamptz), (.localTimestampMillis?, .timestamp),
                (.localTimestampMillis?, .timestamptz):
                return .integer(.int64(multiplier: 1000))
            case (.timestampMicros?, .timestamp), (.timestampMicros?, .timestamptz), (.localTimestampMicros?, .timestamp),
                (.localTimestampMicros?, .timestamptz):
                return .integer(.int64(multiplier: 1))
            default: break
            }
            switch type {
            case .int16: return .integer(.int16)
            case .int32: return .integer(.int32)
            case .int64: return .integer(.int64(multiplier: 1))
            case .float32: return .integer(.float32)
            case .float64: return .integer(.float64)
            case .decimal(let precision, let scale): return .integer(.decimal(AvroDecimalTarget(avroScale: 0, precision: precision, scale: scale)))
            case .varchar: return .integer(.text)
            case .date, .time, .timestamp, .timestamptz:
                throw mismatch("Give the field a logical type: date, time-millis, time-micros, timestamp-millis or timestamp-micros.")
            default: throw mismatch()
            }
        case .float, .double:
            let target: AvroFloatTarget
            switch type {
            case .float32: target = .float32
            case .float64: target = .float64
            case .decimal(let precision, let scale): target = .decimal(AvroDecimalTarget(avroScale: 0, precision: precision, scale: scale))
            default: throw mismatch()
            }
            return writer.kind == .float ? .float(target) : .double(target)
        case .string:
            switch type {
            case .varchar: return .text
            case .jsonb: return .json
            case .bytea: return .binary
            case .structure, .list, .unknown: throw mismatch()
            default: return .parsedText(type)
            }
        case .bytes:
            if case .decimal(_, let avroScale)? = writer.logicalType, case .decimal(let precision, let scale) = type {
                return .decimalBytes(AvroDecimalTarget(avroScale: Int16(avroScale), precision: precision, scale: scale))
            }
            switch type {
            case .bytea: return .binary
            case .varchar: return .text
            default: throw mismatch()
            }
        case .fixed(_, let size):
            if case .decimal(_, let avroScale)? = writer.logicalType, case .decimal(let precision, let scale) = type {
                return .fixedDecimal(size: size, AvroDecimalTarget(avroScale: Int16(avroScale), precision: precision, scale: scale))
            }
            if writer.logicalType == .uuid, type == .varchar { return .fixedUUID }
            guard type == .bytea else { throw mismatch() }
            return .fixedBinary(size: size)
        case .enumeration(_, let symbols):
            guard type == .varchar else { throw mismatch() }
            return .enumeration(symbols.map { Array($0.utf8) })
        case .record:
            guard case .structure(let fields) = type else { throw mismatch() }
            return .record(try record(writer, reader: nil, into: fields, path: path))
        case .array(let items):
            guard case .list(let element) = type else { throw mismatch() }
            var sizes: [String: Int] = [:]
            return .list(try step(items, into: element, path: path + "[]"), itemSize: items.minimumEncodedSize(cache: &sizes))
        case .map:
            throw mismatch("Avro maps have no column type yet.")
        }
    }

    /// How a value of `writer` is stepped over.
    func skip(_ writer: AvroSchema, path: String) throws(SluiceError) -> AvroSkip {
        switch writer.kind {
        case .null: return .nothing
        case .boolean: return .boolean
        case .int, .long, .enumeration: return .varint
        case .float: return .fixed(4)
        case .double: return .fixed(8)
        case .bytes, .string: return .lengthPrefixed
        case .fixed(_, let size): return .fixed(size)
        case .union(let branches):
            var skips: [AvroSkip] = []
            for branch in branches { skips.append(try skip(branch, path: path)) }
            return .union(skips)
        case .record(_, let fields):
            var skips: [AvroSkip] = []
            for field in fields { skips.append(try skip(field.type, path: path + "." + field.name)) }
            return .record(skips)
        case .array(let items):
            var sizes: [String: Int] = [:]
            return .array(try skip(items, path: path + "[]"), itemSize: items.minimumEncodedSize(cache: &sizes))
        case .map(let values):
            var sizes: [String: Int] = [:]
            return .map(try skip(values, path: path + "{}"), itemSize: 1 + values.minimumEncodedSize(cache: &sizes))
        case .reference(let name):
            throw SluiceError(.featureNotSupported, "the recursive Avro type \(name)\(Self.at(path)) is not supported")
        }
    }

    static func at(_ path: String) -> String {
        path.isEmpty ? "" : " at \(path)"
    }

    /// ASCII case-insensitive equality, as JSON sources match keys to columns.
    static func equalIgnoringCase(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        return zip(left.utf8, right.utf8).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}

/// A reader field's default (Avro specification: JSON, its form set by the field's type, the
/// first branch for a union) as a column's value; one that does not fit the column is NULL.
enum AvroDefaults {
    static func value(_ json: JSONDocument, of schema: AvroSchema, as type: DataType) -> Value {
        var schema = schema
        if case .union(let branches) = schema.kind, let first = branches.first { schema = first }
        switch json {
        case .null:
            return .null
        case .bool(let flag):
            return type == .boolean ? .bool(flag) : .null
        case .int(let integer):
            switch type {
            case .int16: return Int16(exactly: integer).map { .int16($0) } ?? .null
            case .int32: return Int32(exactly: integer).map { .int32($0) } ?? .null
            case .int64: return .int64(integer)
            case .float32: return .float32(Float(integer))
            case .float64: return .float64(Double(integer))
            case .decimal: return .decimal(Decimal(integer))
            case .varchar: return .string(String(integer))
            case .date: return schema.logicalType == .date ? Int32(exactly: integer).map { .date($0) } ?? .null : .null
            case .time:
                switch schema.logicalType {
                case .timeMillis?: return .time(integer &* 1000)
                case .timeMicros?: return .time(integer)
                default: return .null
                }
            case .timestamp, .timestamptz:
                let micros: Int64
                switch schema.logicalType {
                case .timestampMillis?, .localTimestampMillis?: micros = integer &* 1000
                case .timestampMicros?, .localTimestampMicros?: micros = integer
                case .date?: micros = integer &* 86_400_000_000
                default: return .null
                }
                return type == .timestamp ? .timestamp(micros) : .timestamptz(micros)
            default: return .null
            }
        case .double(let number):
            switch type {
            case .float32: return .float32(Float(number))
            case .float64: return .float64(number)
            case .decimal: return (try? Decimal(number)).map { .decimal($0) } ?? .null
            default: return .null
            }
        case .string(let text):
            switch type {
            case .varchar: return .string(text)
            case .jsonb: return (try? JSONText.normalize(text)).map { .jsonb($0) } ?? .null
            // Avro writes a bytes default as a string of code points 0 to 255, one per byte.
            case .bytea: return .bytea(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
            case .structure, .list, .unknown: return .null
            default: return (try? Value(parsingText: text, as: type)) ?? .null
            }
        case .array, .object:
            return .null
        }
    }
}
