/// The Thrift compact protocol's encoder, as much of it as Parquet's metadata needs
/// (apache/thrift `doc/specs/thrift-compact-protocol.md`): structs with delta-coded field
/// headers, zigzag varint integers, binaries, lists, and booleans folded into field headers.
///
/// Usage: `beginStruct()`, then fields (`write(i32:field:)`, …, `beginStructField(_:)` …
/// `endStruct()` for nested structs), then `endStruct()`.
struct ThriftCompactWriter {
    private(set) var bytes: [UInt8] = []
    /// The last field id written in the struct being written; saved across nested structs.
    private var lastFieldID: Int16 = 0
    private var savedFieldIDs: [Int16] = []

    init() {}

    /// Starts a struct (the top-level one, or a list element).
    mutating func beginStruct() {
        savedFieldIDs.append(lastFieldID)
        lastFieldID = 0
    }

    /// Ends a struct with its stop byte.
    mutating func endStruct() {
        bytes.append(0)
        lastFieldID = savedFieldIDs.popLast() ?? 0
    }

    /// A field header: the id as a delta in the high nibble when it fits, else in full.
    private mutating func fieldHeader(_ field: Int16, _ type: ThriftCompactType) {
        let delta = Int(field) - Int(lastFieldID)
        if delta > 0 && delta <= 15 {
            bytes.append(UInt8(delta) << 4 | type.rawValue)
        } else {
            bytes.append(type.rawValue)
            writeVarint(zigzag(Int64(field)))
        }
        lastFieldID = field
    }

    mutating func write(i32 value: Int32, field: Int16) {
        fieldHeader(field, .i32)
        writeVarint(zigzag(Int64(value)))
    }

    mutating func write(i64 value: Int64, field: Int16) {
        fieldHeader(field, .i64)
        writeVarint(zigzag(value))
    }

    mutating func write(i16 value: Int16, field: Int16) {
        fieldHeader(field, .i16)
        writeVarint(zigzag(Int64(value)))
    }

    mutating func write(byte value: Int8, field: Int16) {
        fieldHeader(field, .byte)
        bytes.append(UInt8(bitPattern: value))
    }

    /// A boolean field: its value is the header's type nibble (1 true, 2 false).
    mutating func write(bool value: Bool, field: Int16) {
        fieldHeader(field, value ? .booleanTrue : .booleanFalse)
    }

    mutating func write(binary value: [UInt8], field: Int16) {
        fieldHeader(field, .binary)
        writeBinary(value)
    }

    mutating func write(string value: String, field: Int16) {
        write(binary: Array(value.utf8), field: field)
    }

    /// A struct-valued field: its header, then the struct's fields up to `endStruct()`.
    mutating func beginStructField(_ field: Int16) {
        fieldHeader(field, .structure)
        beginStruct()
    }

    /// A list-valued field's header; the caller writes `count` elements after it.
    mutating func beginListField(_ field: Int16, elementType: ThriftCompactType, count: Int) {
        fieldHeader(field, .list)
        if count < 15 {
            bytes.append(UInt8(count) << 4 | elementType.rawValue)
        } else {
            bytes.append(0xF0 | elementType.rawValue)
            writeVarint(UInt64(count))
        }
    }

    /// A list element of type i32.
    mutating func writeElement(i32 value: Int32) {
        writeVarint(zigzag(Int64(value)))
    }

    mutating func writeBinary(_ value: [UInt8]) {
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    private func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }
}

/// The type codes of the compact protocol (`thrift-compact-protocol.md`, "Struct encoding").
enum ThriftCompactType: UInt8 {
    case stop = 0
    case booleanTrue = 1
    case booleanFalse = 2
    case byte = 3
    case i16 = 4
    case i32 = 5
    case i64 = 6
    case double = 7
    case binary = 8
    case list = 9
    case set = 10
    case map = 11
    case structure = 12
}
