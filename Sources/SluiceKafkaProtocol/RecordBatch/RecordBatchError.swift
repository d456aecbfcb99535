import SluiceCodecs

/// Why a record batch, or the records in it, were refused. Each case maps to the error code a
/// Kafka broker answers with (`code`), and says where: `batchStart` is the buffer index of the
/// batch's first byte.
package enum RecordBatchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes end inside a batch: it needs `needed` bytes from `batchStart`, `available` remain.
    /// A produce request with it is corrupt; at the end of a log segment it is a torn write.
    case truncated(batchStart: Int, needed: Int, available: Int)
    /// `batchLength` is smaller than a header without records.
    case batchLengthTooSmall(batchStart: Int, batchLength: Int32)
    /// The magic byte is not one Kafka ever defined (0, 1 or 2).
    case unknownMagic(batchStart: Int, magic: Int8)
    /// A message set of magic 0 or 1, which this broker does not take.
    case legacyMagic(batchStart: Int, magic: Int8)
    /// The stored CRC-32C does not match the bytes.
    case crcMismatch(batchStart: Int, stored: UInt32, computed: UInt32)
    /// The attributes name codec 5, 6 or 7.
    case unknownCompressionCodec(batchStart: Int, codecID: UInt8)
    /// The records section of a compressed batch does not decompress with the batch's codec:
    /// it is corrupt or cut short, or it expands past the cap the reader set.
    case decompressionFailed(batchStart: Int, CompressionError)
    /// The record count disagrees with `lastOffsetDelta` or cannot fit in the batch's bytes.
    case inconsistentRecordCount(batchStart: Int, recordCount: Int32, lastOffsetDelta: Int32)
    /// A client sent a control batch; only the transaction coordinator writes those.
    case controlBatchFromClient(batchStart: Int)
    /// An idempotent producer's batch (producer id set) without a base sequence number.
    case missingSequenceNumber(batchStart: Int, producerID: Int64)
    /// A record inside the batch is malformed: a length or varint runs past its record, or the
    /// record has bytes its fields do not account for.
    case malformedRecord(batchStart: Int, recordIndex: Int, reason: String)
    /// The records decoded disagree with the header's count: fewer records than counted, or
    /// bytes left over after the last one.
    case recordCountMismatch(batchStart: Int, recordCount: Int32, reason: String)

    /// The Kafka error code a broker answers with.
    package var code: KafkaErrorCode {
        switch self {
        case .truncated, .batchLengthTooSmall, .unknownMagic, .crcMismatch, .malformedRecord:
            .corruptMessage
        case .legacyMagic:
            .unsupportedForMessageFormat
        case .unknownCompressionCodec:
            .unsupportedCompressionType
        case .decompressionFailed(_, .outputLimitExceeded):
            .recordListTooLarge
        case .decompressionFailed(_, .corruptInput), .decompressionFailed(_, .truncatedInput):
            .corruptMessage
        case .inconsistentRecordCount, .controlBatchFromClient, .missingSequenceNumber, .recordCountMismatch:
            .invalidRecord
        }
    }

    /// The index of the first byte of the batch concerned.
    package var batchStart: Int {
        switch self {
        case .truncated(let start, _, _), .batchLengthTooSmall(let start, _), .unknownMagic(let start, _),
            .legacyMagic(let start, _), .crcMismatch(let start, _, _), .unknownCompressionCodec(let start, _),
            .decompressionFailed(let start, _), .inconsistentRecordCount(let start, _, _),
            .controlBatchFromClient(let start), .missingSequenceNumber(let start, _),
            .malformedRecord(let start, _, _), .recordCountMismatch(let start, _, _):
            start
        }
    }

    /// A message for logs and for the produce response's `error_message`, in Postgres style.
    package var description: String {
        switch self {
        case .truncated(let start, let needed, let available):
            "record batch at byte \(start) is truncated: needs \(needed) bytes, \(available) remain"
        case .batchLengthTooSmall(let start, let length):
            "record batch at byte \(start) has batch length \(length), less than its header"
        case .unknownMagic(let start, let magic):
            "record batch at byte \(start) has unknown magic \(magic)"
        case .legacyMagic(let start, let magic):
            "message set at byte \(start) has magic \(magic); only record batches of magic 2 are supported"
        case .crcMismatch(let start, let stored, let computed):
            "record batch at byte \(start) fails its CRC-32C check: stored \(hex(stored)), computed \(hex(computed))"
        case .unknownCompressionCodec(let start, let codec):
            "record batch at byte \(start) has unknown compression codec \(codec)"
        case .decompressionFailed(let start, let error):
            "records of the record batch at byte \(start) do not decompress: \(error)"
        case .inconsistentRecordCount(let start, let count, let lastOffsetDelta):
            "record batch at byte \(start) has record count \(count), inconsistent with last offset delta \(lastOffsetDelta) or its size"
        case .controlBatchFromClient(let start):
            "record batch at byte \(start) is a control batch, which clients may not write"
        case .missingSequenceNumber(let start, let producerID):
            "record batch at byte \(start) has producer id \(producerID) but no base sequence"
        case .malformedRecord(let start, let index, let reason):
            "record \(index) of the record batch at byte \(start) is malformed: \(reason)"
        case .recordCountMismatch(let start, let count, let reason):
            "record batch at byte \(start) declares \(count) records but \(reason)"
        }
    }
}

private func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
}
