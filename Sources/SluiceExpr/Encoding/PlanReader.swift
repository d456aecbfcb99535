import SluiceCore

/// Reads the bytes ``PlanWriter`` wrote. Every read checks what is left and what it finds:
/// truncated or corrupted bytes throw `XX001` (data corrupted), never trap, and a count never
/// asks for more elements than there are bytes left.
package struct PlanReader {
    private let bytes: [UInt8]
    private var position = 0
    /// How deeply nested the values being read are (expressions and plan nodes), bounded so
    /// that corrupted bytes cannot exhaust the stack.
    private var depth = 0

    /// The deepest nesting a stored plan may have.
    package static let maximumDepth = 400

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { position == bytes.count }

    /// The error for bytes that are not a stored plan.
    package static func corrupted(_ what: String) -> SluiceError {
        SluiceError(.dataCorrupted, "stored plan is corrupted: \(what)")
    }

    package mutating func readByte() throws(SluiceError) -> UInt8 {
        guard position < bytes.count else { throw Self.corrupted("it ends early") }
        let byte = bytes[position]
        position += 1
        return byte
    }

    package mutating func readUnsigned() throws(SluiceError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try readByte()
            let bits = UInt64(byte & 0x7F)
            // The tenth byte may only hold the top bit.
            guard shift < 63 || bits <= 1 else { throw Self.corrupted("a varint overflows") }
            value |= bits << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    package mutating func readInt64() throws(SluiceError) -> Int64 {
        let zigzag = try readUnsigned()
        return Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
    }

    package mutating func readInt() throws(SluiceError) -> Int {
        Int(try readInt64())
    }

    /// A signed integer that must fit `T`.
    package mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type) throws(SluiceError) -> T {
        let value = try readInt64()
        guard let narrow = T(exactly: value) else { throw Self.corrupted("\(value) does not fit \(T.self)") }
        return narrow
    }

    /// A non-negative integer (a column index, a count of rows).
    package mutating func readIndex() throws(SluiceError) -> Int {
        let value = try readInt()
        guard value >= 0 else { throw Self.corrupted("negative index \(value)") }
        return value
    }

    /// A count of elements that follow, each at least one byte long.
    package mutating func readCount() throws(SluiceError) -> Int {
        let count = try readUnsigned()
        guard count <= UInt64(bytes.count - position) else { throw Self.corrupted("a count of \(count) exceeds the bytes left") }
        return Int(count)
    }

    package mutating func readBool() throws(SluiceError) -> Bool {
        switch try readByte() {
        case 0: return false
        case 1: return true
        case let byte: throw Self.corrupted("flag byte \(byte)")
        }
    }

    package mutating func readInts() throws(SluiceError) -> [Int] {
        let count = try readCount()
        var values: [Int] = []
        values.reserveCapacity(count)
        for _ in 0 ..< count { values.append(try readInt()) }
        return values
    }

    /// Column indexes: non-negative integers.
    package mutating func readIndexes() throws(SluiceError) -> [Int] {
        let count = try readCount()
        var values: [Int] = []
        values.reserveCapacity(count)
        for _ in 0 ..< count { values.append(try readIndex()) }
        return values
    }

    package mutating func readOptionalInt() throws(SluiceError) -> Int? {
        try readBool() ? try readInt() : nil
    }

    package mutating func readBools() throws(SluiceError) -> [Bool] {
        let count = try readCount()
        var values: [Bool] = []
        values.reserveCapacity(count)
        for _ in 0 ..< count { values.append(try readBool()) }
        return values
    }

    package mutating func readRaw() throws(SluiceError) -> [UInt8] {
        let count = try readCount()
        let raw = Array(bytes[position ..< position + count])
        position += count
        return raw
    }

    package mutating func readString() throws(SluiceError) -> String {
        let raw = try readRaw()
        guard let string = String(validating: raw, as: UTF8.self) else { throw Self.corrupted("a string is not UTF-8") }
        return string
    }

    package mutating func readStrings() throws(SluiceError) -> [String] {
        let count = try readCount()
        var values: [String] = []
        values.reserveCapacity(count)
        for _ in 0 ..< count { values.append(try readString()) }
        return values
    }

    /// A string that must be the raw value of a case of `T`.
    package mutating func readCase<T: RawRepresentable<String>>(_ type: T.Type) throws(SluiceError) -> T {
        let raw = try readString()
        guard let value = T(rawValue: raw) else { throw Self.corrupted("unknown \(T.self) \"\(raw)\"") }
        return value
    }

    package mutating func read<T: PlanCodable>(_ type: T.Type) throws(SluiceError) -> T {
        try T(from: &self)
    }

    package mutating func readList<T: PlanCodable>(_ type: T.Type) throws(SluiceError) -> [T] {
        let count = try readCount()
        var values: [T] = []
        values.reserveCapacity(count)
        for _ in 0 ..< count { values.append(try T(from: &self)) }
        return values
    }

    package mutating func readOptional<T: PlanCodable>(_ type: T.Type) throws(SluiceError) -> T? {
        try readBool() ? try T(from: &self) : nil
    }

    /// Reads a nested value with `body`, one level deeper; throws past ``maximumDepth``.
    package mutating func nested<T>(_ body: (inout PlanReader) throws(SluiceError) -> T) throws(SluiceError) -> T {
        guard depth < Self.maximumDepth else { throw Self.corrupted("nesting deeper than \(Self.maximumDepth)") }
        depth += 1
        defer { depth -= 1 }
        return try body(&self)
    }
}
