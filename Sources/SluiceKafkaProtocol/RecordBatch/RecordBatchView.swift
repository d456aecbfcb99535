import NIOCore
import SluiceCodecs

/// A record batch that passed `RecordBatchValidator`, located in the buffer it was validated in:
/// its parsed header and the buffer indices of its bytes. It holds no bytes itself.
package struct RecordBatchView: Hashable, Sendable {
    /// The header as read from the buffer (and as changed by `assign(baseOffset:…)`).
    package var header: RecordBatchHeader
    /// The batch's bytes, header included, as indices of the buffer (`getInteger(at:)` indices).
    package let byteRange: Range<Int>

    package init(header: RecordBatchHeader, byteRange: Range<Int>) {
        self.header = header
        self.byteRange = byteRange
    }

    /// The indices of the records section: what follows the 61-byte header.
    package var recordsRange: Range<Int> { byteRange.lowerBound + RecordBatchHeader.size..<byteRange.upperBound }

    /// Sets the batch's base offset and partition leader epoch, in the header and in `buffer`.
    ///
    /// Both fields lie before the CRC's range, so the stored CRC stays valid and the batch is
    /// otherwise stored as the producer sent it. `buffer` is written in place: when it shares
    /// storage with another `ByteBuffer` (the request's, say), copy-on-write copies it first.
    package mutating func assign(baseOffset: Int64, partitionLeaderEpoch: Int32, in buffer: inout ByteBuffer) {
        header.baseOffset = baseOffset
        header.partitionLeaderEpoch = partitionLeaderEpoch
        buffer.setInteger(baseOffset, at: byteRange.lowerBound + RecordBatchHeader.Position.baseOffset)
        buffer.setInteger(partitionLeaderEpoch, at: byteRange.lowerBound + RecordBatchHeader.Position.partitionLeaderEpoch)
    }

    /// Gives `batches`, in order, consecutive offsets from `firstOffset` (each batch takes
    /// `lastOffsetDelta + 1` offsets) and the leader epoch, in place in `buffer`.
    ///
    /// - Returns: The offset after the last batch: the partition's log end offset once they are appended.
    package static func assignOffsets(
        to batches: inout [RecordBatchView], from firstOffset: Int64, partitionLeaderEpoch: Int32,
        in buffer: inout ByteBuffer
    ) -> Int64 {
        var nextOffset = firstOffset
        for batchIndex in batches.indices {
            batches[batchIndex].assign(baseOffset: nextOffset, partitionLeaderEpoch: partitionLeaderEpoch, in: &buffer)
            nextOffset = batches[batchIndex].header.nextOffset
        }
        return nextOffset
    }
}

extension ByteBuffer {
    /// The CRC-32C of the `length` bytes at `index`; nil unless they are all readable.
    package func crc32c(at index: Int, length: Int) -> UInt32? {
        guard let view = viewBytes(at: index, length: length) else { return nil }
        return view.withUnsafeBytes { CRC32C.checksum($0) }
    }
}
