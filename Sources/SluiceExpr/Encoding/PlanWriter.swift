import SluiceCore

/// A value that a stored plan holds: written with ``PlanWriter`` and read back with
/// ``PlanReader``, field by field in a fixed order (no names, no padding).
///
/// Reading what was written gives an equal value; reading any other bytes throws, never traps.
package protocol PlanCodable {
    /// Appends the value's fields to `writer`. Throws where the value cannot be stored (a
    /// function that has no ``FunctionOrigin``).
    func encode(into writer: inout PlanWriter) throws(SluiceError)
    /// Reads the fields ``encode(into:)`` wrote.
    init(from reader: inout PlanReader) throws(SluiceError)
}

/// Writes the bytes of a stored plan: unsigned LEB128 varints for counts and tags, zigzag
/// varints for signed integers, strings as a length and their UTF-8 bytes.
package struct PlanWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func write(byte: UInt8) {
        bytes.append(byte)
    }

    /// An unsigned LEB128 varint: seven bits a byte, low bits first, the high bit set on all
    /// bytes but the last.
    package mutating func write(unsigned value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed integer, zigzag-mapped so that small magnitudes take few bytes.
    package mutating func write(int64 value: Int64) {
        let zigzag = UInt64(bitPattern: value << 1) ^ UInt64(bitPattern: value >> 63)
        write(unsigned: zigzag)
    }

    package mutating func write(int value: Int) {
        write(int64: Int64(value))
    }

    package mutating func write(ints values: [Int]) {
        write(unsigned: UInt64(values.count))
        for value in values { write(int: value) }
    }

    /// A flag byte (0 for nil), then the integer.
    package mutating func write(optionalInt value: Int?) {
        write(bool: value != nil)
        if let value { write(int: value) }
    }

    package mutating func write(bool value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    package mutating func write(bools values: [Bool]) {
        write(unsigned: UInt64(values.count))
        for value in values { write(bool: value) }
    }

    package mutating func write(string value: String) {
        let utf8 = Array(value.utf8)
        write(unsigned: UInt64(utf8.count))
        bytes += utf8
    }

    package mutating func write(strings values: [String]) {
        write(unsigned: UInt64(values.count))
        for value in values { write(string: value) }
    }

    package mutating func write(raw values: [UInt8]) {
        write(unsigned: UInt64(values.count))
        bytes += values
    }

    package mutating func write(_ value: some PlanCodable) throws(SluiceError) {
        try value.encode(into: &self)
    }

    /// A count, then each value.
    package mutating func write(list values: [some PlanCodable]) throws(SluiceError) {
        write(unsigned: UInt64(values.count))
        for value in values { try value.encode(into: &self) }
    }

    /// A flag byte (0 for nil), then the value.
    package mutating func write(optional value: (some PlanCodable)?) throws(SluiceError) {
        write(bool: value != nil)
        if let value { try value.encode(into: &self) }
    }
}
