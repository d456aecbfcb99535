import NIOCore

/// One client connection. Requests are handled one at a time, in the order they came, and each
/// response is written before the next request is taken up — Kafka's per-connection ordering,
/// which clients that pipeline requests rely on. While many requests wait, the connection stops
/// reading, so a client cannot queue unbounded work.
final class KafkaConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let broker: KafkaBroker
    private let connection: KafkaConnection
    private var pending = CircularBuffer<ByteBuffer>()
    private var busy = false
    private var readingPaused = false
    private var closing = false
    private static let pauseAt = 64
    private static let resumeAt = 8

    init(broker: KafkaBroker, connection: KafkaConnection) {
        self.broker = broker
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        pending.append(unwrapInboundIn(data))
        if pending.count >= Self.pauseAt && !readingPaused {
            readingPaused = true
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        }
        if !busy { processNext(context: context) }
    }

    private func processNext(context: ChannelHandlerContext) {
        guard !closing, let frame = pending.popFirst() else {
            busy = false
            return
        }
        busy = true
        if readingPaused && pending.count <= Self.resumeAt {
            readingPaused = false
            context.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
            context.read()
        }
        broker.handle(frame, on: connection, eventLoop: context.eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let response):
                if self.connection.closesAfterResponse {
                    // The last answer (a refused login, an unsupported mechanism) goes out before the close.
                    self.closing = true
                    self.pending.removeAll()
                    guard let response else {
                        context.close(promise: nil)
                        return
                    }
                    self.write(response, context: context).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                    return
                }
                if let response {
                    _ = self.write(response, context: context)
                }
                self.processNext(context: context)
            case .failure:
                // A request the broker cannot read ends the connection, as in Kafka.
                self.closing = true
                context.close(promise: nil)
            }
        }
    }

    /// Writes a frame's pieces and flushes them together (one vectored write); the future of
    /// the last.
    private func write(_ frame: KafkaResponseFrame, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        let last = frame.pieces.count - 1
        for piece in frame.pieces.dropLast() { context.write(wrapOutboundOut(piece), promise: nil) }
        guard last >= 0 else { return context.eventLoop.makeSucceededVoidFuture() }
        return context.writeAndFlush(wrapOutboundOut(frame.pieces[last]))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
