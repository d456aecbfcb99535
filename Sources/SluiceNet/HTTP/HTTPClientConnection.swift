import NIOCore

/// One request in flight on a connection, and where its answer goes.
struct HTTPClientExchange: Sendable {
    var request: HTTPClientRequest
    var promise: EventLoopPromise<HTTPClientResponse>
    /// No byte for this long after the request is sent fails it.
    var readTimeout: TimeAmount
    var maximumBodyBytes: Int
}

/// The end of a connection's pipeline: sends one request at a time and gathers its answer.
/// When an answer ends, `onIdle` learns whether the connection may carry another.
final class HTTPClientConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientExchange
    typealias OutboundOut = HTTPClientRequestPart

    private var exchange: HTTPClientExchange?
    private var head: HTTPResponseHead?
    private var body: ByteBuffer?
    private var timeout: Scheduled<Void>?
    private let onIdle: (_ reusable: Bool) -> Void
    /// Done once the connection may carry a request: at once for `http`, after the handshake
    /// for `https` (whose failure fails it).
    let ready: EventLoopPromise<Void>

    init(ready: EventLoopPromise<Void>, onIdle: @escaping (_ reusable: Bool) -> Void) {
        self.ready = ready
        self.onIdle = onIdle
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is TLSHandshakeCompleted { ready.succeed() }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let next = unwrapOutboundIn(data)
        promise?.succeed()
        guard exchange == nil else {
            next.promise.fail(HTTPClientError.malformedResponse("a second request on a busy connection"))
            return
        }
        exchange = next
        head = nil
        body = nil
        let request = next.request
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: request.url.hostHeader)
        headers.add(name: "User-Agent", value: "Sluice")
        for header in request.headers { headers.replaceOrAdd(name: header.name, value: header.value) }
        let bodyBytes = request.body ?? []
        if !headers.contains(name: "Content-Length"), !bodyBytes.isEmpty || ["PUT", "POST", "PATCH"].contains(request.method) {
            headers.replaceOrAdd(name: "Content-Length", value: String(bodyBytes.count))
        }
        let requestHead = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.method), uri: request.url.target, headers: headers)
        context.write(wrapOutboundOut(.head(requestHead)), promise: nil)
        if !bodyBytes.isEmpty {
            context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: bodyBytes))), promise: nil)
        }
        // The read timeout runs from when the whole request is out.
        let sent = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end), promise: sent)
        sent.futureResult.assumeIsolated().whenSuccess { [weak self] in self?.armTimeout(context) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let exchange else { return }
        armTimeout(context)
        switch unwrapInboundIn(data) {
        case .head(let responseHead):
            // 100 Continue and the like: the real answer follows.
            if responseHead.status.code >= 100 && responseHead.status.code < 200 && responseHead.status != .switchingProtocols { return }
            if let length = responseHead.headers.first(name: "Content-Length").flatMap(Int.init), length > exchange.maximumBodyBytes {
                finish(context, .failure(HTTPClientError.responseTooLarge(limit: exchange.maximumBodyBytes)), reusable: false)
                return
            }
            head = responseHead
        case .body(var part):
            if body == nil { body = part } else { body!.writeBuffer(&part) }
            if body!.readableBytes > exchange.maximumBodyBytes {
                finish(context, .failure(HTTPClientError.responseTooLarge(limit: exchange.maximumBodyBytes)), reusable: false)
            }
        case .end:
            guard let head else {
                finish(context, .failure(HTTPClientError.malformedResponse("an answer with no status line")), reusable: false)
                return
            }
            let response = HTTPClientResponse(
                status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) },
                body: body.map { Array(buffer: $0) } ?? [])
            finish(context, .success(response), reusable: head.isKeepAlive)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        ready.fail(HTTPClientError.closedByPeer)
        if exchange != nil { finish(context, .failure(HTTPClientError.closedByPeer), reusable: false) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let failure: HTTPClientError
        switch error {
        case let error as TLSError: failure = .tls(error.message)
        case let error as HTTPClientError: failure = error
        case is HTTP1ParseError: failure = .malformedResponse("\(error)")
        default: failure = .closedByPeer
        }
        ready.fail(failure)
        if exchange != nil { finish(context, .failure(failure), reusable: false) } else { context.close(promise: nil) }
    }

    private func armTimeout(_ context: ChannelHandlerContext) {
        timeout?.cancel()
        guard let exchange else { return }
        timeout = context.eventLoop.assumeIsolated().scheduleTask(in: exchange.readTimeout) { [weak self] in
            self?.finish(context, .failure(HTTPClientError.timedOut), reusable: false)
        }
    }

    private func finish(_ context: ChannelHandlerContext, _ result: Result<HTTPClientResponse, any Error>, reusable: Bool) {
        guard let done = exchange else { return }
        exchange = nil
        head = nil
        body = nil
        timeout?.cancel()
        timeout = nil
        if !reusable { context.close(promise: nil) }
        onIdle(reusable && context.channel.isActive)
        done.promise.completeWith(result)
    }
}
