import NIOCore

/// Kafka's variable-length integers (the protobuf encoding): unsigned varints for lengths in
/// flexible message versions, zigzag-encoded signed varints inside record batches.
extension ByteBuffer {
    /// Reads an unsigned varint of at most 5 bytes (32 bits); nil if the buffer ends first or the
    /// encoding is longer than 5 bytes.
    package mutating func readUnsignedVarint() -> UInt32? {
        var result: UInt32 = 0
        var shift: UInt32 = 0
        var index = readerIndex
        while shift < 35 {
            guard let byte = getInteger(at: index, as: UInt8.self) else { return nil }
            index += 1
            result |= UInt32(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                moveReaderIndex(to: index)
                return result
            }
            shift += 7
        }
        return nil
    }

    /// Reads a zigzag varint of at most 10 bytes (64 bits); nil if the buffer ends first or the
    /// encoding is too long.
    package mutating func readVarint() -> Int64? {
        var raw: UInt64 = 0
        var shift: UInt64 = 0
        var index = readerIndex
        while shift < 70 {
            guard let byte = getInteger(at: index, as: UInt8.self) else { return nil }
            index += 1
            raw |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                moveReaderIndex(to: index)
                return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
            }
            shift += 7
        }
        return nil
    }

    @discardableResult
    package mutating func writeUnsignedVarint(_ value: UInt32) -> Int {
        var remaining = value
        var written = 0
        while remaining >= 0x80 {
            written += writeInteger(UInt8(remaining & 0x7F) | 0x80)
            remaining >>= 7
        }
        written += writeInteger(UInt8(remaining))
        return written
    }

    @discardableResult
    package mutating func writeVarint(_ value: Int64) -> Int {
        var remaining = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        var written = 0
        while remaining >= 0x80 {
            written += writeInteger(UInt8(remaining & 0x7F) | 0x80)
            remaining >>= 7
        }
        written += writeInteger(UInt8(remaining))
        return written
    }
}
