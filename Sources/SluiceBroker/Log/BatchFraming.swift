import NIOCore

/// Where the fields the log needs sit in a record batch (Kafka's record batch v2 layout: base
/// offset, batch length, partition leader epoch, magic, CRC, attributes, last offset delta, base
/// and max timestamps, producer id and epoch, base sequence, record count).
enum BatchFraming {
    static let headerSize = 61
    static let lengthAt = 8
    /// The batch length field counts the bytes after itself.
    static let lengthFieldEnd = 12
    static let magicAt = 16
    static let lastOffsetDeltaAt = 23
    static let maxTimestampAt = 35
    static let producerIDAt = 43
    static let producerEpochAt = 51
    static let baseSequenceAt = 53

    /// What the log keeps of one stored batch.
    struct Entry: Equatable {
        var baseOffset: Int64
        var lastOffset: Int64
        var maxTimestamp: Int64
        /// Bytes of the whole batch.
        var size: Int
        /// The idempotent producer that wrote it (-1: none), its epoch and first sequence.
        var producerID: Int64 = -1
        var producerEpoch: Int16 = -1
        var baseSequence: Int32 = -1
    }

    /// Reads the entry of the batch at the start of `bytes`, checking only the framing: a full
    /// header, magic 2, a length that fits; nil if it does not.
    static func entry(at index: Int, of bytes: ByteBuffer) -> Entry? {
        guard bytes.readableBytes - (index - bytes.readerIndex) >= headerSize,
            let baseOffset = bytes.getInteger(at: index, as: Int64.self),
            let length = bytes.getInteger(at: index + lengthAt, as: Int32.self),
            let magic = bytes.getInteger(at: index + magicAt, as: Int8.self),
            let lastOffsetDelta = bytes.getInteger(at: index + lastOffsetDeltaAt, as: Int32.self),
            let maxTimestamp = bytes.getInteger(at: index + maxTimestampAt, as: Int64.self)
        else { return nil }
        let size = lengthFieldEnd + Int(length)
        guard magic == 2, size >= headerSize, lastOffsetDelta >= 0 else { return nil }
        return Entry(
            baseOffset: baseOffset, lastOffset: baseOffset + Int64(lastOffsetDelta), maxTimestamp: maxTimestamp, size: size,
            producerID: bytes.getInteger(at: index + producerIDAt, as: Int64.self) ?? -1,
            producerEpoch: bytes.getInteger(at: index + producerEpochAt, as: Int16.self) ?? -1,
            baseSequence: bytes.getInteger(at: index + baseSequenceAt, as: Int32.self) ?? -1)
    }
}
