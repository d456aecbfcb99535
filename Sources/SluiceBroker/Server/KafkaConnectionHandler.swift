import NIOCore

/// One client connection. Requests are handled one at a time, in the order they came, and each
/// response is written before the next request is taken up — Kafka's per-connection ordering,
/// which clients that pipeline requests rely on. While many requests wait, the connection stops
/// reading, so a client cannot queue unbounded work.
final class KafkaConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let broker: KafkaBroker
    private var pending = CircularBuffer<ByteBuffer>()
    private var busy = false
    private var readingPaused = false
    private static let pauseAt = 64
    private static let resumeAt = 8

    init(broker: KafkaBroker) {
        self.broker = broker
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending.append(unwrapInboundIn(data))
        if pending.count >= Self.pauseAt && !readingPaused {
            readingPaused = true
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        }
        if !busy { processNext(context: context) }
    }

    private func processNext(context: ChannelHandlerContext) {
        guard let frame = pending.popFirst() else {
            busy = false
            return
        }
        busy = true
        if readingPaused && pending.count <= Self.resumeAt {
            readingPaused = false
            context.channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
            context.read()
        }
        broker.handle(frame, clientHost: "/" + (context.channel.remoteAddress?.ipAddress ?? ""), on: context.eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let response):
                if let response {
                    context.writeAndFlush(self.wrapOutboundOut(response), promise: nil)
                }
                self.processNext(context: context)
            case .failure:
                // A request the broker cannot read ends the connection, as in Kafka.
                context.close(promise: nil)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
