import NIOCore
import SluiceKafkaProtocol

extension RecordBatchHeader {
    /// The header of the stored batch at `index`, if it is framed well enough for the log to
    /// step over it: a full header, magic 2, a length no shorter than the header and a
    /// non-negative last offset delta. The CRC is not checked here (recovery checks it).
    static func framed(at index: Int, of bytes: ByteBuffer) -> RecordBatchHeader? {
        guard let header = RecordBatchHeader(from: bytes, at: index), header.magic == 2, header.byteCount >= size,
            header.lastOffsetDelta >= 0
        else { return nil }
        return header
    }
}
