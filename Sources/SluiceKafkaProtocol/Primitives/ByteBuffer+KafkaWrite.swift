import NIOCore

// Kafka protocol guide, "Protocol Primitive Types"; compact forms and tagged fields: KIP-482.
// The writers mirror ByteBuffer+KafkaRead.swift.
extension ByteBuffer {
    /// Writes a BOOLEAN as 0 or 1.
    package mutating func writeKafkaBool(_ value: Bool) {
        writeInteger(value ? UInt8(1) : UInt8(0))
    }

    /// Writes a FLOAT64, big-endian.
    package mutating func writeKafkaFloat64(_ value: Double) {
        writeInteger(value.bitPattern)
    }

    /// Writes a UUID: 16 bytes.
    package mutating func writeKafkaUUID(_ value: KafkaUUID) {
        writeInteger(value.mostSignificantBits)
        writeInteger(value.leastSignificantBits)
    }

    // MARK: Length prefixes

    /// Writes the length prefix of a string or bytes field; nil writes null.
    mutating func writeKafkaDataLength(_ length: Int?, compact: Bool, wide: Bool) {
        if compact {
            writeUnsignedVarint(length.map { UInt32(truncatingIfNeeded: $0 + 1) } ?? 0)
        } else if wide {
            writeInteger(length.map { Int32(truncatingIfNeeded: $0) } ?? -1)
        } else {
            writeInteger(length.map { Int16(truncatingIfNeeded: $0) } ?? -1)
        }
    }

    /// Writes the count of an ARRAY or COMPACT_ARRAY; nil writes null.
    mutating func writeKafkaArrayCount(_ count: Int?, compact: Bool) {
        if compact {
            writeUnsignedVarint(count.map { UInt32(truncatingIfNeeded: $0 + 1) } ?? 0)
        } else {
            writeInteger(count.map { Int32(truncatingIfNeeded: $0) } ?? -1)
        }
    }

    // MARK: Strings

    /// Writes a STRING or COMPACT_STRING.
    ///
    /// A string longer than 32,767 UTF-8 bytes cannot be sent; only its first 32,767 bytes are
    /// written (decoded input never has one, so only a broker-made message could).
    package mutating func writeKafkaString(_ value: String, compact: Bool) {
        let utf8 = value.utf8
        let length = utf8.count
        if length <= Int(Int16.max) {
            writeKafkaDataLength(length, compact: compact, wide: false)
            writeString(value)
        } else {
            assertionFailure("a Kafka string is limited to 32,767 bytes")
            writeKafkaDataLength(Int(Int16.max), compact: compact, wide: false)
            writeBytes(utf8.prefix(Int(Int16.max)))
        }
    }

    /// Writes a NULLABLE_STRING or COMPACT_NULLABLE_STRING.
    package mutating func writeKafkaNullableString(_ value: String?, compact: Bool) {
        if let value {
            writeKafkaString(value, compact: compact)
        } else {
            writeKafkaDataLength(nil, compact: compact, wide: false)
        }
    }

    // MARK: Bytes

    /// Writes BYTES or COMPACT_BYTES: the readable bytes of `value`.
    package mutating func writeKafkaBytes(_ value: ByteBuffer, compact: Bool) {
        writeKafkaDataLength(value.readableBytes, compact: compact, wide: true)
        writeImmutableBuffer(value)
    }

    /// Writes NULLABLE_BYTES, COMPACT_NULLABLE_BYTES, RECORDS or COMPACT_RECORDS.
    package mutating func writeKafkaNullableBytes(_ value: ByteBuffer?, compact: Bool) {
        if let value {
            writeKafkaBytes(value, compact: compact)
        } else {
            writeKafkaDataLength(nil, compact: compact, wide: true)
        }
    }

    // MARK: Arrays

    /// Writes an ARRAY or COMPACT_ARRAY, each element with `writeElement`.
    package mutating func writeKafkaArray<Element>(
        _ elements: [Element],
        compact: Bool,
        _ writeElement: (Element, inout ByteBuffer) -> Void
    ) {
        writeKafkaArrayCount(elements.count, compact: compact)
        for element in elements {
            writeElement(element, &self)
        }
    }

    /// Writes a nullable ARRAY or COMPACT_ARRAY; nil writes null.
    package mutating func writeKafkaNullableArray<Element>(
        _ elements: [Element]?,
        compact: Bool,
        _ writeElement: (Element, inout ByteBuffer) -> Void
    ) {
        if let elements {
            writeKafkaArray(elements, compact: compact, writeElement)
        } else {
            writeKafkaArrayCount(nil, compact: compact)
        }
    }

    /// Writes an array of INT32.
    package mutating func writeKafkaInt32Array(_ values: [Int32], compact: Bool) {
        writeKafkaArray(values, compact: compact) { value, buffer in buffer.writeInteger(value) }
    }

    /// Writes an array of non-nullable strings.
    package mutating func writeKafkaStringArray(_ values: [String], compact: Bool) {
        writeKafkaArray(values, compact: compact) { value, buffer in buffer.writeKafkaString(value, compact: compact) }
    }

    /// Writes a nullable array of non-nullable strings.
    package mutating func writeKafkaNullableStringArray(_ values: [String]?, compact: Bool) {
        writeKafkaNullableArray(values, compact: compact) { value, buffer in
            buffer.writeKafkaString(value, compact: compact)
        }
    }

    // MARK: Tagged fields

    /// Writes an empty tagged-field section: a count of zero.
    package mutating func writeKafkaEmptyTaggedFields() {
        writeInteger(UInt8(0))
    }

    /// Writes a tagged-field section holding `fields`, which must be in ascending tag order; each
    /// field's bytes are what its closure writes.
    package mutating func writeKafkaTaggedFields(_ fields: [(tag: UInt32, write: (inout ByteBuffer) -> Void)]) {
        writeUnsignedVarint(UInt32(truncatingIfNeeded: fields.count))
        guard !fields.isEmpty else { return }
        // A field's size precedes it; tagged fields are rare, so a scratch buffer is cheap enough.
        var scratch = ByteBuffer()
        for field in fields {
            scratch.clear()
            field.write(&scratch)
            writeUnsignedVarint(field.tag)
            writeUnsignedVarint(UInt32(truncatingIfNeeded: scratch.readableBytes))
            writeImmutableBuffer(scratch)
        }
    }
}
