import NIOCore
import NIOPosix
import SluiceCore
import SluiceNet
import Synchronization

/// An HTTP/1.1 and HTTP/2 server (over TLS when given a context) on NIO's shared event loops, beside the
/// process's other NIO servers: ``start()`` returns the bound port once it listens (useful with
/// port 0), ``stop()`` closes it and its connections. The dashboard, the metrics, the schema
/// registry, the webhook listener and the Iceberg REST catalog each run on one, with their
/// ``HTTPRouter``.
///
/// A connection that starts with HTTP/2's preface speaks HTTP/2 (prior knowledge, RFC 9113
/// Section 3.3: ``HTTP2ConnectionHandler``), any other HTTP/1.1; both run the same router.
/// HTTP/1.1 requests are read by ``HTTP1RequestDecoder`` (a malformed one gets 400, a head past 64 KiB
/// 431, and the connection closes); kept-alive and pipelined requests are answered one at a
/// time, in order. A request's body is read
/// whole up to ``maximumBodyBytes``; past it the route sees ``HTTPServerRequest/bodyTooLarge``,
/// nothing more is read, and the connection closes after the answer.
package final class BackgroundHTTPServer: Sendable {
    package let host: String
    package let requestedPort: Int
    let router: HTTPRouter
    let tls: TLSContext?
    package let maximumBodyBytes: Int
    /// Named in errors ("the Iceberg REST server did not start").
    let name: String
    private let listener = Mutex<(any Channel)?>(nil)
    private let connections = HTTPConnections()

    package init(host: String, port: Int, router: HTTPRouter, name: String, tls: TLSContext? = nil, maximumBodyBytes: Int = 1 << 20) {
        self.host = host
        self.requestedPort = port
        self.router = router
        self.name = name
        self.tls = tls
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// The port it listens on once it runs.
    package var port: Int? { listener.withLock { $0?.localAddress?.port } }

    /// Starts serving in the background; returns the bound port once the server listens.
    /// - Throws: when the server cannot listen (the port is taken, say).
    @discardableResult
    package func start() async throws -> Int {
        let (router, tls, limit, connections) = (router, tls, maximumBodyBytes, connections)
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    guard connections.track(channel) else { return channel.close() }
                    return channel.eventLoop.makeCompletedFuture {
                        if let tls { try channel.pipeline.syncOperations.addHandler(TLSHandler(context: tls)) }
                        // HTTP/1.1, or HTTP/2 with prior knowledge, by the first bytes.
                        try channel.pipeline.syncOperations.addHandler(HTTPProtocolDetector(router: router, maximumBodyBytes: limit))
                    }
                }
                .bind(host: host, port: requestedPort)
                .get()
        } catch {
            throw SluiceError(.ioError, "the \(name) did not start on \(host):\(requestedPort): \(error)")
        }
        listener.withLock { $0 = channel }
        return channel.localAddress?.port ?? 0
    }

    /// Stops listening and closes the open connections (their requests in flight are cancelled).
    package func stop() async {
        guard let channel = listener.withLock({ current -> (any Channel)? in
            defer { current = nil }
            return current
        }) else { return }
        try? await channel.close()
        for connection in connections.closeAll() { try? await connection.close() }
    }
}

/// The open connections of one server, to close them at its stop.
final class HTTPConnections: Sendable {
    private let open = Mutex<(channels: [ObjectIdentifier: any Channel], stopped: Bool)>(([:], false))

    /// Tracks `channel` until it closes; false once the server stops.
    func track(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        let added = open.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.channels[key] = channel
            return true
        }
        if added { channel.closeFuture.whenComplete { _ in _ = self.open.withLock { $0.channels.removeValue(forKey: key) } } }
        return added
    }

    func closeAll() -> [any Channel] {
        open.withLock { state in
            state.stopped = true
            return Array(state.channels.values)
        }
    }
}

/// One connection's requests: gathers each one's head and body, runs its route in a task, and
/// writes the answer back on the connection's event loop. One request is answered at a time:
/// while it is, reading pauses and the parts of requests pipelined behind it wait, in order.
final class HTTPConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let router: HTTPRouter
    let maximumBodyBytes: Int
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    /// The request's body passed the bound: it went to its route already; the rest is dropped.
    private var skipping = false
    private var running: Task<Void, Never>?
    /// A request's answer is being made or written.
    private var answering = false
    /// Parts of the requests behind it, read before reading paused.
    private var waiting: [HTTPServerRequestPart] = []

    init(router: HTTPRouter, maximumBodyBytes: Int) {
        self.router = router
        self.maximumBodyBytes = maximumBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if answering || !waiting.isEmpty {
            waiting.append(part)
            return
        }
        take(part, context: context)
    }

    private func take(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            self.head = head
            body = []
            // One allocation for a body whose length is announced (up to the bound).
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length > 0 {
                body.reserveCapacity(min(length, maximumBodyBytes))
            }
            skipping = false
        case .body(let buffer):
            guard !skipping else { return }
            if body.count + buffer.readableBytes > maximumBodyBytes {
                // Read no further: the route answers 413 and the connection closes.
                skipping = true
                dispatch(context: context, tooLarge: true)
                return
            }
            buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) }
        case .end:
            guard !skipping else { return }
            dispatch(context: context, tooLarge: false)
        }
    }

    /// The answer is written and the connection stays open: the requests that waited go on,
    /// then reading resumes.
    private func answered(context: ChannelHandlerContext) {
        answering = false
        while !answering, !waiting.isEmpty {
            take(waiting.removeFirst(), context: context)
        }
        if !answering { context.channel.setOption(.autoRead, value: true).whenComplete { _ in } }
    }

    /// A malformed request: 400 (431 for a head too long) unless an answer is under way, and
    /// the connection ends. A broken connection just ends.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTP1ParseError, !answering else {
            context.close(promise: nil)
            return
        }
        answering = true
        waiting = []
        var status = HTTPResponseStatus.badRequest
        if case .headTooLarge = parse { status = .requestHeaderFieldsTooLarge }
        let text = Array("\(status.reasonPhrase): \(parse)\n".utf8)
        let headers: HTTPHeaders = [("content-type", "text/plain; charset=utf-8"), ("content-length", String(text.count)), ("connection", "close")]
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: text))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        running?.cancel()
        running = nil
        waiting = []
        context.fireChannelInactive()
    }

    private func dispatch(context: ChannelHandlerContext, tooLarge: Bool) {
        guard let head else { return }
        self.head = nil
        answering = true
        // Nothing more is read until the answer is out (a too-large body's rest never is).
        context.channel.setOption(.autoRead, value: false).whenComplete { _ in }
        let request = HTTPServerRequest(
            method: head.method, uri: head.uri, headers: head.headers, body: body, bodyTooLarge: tooLarge)
        body = []
        let keepAlive = head.isKeepAlive && !tooLarge
        let version = head.version
        let isHead = head.method == .HEAD
        let router = router
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loop = context.eventLoop
        running = Task(executorPreference: HTTPWorkers.shared) { [request, router, version, keepAlive, isHead, bound, handler, loop] in
            await HTTPExchange.serve(request, router: router, version: version, keepAlive: keepAlive, isHead: isHead, to: bound, on: loop)
            if keepAlive { loop.execute { handler.value.answered(context: bound.value) } }
        }
    }
}

/// One request's answer, from its route to the connection.
enum HTTPExchange {

    /// Runs `request`'s route and writes its answer (500 if the route throws).
    static func serve(
        _ request: HTTPServerRequest, router: HTTPRouter, version: HTTPVersion, keepAlive: Bool, isHead: Bool,
        to bound: NIOLoopBound<ChannelHandlerContext>, on loop: any EventLoop
    ) async {
        let response: HTTPServerResponse
        do {
            response = try await router.respond(to: request)
        } catch {
            response = .text("internal error: \(error)\n", status: .internalServerError)
        }
        await write(response, version: version, keepAlive: keepAlive, isHead: isHead, to: bound, on: loop)
    }

    /// Writes `response` on the connection's loop; a streamed body chunk by chunk, each write
    /// awaited. Closes the connection after it unless it is kept alive.
    private static func write(
        _ response: HTTPServerResponse, version: HTTPVersion, keepAlive: Bool, isHead: Bool, to bound: NIOLoopBound<ChannelHandlerContext>,
        on loop: any EventLoop
    ) async {
        var head = HTTPResponseHead(version: version, status: response.status, headers: response.headers)
        head.headers.replaceOrAdd(name: "connection", value: keepAlive ? "keep-alive" : "close")
        switch response.body {
        case .bytes(let bytes):
            head.headers.replaceOrAdd(name: "content-length", value: String(bytes.count))
            let written: EventLoopFuture<Void> = loop.flatSubmit {
                let context = bound.value
                context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
                if !isHead && !bytes.isEmpty {
                    context.write(NIOAny(HTTPServerResponsePart.body(context.channel.allocator.buffer(bytes: bytes))), promise: nil)
                }
                let promise = loop.makePromise(of: Void.self)
                context.writeAndFlush(NIOAny(HTTPServerResponsePart.end), promise: promise)
                return promise.futureResult
            }
            try? await written.get()
        case .stream(let produce):
            head.headers.remove(name: "content-length")
            let started: EventLoopFuture<Void> = loop.flatSubmit {
                let promise = loop.makePromise(of: Void.self)
                bound.value.writeAndFlush(NIOAny(HTTPServerResponsePart.head(head)), promise: promise)
                return promise.futureResult
            }
            do {
                try await started.get()
                try await produce(HTTPBodyWriter { bytes in
                    try Task.checkCancellation()
                    try await loop.flatSubmit {
                        let context = bound.value
                        let promise = loop.makePromise(of: Void.self)
                        context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(context.channel.allocator.buffer(bytes: bytes))), promise: promise)
                        return promise.futureResult
                    }.get()
                })
                try await loop.flatSubmit {
                    let promise = loop.makePromise(of: Void.self)
                    bound.value.writeAndFlush(NIOAny(HTTPServerResponsePart.end), promise: promise)
                    return promise.futureResult
                }.get()
            } catch {
                // The client went away, or the server stops: nothing more to write.
                _ = loop.submit { bound.value.close(promise: nil) }
                return
            }
        }
        if !keepAlive { _ = loop.submit { bound.value.close(promise: nil) } }
    }
}
