import SluiceCore

/// Avro's binary encoding (specification, "Binary Encoding"), appended to a byte buffer.
///
/// Arrays and maps are written as one block with a positive count followed by the end marker
/// 0, as the Java and Python writers do for values that are in memory.
package struct AvroBinaryEncoder: Sendable {
    package var bytes: [UInt8] = []

    package init() {}

    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Drops what was written after the first `count` bytes (undoes a failed `encode`).
    package mutating func truncate(to count: Int) {
        if count < bytes.count { bytes.removeLast(bytes.count - max(0, count)) }
    }

    /// A `long`: zig-zag, then base-128 varint, low groups first.
    package mutating func writeLong(_ value: Int64) {
        var zigZag = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while zigZag >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: zigZag) | 0x80)
            zigZag >>= 7
        }
        bytes.append(UInt8(zigZag))
    }

    /// An `int`: encoded as a `long` is.
    package mutating func writeInt(_ value: Int32) {
        writeLong(Int64(value))
    }

    /// A `float`: its IEEE 754 bits, little-endian.
    package mutating func writeFloat(_ value: Float) {
        appendLittleEndian(UInt64(value.bitPattern), count: 4)
    }

    /// A `double`: its IEEE 754 bits, little-endian.
    package mutating func writeDouble(_ value: Double) {
        appendLittleEndian(value.bitPattern, count: 8)
    }

    /// `bytes`: the length as a `long`, then the bytes.
    package mutating func writeBytes(_ value: [UInt8]) {
        writeLong(Int64(value.count))
        bytes.append(contentsOf: value)
    }

    /// `string`: the UTF-8 length as a `long`, then the UTF-8 bytes.
    package mutating func writeString(_ value: String) {
        var text = value
        text.withUTF8 { utf8 in
            writeLong(Int64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends raw bytes (a `fixed`, a sync marker).
    package mutating func writeRaw(_ value: [UInt8]) {
        bytes.append(contentsOf: value)
    }

    /// Appends raw bytes from memory the caller holds.
    package mutating func writeRaw(_ buffer: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: buffer)
    }

    private mutating func appendLittleEndian(_ value: UInt64, count: Int) {
        for index in 0 ..< count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    /// Appends `value` encoded per `schema`.
    ///
    /// - Parameter namedTypes: the definitions that resolve recursive references in `schema`
    ///   (``AvroSchema/namedTypes`` of the root schema); only needed for recursive schemas.
    /// - Throws: `datatypeMismatch` when the value does not fit the schema (a `.long` for an
    ///   `int`, a record with the wrong number of fields, a fixed of the wrong size, a value no
    ///   union branch takes).
    package mutating func encode(_ value: AvroValue, as schema: AvroSchema, namedTypes: [String: AvroSchema] = [:]) throws(SluiceError) {
        try encode(value, as: schema, namedTypes: namedTypes, path: "")
    }

    private mutating func encode(_ value: AvroValue, as schema: AvroSchema, namedTypes: [String: AvroSchema], path: String) throws(SluiceError) {
        switch (schema.kind, value) {
        case (.null, .null): break
        case (.boolean, .boolean(let flag)): bytes.append(flag ? 1 : 0)
        case (.int, .int(let integer)): writeInt(integer)
        case (.long, .long(let integer)): writeLong(integer)
        case (.float, .float(let number)): writeFloat(number)
        case (.double, .double(let number)): writeDouble(number)
        case (.bytes, .bytes(let data)): writeBytes(data)
        case (.string, .string(let text)): writeString(text)
        case (.fixed(_, let size), .fixed(let data)):
            guard data.count == size else { throw mismatch(value, schema, path, "\(data.count) bytes for a fixed of \(size)") }
            writeRaw(data)
        case (.enumeration(_, let symbols), .enumeration(let symbol)):
            guard let index = symbols.firstIndex(of: symbol) else { throw mismatch(value, schema, path, "no symbol \"\(symbol)\"") }
            writeLong(Int64(index))
        case (.array(let items), .array(let elements)):
            if !elements.isEmpty {
                writeLong(Int64(elements.count))
                for (index, element) in elements.enumerated() {
                    try encode(element, as: items, namedTypes: namedTypes, path: "\(path)[\(index)]")
                }
            }
            writeLong(0)
        case (.map(let values), .map(let entries)):
            if !entries.isEmpty {
                writeLong(Int64(entries.count))
                // Keys in order, so that the same map always gives the same bytes.
                for key in entries.keys.sorted() {
                    writeString(key)
                    if let entry = entries[key] { try encode(entry, as: values, namedTypes: namedTypes, path: "\(path)[\"\(key)\"]") }
                }
            }
            writeLong(0)
        case (.record(_, let fields), .record(let values)):
            guard fields.count == values.count else { throw mismatch(value, schema, path, "\(values.count) values for \(fields.count) fields") }
            for (field, fieldValue) in zip(fields, values) {
                try encode(fieldValue, as: field.type, namedTypes: namedTypes, path: path.isEmpty ? field.name : path + "." + field.name)
            }
        case (.union(let branches), _):
            guard let index = schema.branchIndex(for: value) else { throw mismatch(value, schema, path, "no union branch takes it") }
            writeLong(Int64(index))
            try encode(value, as: branches[index], namedTypes: namedTypes, path: path)
        case (.reference(let name), _):
            guard let definition = namedTypes[name] else {
                throw SluiceError.internalError("Avro type \"\(name)\" is referred to but not among the named types given")
            }
            try encode(value, as: definition, namedTypes: namedTypes, path: path)
        default:
            throw mismatch(value, schema, path, nil)
        }
    }

    private func mismatch(_ value: AvroValue, _ schema: AvroSchema, _ path: String, _ reason: String?) -> SluiceError {
        let place = path.isEmpty ? "" : " at \(path)"
        return SluiceError(
            .datatypeMismatch, "Avro value does not match its schema\(place)",
            detail: reason.map { "The value has \($0)." } ?? "A value of the wrong kind for \(schema.jsonText).")
    }
}
