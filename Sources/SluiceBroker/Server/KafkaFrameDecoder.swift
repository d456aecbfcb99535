import NIOCore

/// Splits a connection's bytes into Kafka request frames: a big-endian 32-bit size, then that
/// many bytes. A size that is negative or above the limit ends the connection, as Kafka does,
/// before any of it is buffered. The limit is the configured one (Kafka's
/// `socket.request.max.bytes`) once the connection may make requests, and Kafka's
/// `sasl.server.max.receive.size` (512 KiB) while a client that must log in has not: a stranger
/// cannot make the broker buffer 100 MiB per connection.
final class KafkaFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// Kafka's `sasl.server.max.receive.size`.
    static let unauthenticatedMaxFrameBytes = 512 * 1024

    let maxFrameBytes: Int
    /// The connection whose login state sets the limit; nil: always `maxFrameBytes`.
    let connection: KafkaConnection?

    init(maxFrameBytes: Int, connection: KafkaConnection? = nil) {
        self.maxFrameBytes = maxFrameBytes
        self.connection = connection
    }

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let size = buffer.getInteger(at: buffer.readerIndex, as: Int32.self) else { return .needMoreData }
        let mustLogInFirst = connection.map { $0.sasl.principal == nil } ?? false
        let limit = mustLogInFirst ? min(maxFrameBytes, Self.unauthenticatedMaxFrameBytes) : maxFrameBytes
        guard size >= 0, Int(size) <= limit else { throw KafkaFrameError.invalidSize(size, limit: limit) }
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
