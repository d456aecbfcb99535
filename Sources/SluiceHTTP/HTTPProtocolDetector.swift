import NIOCore
import SluiceNet

/// Chooses a connection's protocol by its first bytes: HTTP/2 with prior knowledge when they
/// start HTTP/2's preface (`PRI * HTTP/2.0\r\n`, RFC 9113 Section 3.4), HTTP/1.1 otherwise. It
/// puts that protocol's handlers after itself, hands them the bytes it held, and leaves.
final class HTTPProtocolDetector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The preface's first line: enough to tell HTTP/2 from any HTTP/1.1 request (whose
    /// method is never `PRI`); the HTTP/2 side checks the rest.
    private static let prefaceLine = Array(HTTP2Frame.clientPreface.prefix(16))

    private let router: HTTPRouter
    private let maximumBodyBytes: Int
    private var held: ByteBuffer?

    init(router: HTTPRouter, maximumBodyBytes: Int) {
        self.router = router
        self.maximumBodyBytes = maximumBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if held == nil {
            held = bytes
        } else {
            held!.writeBuffer(&bytes)
        }
        let seen = held!.readableBytesView.prefix(Self.prefaceLine.count)
        if !seen.elementsEqual(Self.prefaceLine.prefix(seen.count)) {
            choose(http2: false, context: context)
        } else if seen.count == Self.prefaceLine.count {
            choose(http2: true, context: context)
        }
    }

    private func choose(http2: Bool, context: ChannelHandlerContext) {
        do {
            let pipeline = context.pipeline.syncOperations
            if http2 {
                try pipeline.addHandler(HTTP2ConnectionHandler(router: router, maximumBodyBytes: maximumBodyBytes), position: .after(self))
            } else {
                // Added in reverse after this one: encoder, decoder, then the requests' handler.
                try pipeline.addHandler(HTTPConnectionHandler(router: router, maximumBodyBytes: maximumBodyBytes), position: .after(self))
                try pipeline.addHandler(ByteToMessageHandler(HTTP1RequestDecoder()), position: .after(self))
                try pipeline.addHandler(HTTP1ResponseEncoder(), position: .after(self))
            }
        } catch {
            context.close(promise: nil)
            return
        }
        let bytes = held!
        held = nil
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
