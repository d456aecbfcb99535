import NIOCore

/// The fixed 61-byte header of a Kafka record batch, magic 2 (Kafka documentation, "Message
/// Format", record batch): the fields as stored, big-endian, and what the attribute bits mean.
///
/// ```
/// baseOffset int64 · batchLength int32 · partitionLeaderEpoch int32 · magic int8 · crc uint32 ·
/// attributes int16 · lastOffsetDelta int32 · baseTimestamp int64 · maxTimestamp int64 ·
/// producerId int64 · producerEpoch int16 · baseSequence int32 · recordCount int32
/// ```
/// `batchLength` counts the bytes after its own field (the batch is `batchLength + 12` bytes);
/// `crc` is the CRC-32C of everything from `attributes` to the end of the batch, so
/// `baseOffset` and `partitionLeaderEpoch`, which the broker sets, lie outside it.
package struct RecordBatchHeader: Hashable, Sendable {
    package var baseOffset: Int64
    package var batchLength: Int32
    package var partitionLeaderEpoch: Int32
    package var magic: Int8
    package var crc: UInt32
    package var attributes: Int16
    package var lastOffsetDelta: Int32
    package var baseTimestamp: Int64
    package var maxTimestamp: Int64
    package var producerID: Int64
    package var producerEpoch: Int16
    package var baseSequence: Int32
    package var recordCount: Int32

    package init(
        baseOffset: Int64, batchLength: Int32, partitionLeaderEpoch: Int32, magic: Int8, crc: UInt32,
        attributes: Int16, lastOffsetDelta: Int32, baseTimestamp: Int64, maxTimestamp: Int64,
        producerID: Int64, producerEpoch: Int16, baseSequence: Int32, recordCount: Int32
    ) {
        self.baseOffset = baseOffset
        self.batchLength = batchLength
        self.partitionLeaderEpoch = partitionLeaderEpoch
        self.magic = magic
        self.crc = crc
        self.attributes = attributes
        self.lastOffsetDelta = lastOffsetDelta
        self.baseTimestamp = baseTimestamp
        self.maxTimestamp = maxTimestamp
        self.producerID = producerID
        self.producerEpoch = producerEpoch
        self.baseSequence = baseSequence
        self.recordCount = recordCount
    }

    /// Reads the 61 header bytes at `index`, without judging them; nil if fewer remain.
    package init?(from buffer: ByteBuffer, at index: Int) {
        guard index >= buffer.readerIndex, buffer.writerIndex - index >= Self.size,
            let baseOffset = buffer.getInteger(at: index + Position.baseOffset, as: Int64.self),
            let batchLength = buffer.getInteger(at: index + Position.batchLength, as: Int32.self),
            let partitionLeaderEpoch = buffer.getInteger(at: index + Position.partitionLeaderEpoch, as: Int32.self),
            let magic = buffer.getInteger(at: index + Position.magic, as: Int8.self),
            let crc = buffer.getInteger(at: index + Position.crc, as: UInt32.self),
            let attributes = buffer.getInteger(at: index + Position.attributes, as: Int16.self),
            let lastOffsetDelta = buffer.getInteger(at: index + Position.lastOffsetDelta, as: Int32.self),
            let baseTimestamp = buffer.getInteger(at: index + Position.baseTimestamp, as: Int64.self),
            let maxTimestamp = buffer.getInteger(at: index + Position.maxTimestamp, as: Int64.self),
            let producerID = buffer.getInteger(at: index + Position.producerID, as: Int64.self),
            let producerEpoch = buffer.getInteger(at: index + Position.producerEpoch, as: Int16.self),
            let baseSequence = buffer.getInteger(at: index + Position.baseSequence, as: Int32.self),
            let recordCount = buffer.getInteger(at: index + Position.recordCount, as: Int32.self)
        else { return nil }
        self.init(
            baseOffset: baseOffset, batchLength: batchLength, partitionLeaderEpoch: partitionLeaderEpoch,
            magic: magic, crc: crc, attributes: attributes, lastOffsetDelta: lastOffsetDelta,
            baseTimestamp: baseTimestamp, maxTimestamp: maxTimestamp, producerID: producerID,
            producerEpoch: producerEpoch, baseSequence: baseSequence, recordCount: recordCount)
    }

    /// Overwrites the 61 bytes at `index` with this header. The buffer must already hold them.
    package func set(in buffer: inout ByteBuffer, at index: Int) {
        buffer.setInteger(baseOffset, at: index + Position.baseOffset)
        buffer.setInteger(batchLength, at: index + Position.batchLength)
        buffer.setInteger(partitionLeaderEpoch, at: index + Position.partitionLeaderEpoch)
        buffer.setInteger(magic, at: index + Position.magic)
        buffer.setInteger(crc, at: index + Position.crc)
        buffer.setInteger(attributes, at: index + Position.attributes)
        buffer.setInteger(lastOffsetDelta, at: index + Position.lastOffsetDelta)
        buffer.setInteger(baseTimestamp, at: index + Position.baseTimestamp)
        buffer.setInteger(maxTimestamp, at: index + Position.maxTimestamp)
        buffer.setInteger(producerID, at: index + Position.producerID)
        buffer.setInteger(producerEpoch, at: index + Position.producerEpoch)
        buffer.setInteger(baseSequence, at: index + Position.baseSequence)
        buffer.setInteger(recordCount, at: index + Position.recordCount)
    }
}

// MARK: - Layout

extension RecordBatchHeader {
    /// The header's size in bytes; the records follow it.
    package static let size = 61
    /// The bytes before `batchLength`'s count starts (baseOffset and batchLength itself).
    package static let lengthPrefixSize = 12
    /// The smallest valid `batchLength`: a header with no records.
    package static let minimumBatchLength = Int32(size - lengthPrefixSize)
    /// The magic byte of this format.
    package static let currentMagic: Int8 = 2

    /// Where each field starts, in bytes from the start of the batch.
    package enum Position {
        package static let baseOffset = 0
        package static let batchLength = 8
        package static let partitionLeaderEpoch = 12
        package static let magic = 16
        package static let crc = 17
        /// The CRC covers the batch from here to its end.
        package static let attributes = 21
        package static let lastOffsetDelta = 23
        package static let baseTimestamp = 27
        package static let maxTimestamp = 35
        package static let producerID = 43
        package static let producerEpoch = 51
        package static let baseSequence = 53
        package static let recordCount = 57
    }
}

// MARK: - Attributes

extension RecordBatchHeader {
    /// The attribute bits (Kafka documentation, record batch "attributes").
    package enum AttributeBit {
        /// Bits 0–2: the compression codec.
        package static let compressionMask: Int16 = 0x07
        /// Bit 3: 0 create time, 1 log-append time.
        package static let timestampType: Int16 = 0x08
        /// Bit 4: the batch belongs to a transaction.
        package static let transactional: Int16 = 0x10
        /// Bit 5: the batch holds a control record (transaction marker).
        package static let control: Int16 = 0x20
        /// Bit 6: `baseTimestamp` holds the delete horizon of a compacted batch (KIP-534).
        package static let deleteHorizon: Int16 = 0x40
    }

    /// The codec id in bits 0–2, 0 to 7; 5 to 7 name no codec.
    package var compressionCodecID: UInt8 { UInt8(attributes & AttributeBit.compressionMask) }

    /// The compression of the records; nil for codec ids 5–7, which validation rejects.
    package var compression: RecordBatchCompression? { RecordBatchCompression(rawValue: compressionCodecID) }

    /// Whose clock the timestamps are.
    package var timestampType: KafkaTimestampType {
        attributes & AttributeBit.timestampType == 0 ? .createTime : .logAppendTime
    }

    /// Whether the batch is part of a transaction (KIP-98).
    package var isTransactional: Bool { attributes & AttributeBit.transactional != 0 }

    /// Whether the batch holds a control record (a transaction commit or abort marker).
    package var isControl: Bool { attributes & AttributeBit.control != 0 }

    /// Whether `baseTimestamp` is the delete horizon set by log compaction (KIP-534).
    package var hasDeleteHorizon: Bool { attributes & AttributeBit.deleteHorizon != 0 }

    /// Whether the batch comes from an idempotent or transactional producer.
    package var hasProducerID: Bool { producerID >= 0 }

    /// The batch's size in bytes, header included.
    package var byteCount: Int { Int(batchLength) + Self.lengthPrefixSize }

    /// The offset of the batch's last record (as given by `lastOffsetDelta`).
    package var lastOffset: Int64 { baseOffset &+ Int64(lastOffsetDelta) }

    /// The offset after the batch: where the next batch in the log starts.
    package var nextOffset: Int64 { lastOffset &+ 1 }
}

/// The codec of a record batch's records (attributes bits 0–2).
package enum RecordBatchCompression: UInt8, Hashable, Sendable, CaseIterable {
    case uncompressed = 0
    case gzip = 1
    case snappy = 2
    case lz4 = 3
    case zstd = 4
}

/// Whose clock a record batch's timestamps are (attributes bit 3).
package enum KafkaTimestampType: Hashable, Sendable {
    /// Set by the producer when it created each record.
    case createTime
    /// Set by the broker when it appended the batch; the batch's `maxTimestamp` holds it.
    case logAppendTime
}
