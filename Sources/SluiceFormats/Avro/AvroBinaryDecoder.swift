import SluiceCore

/// Reads Avro's binary encoding from bytes that may be hostile: every length and count is
/// checked against the bytes that remain before anything is allocated for it, recursion is
/// bounded, and every failure is a `dataCorrupted` error.
package struct AvroBinaryDecoder {
    package let bytes: [UInt8]
    /// The next byte to read.
    package private(set) var position: Int
    /// Where the readable bytes end.
    package let end: Int
    /// What resolves recursive references of the schemas decoded.
    let namedTypes: [String: AvroSchema]
    /// The minimum encoded sizes of the named types met so far.
    private var sizeCache: [String: Int] = [:]
    /// How many more values (nodes of the value tree) may be decoded. Values of no encoded
    /// size (nulls, empty records) cost no input, so a schema that names a record of nulls
    /// twice in a record, twice again, and so on, could otherwise make a few bytes decode to
    /// billions of values; the budget is proportional to the input.
    private var nodeBudget: Int

    /// How deeply values may nest (records in records, arrays of arrays): bounds the recursion
    /// of a recursive schema on hostile input.
    package static let maximumDepth = 256
    /// The most items of zero encoded size (nulls, empty records) one array or map block may
    /// declare: a count of such items cannot be checked against the bytes that remain.
    package static let maximumZeroSizeItems = 1 << 16

    package init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil, namedTypes: [String: AvroSchema] = [:]) {
        self.bytes = bytes
        self.end = min(end ?? bytes.count, bytes.count)
        self.position = max(0, min(start, self.end))
        self.namedTypes = namedTypes
        nodeBudget = max(1 << 20, 8 * (self.end - self.position))
    }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { position >= end }

    /// How many bytes remain.
    package var remaining: Int { end - position }

    func corrupt(_ problem: String) -> SluiceError {
        SluiceError(.dataCorrupted, "invalid Avro data: \(problem)", detail: "At byte \(position).")
    }

    /// A zig-zag varint `long`: at most 10 bytes, the tenth holding only the top bit.
    package mutating func readLong() throws(SluiceError) -> Int64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw corrupt("a number runs past the end of the data") }
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 { throw corrupt("a varint is longer than a long") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        return Int64(bitPattern: result >> 1) ^ -Int64(bitPattern: result & 1)
    }

    /// An `int`: a `long` that must fit 32 bits.
    package mutating func readInt() throws(SluiceError) -> Int32 {
        let value = try readLong()
        guard let int = Int32(exactly: value) else { throw corrupt("\(value) is out of range for an int") }
        return int
    }

    /// A non-negative length that fits what remains.
    package mutating func readLength() throws(SluiceError) -> Int {
        let length = try readLong()
        guard length >= 0 else { throw corrupt("a negative length \(length)") }
        guard length <= Int64(remaining) else { throw corrupt("a length of \(length) bytes with \(remaining) left") }
        return Int(length)
    }

    /// `count` raw bytes.
    package mutating func readRaw(_ count: Int) throws(SluiceError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw corrupt("\(count) bytes wanted with \(remaining) left") }
        let slice = Array(bytes[position ..< position + count])
        position += count
        return slice
    }

    package mutating func readBytes() throws(SluiceError) -> [UInt8] {
        try readRaw(try readLength())
    }

    package mutating func readString() throws(SluiceError) -> String {
        let length = try readLength()
        guard let text = String(validating: bytes[position ..< position + length], as: UTF8.self) else {
            throw corrupt("a string is not valid UTF-8")
        }
        position += length
        return text
    }

    private mutating func readLittleEndian(_ count: Int) throws(SluiceError) -> UInt64 {
        guard count <= remaining else { throw corrupt("a number runs past the end of the data") }
        var value: UInt64 = 0
        for index in 0 ..< count { value |= UInt64(bytes[position + index]) << (8 * index) }
        position += count
        return value
    }

    package mutating func readFloat() throws(SluiceError) -> Float {
        Float(bitPattern: UInt32(truncatingIfNeeded: try readLittleEndian(4)))
    }

    package mutating func readDouble() throws(SluiceError) -> Double {
        Double(bitPattern: try readLittleEndian(8))
    }

    /// One value encoded per `schema`.
    package mutating func decode(_ schema: AvroSchema) throws(SluiceError) -> AvroValue {
        try decode(schema, depth: 0)
    }

    private mutating func decode(_ schema: AvroSchema, depth: Int) throws(SluiceError) -> AvroValue {
        guard depth < AvroBinaryDecoder.maximumDepth else { throw corrupt("values nest deeper than \(AvroBinaryDecoder.maximumDepth) levels") }
        guard nodeBudget > 0 else { throw corrupt("more values than the data can hold") }
        nodeBudget -= 1
        switch schema.kind {
        case .null: return .null
        case .boolean:
            guard position < end else { throw corrupt("a boolean runs past the end of the data") }
            let byte = bytes[position]
            guard byte <= 1 else { throw corrupt("a boolean byte \(byte)") }
            position += 1
            return .boolean(byte == 1)
        case .int: return .int(try readInt())
        case .long: return .long(try readLong())
        case .float: return .float(try readFloat())
        case .double: return .double(try readDouble())
        case .bytes: return .bytes(try readBytes())
        case .string: return .string(try readString())
        case .fixed(_, let size): return .fixed(try readRaw(size))
        case .enumeration(_, let symbols):
            let index = try readLong()
            guard index >= 0, index < Int64(symbols.count) else { throw corrupt("enum index \(index) of \(symbols.count) symbols") }
            return .enumeration(symbols[Int(index)])
        case .array(let items):
            var elements: [AvroValue] = []
            let itemSize = items.minimumEncodedSize(cache: &sizeCache)
            var zeroSizeItems = 0
            while true {
                let count = try readBlockCount(itemSize: itemSize, zeroSizeItems: &zeroSizeItems)
                if count == 0 { return .array(elements) }
                elements.reserveCapacity(elements.count + count)
                for _ in 0 ..< count { elements.append(try decode(items, depth: depth + 1)) }
            }
        case .map(let values):
            var entries: [String: AvroValue] = [:]
            // Each entry holds at least its key's length byte.
            let itemSize = 1 + values.minimumEncodedSize(cache: &sizeCache)
            var zeroSizeItems = 0
            while true {
                let count = try readBlockCount(itemSize: itemSize, zeroSizeItems: &zeroSizeItems)
                if count == 0 { return .map(entries) }
                for _ in 0 ..< count {
                    let key = try readString()
                    entries[key] = try decode(values, depth: depth + 1)
                }
            }
        case .record(_, let fields):
            var values: [AvroValue] = []
            values.reserveCapacity(fields.count)
            for field in fields { values.append(try decode(field.type, depth: depth + 1)) }
            return .record(values)
        case .union(let branches):
            let index = try readLong()
            guard index >= 0, index < Int64(branches.count) else { throw corrupt("union branch \(index) of \(branches.count)") }
            return try decode(branches[Int(index)], depth: depth + 1)
        case .reference(let name):
            guard let definition = namedTypes[name] else { throw corrupt("type \"\(name)\" is not defined") }
            return try decode(definition, depth: depth + 1)
        }
    }

    /// The item count of the next block of an array or map, 0 at the end marker. The count is
    /// checked against the bytes that remain (each item takes at least `itemSize` bytes), or for
    /// items of no size against ``maximumZeroSizeItems``, before anything is allocated for it.
    private mutating func readBlockCount(itemSize: Int, zeroSizeItems: inout Int) throws(SluiceError) -> Int {
        var count = try readLong()
        if count == 0 { return 0 }
        if count < 0 {
            // A negative count is followed by the block's size in bytes.
            guard count != Int64.min else { throw corrupt("a block count out of range") }
            count = -count
            _ = try readLength()
        }
        if itemSize > 0 {
            guard count <= Int64(remaining / itemSize) else { throw corrupt("a block of \(count) items with \(remaining) bytes left") }
        } else {
            guard count <= Int64(AvroBinaryDecoder.maximumZeroSizeItems - zeroSizeItems) else {
                throw corrupt("more than \(AvroBinaryDecoder.maximumZeroSizeItems) items of no size")
            }
            zeroSizeItems += Int(count)
        }
        return Int(count)
    }

    /// Moves past `count` bytes.
    package mutating func skip(_ count: Int) throws(SluiceError) {
        guard count >= 0, count <= remaining else { throw corrupt("\(count) bytes to skip with \(remaining) left") }
        position += count
    }
}

extension AvroSchema {
    /// The fewest bytes a value of this schema encodes to: what bounds a declared item count by
    /// the bytes that remain. Named records are computed once and kept in `cache` (a schema may
    /// use one record many times); a recursive reference counts as nothing, a safe underestimate.
    func minimumEncodedSize(cache: inout [String: Int]) -> Int {
        switch kind {
        case .null, .reference: return 0
        case .boolean, .int, .long, .bytes, .string, .enumeration, .array, .map, .union: return 1
        case .float: return 4
        case .double: return 8
        case .fixed(_, let size): return size
        case .record(let name, let fields):
            if let known = cache[name] { return known }
            cache[name] = 0
            var total = 0
            // Saturates far below overflow: only comparisons with byte counts use it.
            for field in fields { total = min(total + field.type.minimumEncodedSize(cache: &cache), 1 << 40) }
            cache[name] = total
            return total
        }
    }
}
