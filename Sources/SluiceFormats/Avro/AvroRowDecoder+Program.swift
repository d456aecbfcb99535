import SluiceCore

/// How one value of the writer's schema is read, and what it becomes in its builder: the
/// writer's encoding and the column's type joined into one case, chosen once per schema.
enum AvroReadStep {
    /// `null`: a NULL row.
    case null
    case boolean
    /// `int` or `long` into an integer, floating point, `numeric` or text column.
    case integer(AvroIntegerTarget)
    /// `float` into a floating point or `numeric` column.
    case float(AvroFloatTarget)
    /// `double` into a floating point or `numeric` column.
    case double(AvroFloatTarget)
    /// `string` (or `bytes`) into `varchar`: UTF-8, checked.
    case text
    /// `bytes` (or `string`) into `bytea`.
    case binary
    /// `string` into `jsonb`.
    case json
    /// `string` into any other type, as that type's text input reads it.
    case parsedText(DataType)
    /// `bytes` with the `decimal` logical type: a big-endian two's-complement unscaled value.
    case decimalBytes(AvroDecimalTarget)
    case fixedBinary(size: Int)
    case fixedDecimal(size: Int, AvroDecimalTarget)
    /// A 16-byte `fixed` with the `uuid` logical type, into `varchar` as text.
    case fixedUUID
    /// `enum` into `varchar`: the symbols' UTF-8 by index.
    case enumeration([[UInt8]])
    /// `["null", T]` or `[T, "null"]`: the null branch's index and T's step.
    indirect case optional(nullIndex: Int64, AvroReadStep)
    indirect case union([AvroReadStep])
    /// A `record` into a struct column.
    indirect case record(AvroRecordProgram)
    /// An `array` into a list column; each item takes at least `itemSize` bytes.
    indirect case list(AvroReadStep, itemSize: Int)
    /// A union branch its column cannot take: the row fails when the branch is chosen.
    case failure(String)
}

enum AvroIntegerTarget {
    case int16
    /// `integer`, or `date` (days).
    case int32
    /// `bigint`, or a time or timestamp column, the value multiplied into microseconds.
    case int64(multiplier: Int64)
    case float32
    case float64
    case decimal(AvroDecimalTarget)
    case text
}

enum AvroFloatTarget {
    case float32
    case float64
    case decimal(AvroDecimalTarget)
}

/// A `numeric` column's constraint, and the Avro value's own scale.
struct AvroDecimalTarget {
    var avroScale: Int16
    var precision: Int?
    var scale: Int?
}

/// What is done with one writer field: read into the builder `target`, or stepped over when no
/// column takes it.
enum AvroFieldAction {
    case read(AvroReadStep, target: Int)
    case skip(AvroSkip)
}

/// A record's program: its writer fields in order, then the builders no field fills.
struct AvroRecordProgram {
    struct Unset {
        var target: Int
        /// The reader's default, or NULL.
        var value: Value
    }

    var fields: [AvroFieldAction]
    var unset: [Unset]
}

/// How a value no column takes is stepped over.
indirect enum AvroSkip {
    case nothing
    case boolean
    case varint
    case fixed(Int)
    /// `bytes` and `string`: a length, then that many bytes.
    case lengthPrefixed
    case union([AvroSkip])
    case record([AvroSkip])
    case array(AvroSkip, itemSize: Int)
    /// Map entries: a string key, then the value.
    case map(AvroSkip, itemSize: Int)
}

/// A position in one message's Avro bytes, with the checked reads of the binary encoding
/// (Avro specification, "Binary Encoding").
struct AvroCursor {
    let bytes: UnsafeRawBufferPointer
    var position = 0
    /// Items of no encoded size (nulls, empty records) still allowed: their count cannot be
    /// checked against the bytes left, so it is bounded per message.
    var zeroSizeItems = 1 << 16

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { position >= bytes.count }
    var remaining: Int { bytes.count - position }

    func corrupt(_ problem: String) -> AvroDecodeError {
        AvroDecodeError("invalid Avro record at byte \(position): \(problem)")
    }

    /// A zig-zag varint `long`; one byte without a loop, the common case.
    @inline(__always)
    mutating func long() throws(AvroDecodeError) -> Int64 {
        guard position < bytes.count else { throw corrupt("a number runs past the end") }
        let first = bytes[position]
        if first & 0x80 == 0 {
            position += 1
            return Int64(first >> 1) ^ -Int64(first & 1)
        }
        return try longOfManyBytes()
    }

    private mutating func longOfManyBytes() throws(AvroDecodeError) -> Int64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw corrupt("a number runs past the end") }
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 { throw corrupt("a varint longer than a long") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        return Int64(bitPattern: result >> 1) ^ -Int64(bitPattern: result & 1)
    }

    /// A non-negative length that fits what remains.
    @inline(__always)
    mutating func length() throws(AvroDecodeError) -> Int {
        let length = try long()
        guard length >= 0 else { throw corrupt("a negative length \(length)") }
        guard length <= Int64(remaining) else { throw corrupt("a length of \(length) bytes with \(remaining) left") }
        return Int(length)
    }

    @inline(__always)
    mutating func take(_ count: Int) throws(AvroDecodeError) -> UnsafeRawBufferPointer {
        guard count <= remaining else { throw corrupt("\(count) bytes wanted with \(remaining) left") }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[position ..< position + count])
        position += count
        return slice
    }

    @inline(__always)
    mutating func boolean() throws(AvroDecodeError) -> Bool {
        guard position < bytes.count else { throw corrupt("a boolean runs past the end") }
        let byte = bytes[position]
        guard byte <= 1 else { throw corrupt("a boolean byte \(byte)") }
        position += 1
        return byte == 1
    }

    @inline(__always)
    mutating func littleEndian(_ count: Int) throws(AvroDecodeError) -> UInt64 {
        guard count <= remaining else { throw corrupt("a number runs past the end") }
        var value: UInt64 = 0
        for index in 0 ..< count { value |= UInt64(bytes[position + index]) << (8 * index) }
        position += count
        return value
    }

    /// The item count of the next block of an array or map, 0 at the end. Checked against the
    /// bytes left (each item takes at least `itemSize`), or for items of no size against
    /// ``zeroSizeItems``, before any item is read.
    mutating func blockCount(itemSize: Int) throws(AvroDecodeError) -> Int {
        var count = try long()
        if count == 0 { return 0 }
        if count < 0 {
            // A negative count is followed by the block's size in bytes.
            guard count != Int64.min else { throw corrupt("a block count out of range") }
            count = -count
            _ = try length()
        }
        if itemSize > 0 {
            guard count <= Int64(remaining / itemSize) else { throw corrupt("a block of \(count) items with \(remaining) bytes left") }
        } else {
            guard count <= Int64(zeroSizeItems) else { throw corrupt("too many items of no size") }
            zeroSizeItems -= Int(count)
        }
        return Int(count)
    }
}

/// Runs ``AvroRecordProgram``s over a cursor, into builders.
enum AvroProgramRunner {
    /// How deeply records and arrays may nest in a message.
    static let maximumDepth = 64
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func record(_ program: AvroRecordProgram, _ cursor: inout AvroCursor, into builders: inout [ColumnBuilder], depth: Int) throws(AvroDecodeError) {
        guard depth < maximumDepth else { throw cursor.corrupt("values nest deeper than \(maximumDepth) levels") }
        for field in program.fields {
            switch field {
            case .read(let step, let target): try read(step, &cursor, into: &builders[target], depth: depth + 1)
            case .skip(let skip): try Self.skip(skip, &cursor, depth: depth + 1)
            }
        }
        for unset in program.unset { builders[unset.target].append(unset.value) }
    }

    static func read(_ step: AvroReadStep, _ cursor: inout AvroCursor, into builder: inout ColumnBuilder, depth: Int) throws(AvroDecodeError) {
        switch step {
        case .null:
            builder.appendNull()
        case .boolean:
            builder.append(bool: try cursor.boolean())
        case .integer(let target):
            try integer(try cursor.long(), target, &cursor, into: &builder)
        case .float(let target):
            try floatingPoint(Double(Float(bitPattern: UInt32(truncatingIfNeeded: try cursor.littleEndian(4)))), target, &cursor, into: &builder)
        case .double(let target):
            try floatingPoint(Double(bitPattern: try cursor.littleEndian(8)), target, &cursor, into: &builder)
        case .text:
            let bytes = try cursor.take(try cursor.length())
            guard isValidUTF8(bytes) else { throw cursor.corrupt("a string that is not valid UTF-8") }
            builder.append(bytes: bytes)
        case .binary:
            builder.append(bytes: try cursor.take(try cursor.length()))
        case .json:
            let bytes = try cursor.take(try cursor.length())
            guard isValidUTF8(bytes) else { throw cursor.corrupt("a string that is not valid UTF-8") }
            do throws(SluiceError) {
                builder.append(.jsonb(try JSONText.normalize(String(decoding: bytes, as: UTF8.self))))
            } catch {
                throw cursor.corrupt("a jsonb column's string: \(error.message)")
            }
        case .parsedText(let type):
            let bytes = try cursor.take(try cursor.length())
            guard let text = String(validating: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) else {
                throw cursor.corrupt("a string that is not valid UTF-8")
            }
            do throws(SluiceError) {
                builder.append(try Value(parsingText: text, as: type))
            } catch {
                throw AvroDecodeError("\(error.message)")
            }
        case .decimalBytes(let target):
            try decimal(try cursor.take(try cursor.length()), target, &cursor, into: &builder)
        case .fixedBinary(let size):
            builder.append(bytes: try cursor.take(size))
        case .fixedDecimal(let size, let target):
            try decimal(try cursor.take(size), target, &cursor, into: &builder)
        case .fixedUUID:
            let bytes = try cursor.take(16)
            // 8-4-4-4-12 hex digits, written on the stack.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { text in
                var length = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[length] = UInt8(ascii: "-")
                        length += 1
                    }
                    text[length] = hexDigits[Int(byte >> 4)]
                    text[length + 1] = hexDigits[Int(byte & 0xF)]
                    length += 2
                }
                builder.append(bytes: UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: text[..<length])))
            }
        case .enumeration(let symbols):
            let index = try cursor.long()
            guard index >= 0, index < Int64(symbols.count) else { throw cursor.corrupt("enum index \(index) of \(symbols.count) symbols") }
            symbols[Int(index)].withUnsafeBytes { builder.append(bytes: $0) }
        case .optional(let nullIndex, let inner):
            let index = try cursor.long()
            if index == nullIndex {
                builder.appendNull()
            } else if index == 1 - nullIndex {
                try read(inner, &cursor, into: &builder, depth: depth)
            } else {
                throw cursor.corrupt("union branch \(index) of 2")
            }
        case .union(let branches):
            let index = try cursor.long()
            guard index >= 0, index < Int64(branches.count) else { throw cursor.corrupt("union branch \(index) of \(branches.count)") }
            try read(branches[Int(index)], &cursor, into: &builder, depth: depth)
        case .record(let program):
            try record(program, &cursor, into: &builder.children, depth: depth)
            builder.appendStructRow()
        case .list(let element, let itemSize):
            guard depth < maximumDepth else { throw cursor.corrupt("values nest deeper than \(maximumDepth) levels") }
            while true {
                let count = try cursor.blockCount(itemSize: itemSize)
                if count == 0 { break }
                for _ in 0 ..< count { try read(element, &cursor, into: &builder.children[0], depth: depth + 1) }
            }
            builder.appendListRow()
        case .failure(let problem):
            throw AvroDecodeError(problem)
        }
    }

    private static func integer(_ value: Int64, _ target: AvroIntegerTarget, _ cursor: inout AvroCursor, into builder: inout ColumnBuilder) throws(AvroDecodeError) {
        switch target {
        case .int16:
            guard let narrow = Int16(exactly: value) else { throw AvroDecodeError("\(value) is out of range for smallint") }
            builder.append(int16: narrow)
        case .int32:
            guard let narrow = Int32(exactly: value) else { throw AvroDecodeError("\(value) is out of range for integer") }
            builder.append(int32: narrow)
        case .int64(let multiplier):
            if multiplier == 1 {
                builder.append(int64: value)
            } else {
                let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
                guard !overflow else { throw AvroDecodeError("\(value) is out of range for a timestamp") }
                builder.append(int64: product)
            }
        case .float32: builder.append(float: Float(value))
        case .float64: builder.append(double: Double(value))
        case .decimal(let target): try appendDecimal(Decimal(value), target, into: &builder)
        case .text:
            var text = String(value)
            text.withUTF8 { builder.append(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    private static func floatingPoint(
        _ value: Double, _ target: AvroFloatTarget, _ cursor: inout AvroCursor, into builder: inout ColumnBuilder
    ) throws(AvroDecodeError) {
        switch target {
        case .float32: builder.append(float: Float(value))
        case .float64: builder.append(double: value)
        case .decimal(let target):
            let decimal: Decimal
            do throws(SluiceError) {
                decimal = try Decimal(value)
            } catch {
                throw AvroDecodeError(error.message)
            }
            try appendDecimal(decimal, target, into: &builder)
        }
    }

    /// A big-endian two's-complement unscaled value (Avro's `decimal`), at most 16 bytes
    /// beyond its sign extension.
    private static func decimal(
        _ bytes: UnsafeRawBufferPointer, _ target: AvroDecimalTarget, _ cursor: inout AvroCursor, into builder: inout ColumnBuilder
    ) throws(AvroDecodeError) {
        guard !bytes.isEmpty else { throw cursor.corrupt("a decimal of no bytes") }
        let negative = bytes[0] & 0x80 != 0
        var start = 0
        // Leading sign-extension bytes carry nothing.
        while bytes.count - start > 16 && bytes[start] == (negative ? 0xFF : 0) { start += 1 }
        guard bytes.count - start <= 16 else { throw AvroDecodeError("a decimal of \(bytes.count) bytes is out of range for numeric") }
        var magnitude: UInt128 = negative ? ~0 : 0
        for index in start ..< bytes.count { magnitude = magnitude << 8 | UInt128(bytes[index]) }
        try appendDecimal(Decimal(mantissa: Int128(bitPattern: magnitude), scale: target.avroScale), target, into: &builder)
    }

    private static func appendDecimal(_ value: Decimal, _ target: AvroDecimalTarget, into builder: inout ColumnBuilder) throws(AvroDecodeError) {
        guard let precision = target.precision else {
            builder.append(decimal: value)
            return
        }
        do throws(SluiceError) {
            builder.append(decimal: try value.coerced(precision: precision, scale: target.scale ?? 0))
        } catch {
            throw AvroDecodeError(error.message)
        }
    }

    static func skip(_ skip: AvroSkip, _ cursor: inout AvroCursor, depth: Int) throws(AvroDecodeError) {
        switch skip {
        case .nothing: return
        case .boolean: _ = try cursor.boolean()
        case .varint: _ = try cursor.long()
        case .fixed(let size): _ = try cursor.take(size)
        case .lengthPrefixed: _ = try cursor.take(try cursor.length())
        case .union(let branches):
            let index = try cursor.long()
            guard index >= 0, index < Int64(branches.count) else { throw cursor.corrupt("union branch \(index) of \(branches.count)") }
            try Self.skip(branches[Int(index)], &cursor, depth: depth)
        case .record(let fields):
            guard depth < maximumDepth else { throw cursor.corrupt("values nest deeper than \(maximumDepth) levels") }
            for field in fields { try Self.skip(field, &cursor, depth: depth + 1) }
        case .array(let items, let itemSize):
            guard depth < maximumDepth else { throw cursor.corrupt("values nest deeper than \(maximumDepth) levels") }
            while true {
                let count = try cursor.blockCount(itemSize: itemSize)
                if count == 0 { return }
                for _ in 0 ..< count { try Self.skip(items, &cursor, depth: depth + 1) }
            }
        case .map(let values, let itemSize):
            guard depth < maximumDepth else { throw cursor.corrupt("values nest deeper than \(maximumDepth) levels") }
            while true {
                let count = try cursor.blockCount(itemSize: itemSize)
                if count == 0 { return }
                for _ in 0 ..< count {
                    _ = try cursor.take(try cursor.length())
                    try Self.skip(values, &cursor, depth: depth + 1)
                }
            }
        }
    }

    /// Whether `bytes` are UTF-8: ASCII a word at a time, the rest by the standard library.
    @inline(__always)
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            if bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return validUTF8Slowly(bytes) }
            index += 8
        }
        while index < count {
            if bytes[index] & 0x80 != 0 { return validUTF8Slowly(bytes) }
            index += 1
        }
        return true
    }

    private static func validUTF8Slowly(_ bytes: UnsafeRawBufferPointer) -> Bool {
        String(validating: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) != nil
    }
}
