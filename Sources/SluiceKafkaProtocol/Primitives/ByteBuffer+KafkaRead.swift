import NIOCore

// Kafka protocol guide, "Protocol Primitive Types"; compact forms and tagged fields: KIP-482.
//
// Every read either returns a value and moves the reader index past it, or throws
// `KafkaDecodingError`. A length prefix is checked against the bytes that are left before anything
// is allocated, so a lying length costs nothing. After a throw the reader index is unspecified;
// callers drop the buffer.
extension ByteBuffer {
    /// Reads a big-endian fixed-width integer (INT8 … INT64, UINT16, UINT32).
    package mutating func readKafkaInteger<Integer: FixedWidthInteger>(
        as: Integer.Type = Integer.self
    ) throws(KafkaDecodingError) -> Integer {
        guard let value = readInteger(endianness: .big, as: Integer.self) else {
            throw .truncated(needed: MemoryLayout<Integer>.size, remaining: readableBytes)
        }
        return value
    }

    /// Reads a BOOLEAN: one byte, anything but 0 is true (as the Java client reads it).
    package mutating func readKafkaBool() throws(KafkaDecodingError) -> Bool {
        try readKafkaInteger(as: UInt8.self) != 0
    }

    /// Reads a FLOAT64: an IEEE 754 double, big-endian.
    package mutating func readKafkaFloat64() throws(KafkaDecodingError) -> Double {
        Double(bitPattern: try readKafkaInteger(as: UInt64.self))
    }

    /// Reads a UUID: 16 bytes.
    package mutating func readKafkaUUID() throws(KafkaDecodingError) -> KafkaUUID {
        guard readableBytes >= 16 else { throw .truncated(needed: 16, remaining: readableBytes) }
        let high = try readKafkaInteger(as: UInt64.self)
        let low = try readKafkaInteger(as: UInt64.self)
        return KafkaUUID(mostSignificantBits: high, leastSignificantBits: low)
    }

    /// Reads an UNSIGNED_VARINT of at most 5 bytes.
    package mutating func readKafkaUnsignedVarint() throws(KafkaDecodingError) -> UInt32 {
        guard let value = readUnsignedVarint() else { throw .malformedVarint }
        return value
    }

    /// Reads a VARINT (zigzag, at most 10 bytes).
    package mutating func readKafkaVarint() throws(KafkaDecodingError) -> Int64 {
        guard let value = readVarint() else { throw .malformedVarint }
        return value
    }

    // MARK: Length prefixes

    /// Reads the length prefix of a string or bytes field: nil for null (-1, or 0 in compact form),
    /// else a length that fits in the bytes left.
    mutating func readKafkaDataLength(compact: Bool, wide: Bool) throws(KafkaDecodingError) -> Int? {
        let length: Int
        if compact {
            length = Int(try readKafkaUnsignedVarint()) - 1
        } else if wide {
            length = Int(try readKafkaInteger(as: Int32.self))
        } else {
            length = Int(try readKafkaInteger(as: Int16.self))
        }
        if length == -1 { return nil }
        guard length >= 0 else { throw .invalidLength(Int64(length)) }
        guard length <= readableBytes else { throw .truncated(needed: length, remaining: readableBytes) }
        return length
    }

    /// Reads the element count of an ARRAY (INT32) or COMPACT_ARRAY (UNSIGNED_VARINT N+1): nil for
    /// null. Every element takes at least one byte, so a count above the bytes left is a lie.
    mutating func readKafkaArrayCount(compact: Bool) throws(KafkaDecodingError) -> Int? {
        let count = compact ? Int(try readKafkaUnsignedVarint()) - 1 : Int(try readKafkaInteger(as: Int32.self))
        if count == -1 { return nil }
        guard count >= 0, count <= readableBytes else { throw .invalidLength(Int64(count)) }
        return count
    }

    // MARK: Strings

    /// Reads a STRING (INT16 length) or COMPACT_STRING (UNSIGNED_VARINT length + 1); null is an error.
    package mutating func readKafkaString(compact: Bool) throws(KafkaDecodingError) -> String {
        guard let string = try readKafkaNullableString(compact: compact) else { throw .unexpectedNull }
        return string
    }

    /// Reads a NULLABLE_STRING or COMPACT_NULLABLE_STRING. Invalid UTF-8 is repaired with U+FFFD,
    /// as the Java client decodes it.
    package mutating func readKafkaNullableString(compact: Bool) throws(KafkaDecodingError) -> String? {
        guard let length = try readKafkaDataLength(compact: compact, wide: false) else { return nil }
        // The Java client refuses compact strings longer than a STRING could carry, and so do we.
        guard length <= Int(Int16.max) else { throw .invalidLength(Int64(length)) }
        guard let string = readString(length: length) else {
            throw .truncated(needed: length, remaining: readableBytes)
        }
        return string
    }

    // MARK: Bytes

    /// Reads BYTES (INT32 length) or COMPACT_BYTES as a slice of this buffer (no copy); null is an
    /// error.
    package mutating func readKafkaBytes(compact: Bool) throws(KafkaDecodingError) -> ByteBuffer {
        guard let bytes = try readKafkaNullableBytes(compact: compact) else { throw .unexpectedNull }
        return bytes
    }

    /// Reads NULLABLE_BYTES, COMPACT_NULLABLE_BYTES, RECORDS or COMPACT_RECORDS as a slice of this
    /// buffer that shares its storage.
    ///
    /// - Complexity: O(1); the bytes are not copied.
    package mutating func readKafkaNullableBytes(compact: Bool) throws(KafkaDecodingError) -> ByteBuffer? {
        guard let length = try readKafkaDataLength(compact: compact, wide: true) else { return nil }
        guard let slice = readSlice(length: length) else {
            throw .truncated(needed: length, remaining: readableBytes)
        }
        return slice
    }

    // MARK: Arrays

    /// Reads an ARRAY or COMPACT_ARRAY whose elements `readElement` reads; null is an error.
    package mutating func readKafkaArray<Element>(
        compact: Bool,
        _ readElement: (inout ByteBuffer) throws(KafkaDecodingError) -> Element
    ) throws(KafkaDecodingError) -> [Element] {
        guard let elements = try readKafkaNullableArray(compact: compact, readElement) else {
            throw .unexpectedNull
        }
        return elements
    }

    /// Reads a nullable ARRAY or COMPACT_ARRAY whose elements `readElement` reads.
    package mutating func readKafkaNullableArray<Element>(
        compact: Bool,
        _ readElement: (inout ByteBuffer) throws(KafkaDecodingError) -> Element
    ) throws(KafkaDecodingError) -> [Element]? {
        guard let count = try readKafkaArrayCount(compact: compact) else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(count)
        for _ in 0 ..< count {
            elements.append(try readElement(&self))
        }
        return elements
    }

    /// Reads an array of INT32 (broker ids, partition indexes).
    package mutating func readKafkaInt32Array(compact: Bool) throws(KafkaDecodingError) -> [Int32] {
        try readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in try buffer.readKafkaInteger() }
    }

    /// Reads an array of non-nullable strings.
    package mutating func readKafkaStringArray(compact: Bool) throws(KafkaDecodingError) -> [String] {
        try readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in try buffer.readKafkaString(compact: compact) }
    }

    /// Reads a nullable array of non-nullable strings.
    package mutating func readKafkaNullableStringArray(compact: Bool) throws(KafkaDecodingError) -> [String]? {
        try readKafkaNullableArray(compact: compact) { buffer throws(KafkaDecodingError) in
            try buffer.readKafkaString(compact: compact)
        }
    }

    // MARK: Tagged fields

    /// Reads a tagged-field section (KIP-482): UNSIGNED_VARINT count, then per field its tag, its
    /// size and its bytes. `readField` gets each field's tag and a slice of exactly its bytes; it
    /// reads the tags it knows and ignores the others, which are skipped.
    package mutating func readKafkaTaggedFields(
        _ readField: (_ tag: UInt32, _ field: inout ByteBuffer) throws(KafkaDecodingError) -> Void
    ) throws(KafkaDecodingError) {
        let count = Int(try readKafkaUnsignedVarint())
        // A field takes at least two bytes (tag and size).
        guard count <= readableBytes / 2 else { throw .invalidLength(Int64(count)) }
        for _ in 0 ..< count {
            let tag = try readKafkaUnsignedVarint()
            let size = Int(try readKafkaUnsignedVarint())
            guard var field = readSlice(length: size) else { throw .truncated(needed: size, remaining: readableBytes) }
            try readField(tag, &field)
        }
    }

    /// Reads a tagged-field section and skips every field in it.
    package mutating func skipKafkaTaggedFields() throws(KafkaDecodingError) {
        try readKafkaTaggedFields { _, _ throws(KafkaDecodingError) in }
    }
}
