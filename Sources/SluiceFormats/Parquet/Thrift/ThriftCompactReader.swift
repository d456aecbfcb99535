import SluiceCore

/// The Thrift compact protocol's decoder for Parquet's metadata: reads the fields it is asked
/// for and skips the rest, so metadata written by newer writers still reads.
///
/// Hostile input: every read checks the bytes that remain, lengths are checked against them
/// before anything is allocated, and nesting deeper than ``maximumDepth`` is refused, so no
/// input traps, hangs or allocates without bound.
struct ThriftCompactReader {
    /// Structs, lists and maps nested deeper than this are refused; Parquet's deepest is 5.
    static let maximumDepth = 32

    private let bytes: [UInt8]
    private(set) var position: Int
    private let end: Int
    private var depth = 0
    private var lastFieldID: Int16 = 0

    init(_ bytes: [UInt8], from start: Int = 0) {
        self.bytes = bytes
        self.position = start
        self.end = bytes.count
    }

    /// The error for malformed metadata.
    static func corrupt(_ what: String) -> SluiceError {
        SluiceError(.dataCorrupted, "invalid parquet metadata: \(what)")
    }

    /// Reads a struct: calls `field` with each field's id and type (the reader positioned on its
    /// value, which `field` must read or ``skip(_:)``) until the stop byte.
    mutating func readStruct(
        _ field: (inout ThriftCompactReader, Int16, ThriftCompactType) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        try enter()
        let saved = lastFieldID
        lastFieldID = 0
        while true {
            let header = try readByte()
            if header == 0 { break }
            guard let type = ThriftCompactType(rawValue: header & 0x0F) else { throw Self.corrupt("field type \(header & 0x0F)") }
            let delta = header >> 4
            let id: Int16
            if delta == 0 {
                let raw = try readZigzag()
                guard let narrow = Int16(exactly: raw) else { throw Self.corrupt("field id \(raw)") }
                id = narrow
            } else {
                id = lastFieldID &+ Int16(delta)
            }
            lastFieldID = id
            try field(&self, id, type)
        }
        lastFieldID = saved
        depth -= 1
    }

    private mutating func enter() throws(SluiceError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw Self.corrupt("nesting deeper than \(Self.maximumDepth)") }
    }

    mutating func readByte() throws(SluiceError) -> UInt8 {
        guard position < end else { throw Self.corrupt("unexpected end") }
        let byte = bytes[position]
        position += 1
        return byte
    }

    mutating func readVarint() throws(SluiceError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try readByte()
            guard shift < 64 else { throw Self.corrupt("varint too long") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    private mutating func readZigzag() throws(SluiceError) -> Int64 {
        let raw = try readVarint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// An i8, i16, i32 or i64 value, checked against the type the field was written with.
    mutating func readInteger(_ type: ThriftCompactType) throws(SluiceError) -> Int64 {
        switch type {
        case .byte: return Int64(Int8(bitPattern: try readByte()))
        case .i16, .i32, .i64: return try readZigzag()
        default: throw Self.corrupt("expected an integer, found type \(type.rawValue)")
        }
    }

    mutating func readI32(_ type: ThriftCompactType) throws(SluiceError) -> Int32 {
        let value = try readInteger(type)
        guard let narrow = Int32(exactly: value) else { throw Self.corrupt("i32 value \(value) out of range") }
        return narrow
    }

    /// A boolean field's value, which its header carries.
    func readBool(_ type: ThriftCompactType) throws(SluiceError) -> Bool {
        switch type {
        case .booleanTrue: return true
        case .booleanFalse: return false
        default: throw Self.corrupt("expected a boolean, found type \(type.rawValue)")
        }
    }

    mutating func readBinary(_ type: ThriftCompactType) throws(SluiceError) -> [UInt8] {
        guard type == .binary else { throw Self.corrupt("expected a binary, found type \(type.rawValue)") }
        let length = try readVarint()
        guard length <= UInt64(end - position) else { throw Self.corrupt("binary of \(length) bytes past the end") }
        let start = position
        position += Int(length)
        return Array(bytes[start ..< position])
    }

    mutating func readString(_ type: ThriftCompactType) throws(SluiceError) -> String {
        String(decoding: try readBinary(type), as: UTF8.self)
    }

    /// A list header: its element type and count (checked against the bytes left: every element
    /// takes at least one byte, except booleans folded … which also take one).
    mutating func readListHeader(_ type: ThriftCompactType) throws(SluiceError) -> (ThriftCompactType, Int) {
        guard type == .list || type == .set else { throw Self.corrupt("expected a list, found type \(type.rawValue)") }
        let header = try readByte()
        guard let elementType = ThriftCompactType(rawValue: header & 0x0F) else { throw Self.corrupt("list element type \(header & 0x0F)") }
        var count = UInt64(header >> 4)
        if count == 15 { count = try readVarint() }
        guard count <= UInt64(end - position) else { throw Self.corrupt("list of \(count) elements past the end") }
        return (elementType, Int(count))
    }

    /// Reads a list of elements with `element`, refusing more than the bytes could hold.
    mutating func readList<Element>(
        _ type: ThriftCompactType,
        _ element: (inout ThriftCompactReader, ThriftCompactType) throws(SluiceError) -> Element
    ) throws(SluiceError) -> [Element] {
        let (elementType, count) = try readListHeader(type)
        try enter()
        var result: [Element] = []
        result.reserveCapacity(count)
        for _ in 0 ..< count { result.append(try element(&self, elementType)) }
        depth -= 1
        return result
    }

    /// Skips a value of `type`, nested values included.
    mutating func skip(_ type: ThriftCompactType) throws(SluiceError) {
        switch type {
        case .stop: throw Self.corrupt("unexpected stop")
        case .booleanTrue, .booleanFalse: return
        case .byte: _ = try readByte()
        case .i16, .i32, .i64: _ = try readVarint()
        case .double:
            guard end - position >= 8 else { throw Self.corrupt("unexpected end") }
            position += 8
        case .binary:
            let length = try readVarint()
            guard length <= UInt64(end - position) else { throw Self.corrupt("binary past the end") }
            position += Int(length)
        case .list, .set:
            let (elementType, count) = try readListHeader(type)
            try enter()
            for _ in 0 ..< count { try skipElement(elementType) }
            depth -= 1
        case .map:
            let count = try readVarint()
            guard count > 0 else { return }
            guard count <= UInt64(end - position) else { throw Self.corrupt("map past the end") }
            let types = try readByte()
            guard let keyType = ThriftCompactType(rawValue: types >> 4), let valueType = ThriftCompactType(rawValue: types & 0x0F) else {
                throw Self.corrupt("map types \(types)")
            }
            try enter()
            for _ in 0 ..< count {
                try skipElement(keyType)
                try skipElement(valueType)
            }
            depth -= 1
        case .structure:
            try readStruct { (reader, _, fieldType) throws(SluiceError) in try reader.skip(fieldType) }
        }
    }

    /// Skips a container element: booleans there take a byte of their own.
    private mutating func skipElement(_ type: ThriftCompactType) throws(SluiceError) {
        if type == .booleanTrue || type == .booleanFalse {
            _ = try readByte()
        } else {
            try skip(type)
        }
    }
}
