import NIOCore

/// Splits a connection's bytes into Kafka request frames: a big-endian 32-bit size, then that
/// many bytes. A size that is negative or above the configured limit (Kafka's
/// `socket.request.max.bytes`) ends the connection, as Kafka does, before any of it is buffered.
final class KafkaFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    let maxFrameBytes: Int

    init(maxFrameBytes: Int) {
        self.maxFrameBytes = maxFrameBytes
    }

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let size = buffer.getInteger(at: buffer.readerIndex, as: Int32.self) else { return .needMoreData }
        guard size >= 0, Int(size) <= maxFrameBytes else { throw KafkaFrameError.invalidSize(size, limit: maxFrameBytes) }
        guard buffer.readableBytes >= 4 + Int(size) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 4)
        let frame = buffer.readSlice(length: Int(size))!
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        .needMoreData
    }
}

/// A frame the broker will not read.
enum KafkaFrameError: Error, Equatable {
    case invalidSize(Int32, limit: Int)
}
