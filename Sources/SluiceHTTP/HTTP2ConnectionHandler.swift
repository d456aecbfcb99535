import NIOCore
import SluiceCore
import SluiceNet

/// One HTTP/2 connection (after ``HTTPProtocolDetector``): its bytes go through
/// ``HTTP2ServerConnection``; each request runs through the router in a task of its own, and
/// its answer is framed back as the client's windows allow. A streamed body's write returns
/// once its bytes are on the socket, so a client that opens its window slowly slows the route's
/// writer; a stream the client resets (or a closed connection) makes the writer's next write
/// throw and cancels the route's task. Reading pauses while the socket's buffer is full, so
/// floods of frames that each want an answer (PING, SETTINGS) cannot pile answers up.
final class HTTP2ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let router: HTTPRouter
    private var connection: HTTP2ServerConnection
    private var streams: [UInt32: StreamWork] = [:]
    private var context: ChannelHandlerContext?
    private var isClosing = false
    /// The start of a frame whose rest has not arrived.
    private var unread: ByteBuffer?
    private var budgetTimer: RepeatedTask?

    /// One stream's answer in progress: its route's task and its data waiting for a window.
    private final class StreamWork {
        var task: Task<Void, Never>?
        var pending: [PendingWrite] = []
    }

    private struct PendingWrite {
        var bytes: [UInt8]
        var offset = 0
        var endStream: Bool
        var promise: EventLoopPromise<Void>
    }

    init(router: HTTPRouter, maximumBodyBytes: Int) {
        self.router = router
        var configuration = HTTP2ServerConfiguration()
        configuration.maximumBodyBytes = maximumBodyBytes
        // Two whole bodies at the bound, or a few megabytes of smaller ones, per connection.
        configuration.maximumBufferedBodyBytes = max(4 << 20, 2 * maximumBodyBytes)
        connection = HTTP2ServerConnection(configuration: configuration)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // Our SETTINGS, first.
        flushOutput(context: context, completing: [])
        // The flood budgets are per minute.
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        budgetTimer = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(60), delay: .seconds(60)) { _ in
            handler.value.connection.budgetPeriodEnded()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        budgetTimer?.cancel()
        budgetTimer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Closing: what still comes is dropped (see shutDown).
        guard !isClosing else { return }
        // A frame cut across reads waits here for its rest.
        var bytes = unwrapInboundIn(data)
        if var held = unread.take() {
            held.writeBuffer(&bytes)
            bytes = held
        }
        let events = connection.read(&bytes)
        if bytes.readableBytes > 0 {
            bytes.discardReadBytes()
            unread = bytes
        }
        var failedConnection = false
        for event in events {
            switch event {
            case .request(let request):
                start(request, context: context)
            case .streamClosed(let streamID):
                closeStream(streamID)
            case .windowOpened:
                break
            case .goAwayReceived:
                break
            case .connectionError:
                failedConnection = true
            }
        }
        if failedConnection {
            closeAfterGoAway(context: context)
            return
        }
        pump(context: context)
        closeIfDone(context: context)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !isClosing { context.channel.setOption(.autoRead, value: context.channel.isWritable).whenComplete { _ in } }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isClosing = true
        budgetTimer?.cancel()
        budgetTimer = nil
        for streamID in Array(streams.keys) { closeStream(streamID) }
        context.fireChannelInactive()
    }

    /// A close from our side (the server stops): GOAWAY NO_ERROR first, naming the last stream
    /// taken (RFC 9113 Section 6.8), unless one went already.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all && !connection.goAwaySent {
            connection.goAway()
            context.writeAndFlush(wrapOutboundOut(connection.takeOutput()), promise: nil)
        }
        context.close(mode: mode, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// A connection error: GOAWAY, then our side of the connection closes, and what the
    /// client still sends is read and dropped until it closes too (so that its unread bytes do
    /// not make the close a reset that loses the GOAWAY), for two seconds at most.
    private func closeAfterGoAway(context: ChannelHandlerContext) {
        guard !isClosing else { return }
        isClosing = true
        for streamID in Array(streams.keys) { closeStream(streamID) }
        shutDown(context: context)
    }

    /// Writes what is left, closes our side, and reads (dropping) until the client closes its
    /// side too, two seconds at most: closing with the client's bytes unread would reset the
    /// connection, and the client could lose our last frames.
    private func shutDown(context: ChannelHandlerContext) {
        let output = connection.takeOutput()
        context.channel.setOption(.autoRead, value: true).whenComplete { _ in }
        let written = context.writeAndFlush(wrapOutboundOut(output)).assumeIsolated()
        written.whenComplete { _ in
            let halfClosed = context.eventLoop.makePromise(of: Void.self)
            context.close(mode: .output, promise: halfClosed)
            halfClosed.futureResult.assumeIsolated().whenFailure { _ in context.close(promise: nil) }
            context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(2)) { context.close(promise: nil) }
        }
    }

    /// After the client's GOAWAY, the connection closes once its streams are answered.
    private func closeIfDone(context: ChannelHandlerContext) {
        if connection.goAwayReceived && streams.isEmpty && connection.openStreamCount == 0 && !isClosing {
            isClosing = true
            shutDown(context: context)
        }
    }

    /// The stream ended early: its writes fail and its route's task is cancelled.
    private func closeStream(_ streamID: UInt32) {
        guard let work = streams.removeValue(forKey: streamID) else { return }
        work.task?.cancel()
        for write in work.pending { write.promise.fail(HTTP2StreamClosed()) }
    }

    private func start(_ request: HTTP2Request, context: ChannelHandlerContext) {
        let streamID = request.streamID
        let work = StreamWork()
        streams[streamID] = work
        let serverRequest = HTTPServerRequest(
            method: HTTPMethod(rawValue: request.method), uri: request.path, headers: HTTPHeaders(request.headers),
            body: request.body, bodyTooLarge: request.bodyTooLarge)
        let isHead = request.method == "HEAD"
        let router = router
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        work.task = Task(executorPreference: HTTPWorkers.shared) {
            let response: HTTPServerResponse
            do {
                response = try await router.respond(to: serverRequest)
            } catch {
                response = .text("internal error: \(error)\n", status: .internalServerError)
            }
            let stream = HTTP2ResponseStream(streamID: streamID, handler: handler, loop: loop)
            await stream.write(response, isHead: isHead)
            loop.execute { handler.value.finished(streamID) }
        }
    }

    /// The route's answer is done (written, or given up): its stream's work is forgotten and,
    /// had it stopped midway, the stream is reset.
    fileprivate func finished(_ streamID: UInt32) {
        guard let work = streams.removeValue(forKey: streamID) else { return }
        for write in work.pending { write.promise.fail(HTTP2StreamClosed()) }
        if connection.sendableBytes(streamID: streamID) != nil {
            connection.cancelStream(streamID)
        }
        guard let context else { return }
        flushOutput(context: context, completing: [])
        closeIfDone(context: context)
    }

    /// Frames an answer's head; false when the stream is gone.
    fileprivate func sendHead(_ streamID: UInt32, fields: [(String, String)], endStream: Bool) -> Bool {
        guard let context, streams[streamID] != nil, connection.sendHeaders(streamID: streamID, fields: fields, endStream: endStream) else {
            return false
        }
        flushOutput(context: context, completing: [])
        return true
    }

    /// Queues `bytes` on the stream; the future completes once they are written to the socket.
    fileprivate func sendData(_ streamID: UInt32, _ bytes: [UInt8], endStream: Bool, on loop: any EventLoop) -> EventLoopFuture<Void> {
        guard let context, let work = streams[streamID] else { return loop.makeFailedFuture(HTTP2StreamClosed()) }
        let promise = context.eventLoop.makePromise(of: Void.self)
        work.pending.append(PendingWrite(bytes: bytes, endStream: endStream, promise: promise))
        pump(context: context)
        return promise.futureResult
    }

    /// Frames what the windows allow of each stream's waiting data, then writes it out.
    private func pump(context: ChannelHandlerContext) {
        var completed: [EventLoopPromise<Void>] = []
        for (streamID, work) in streams {
            while !work.pending.isEmpty {
                let write = work.pending[0]
                guard let framed = connection.sendData(streamID: streamID, write.bytes[write.offset...], endStream: write.endStream) else {
                    for pending in work.pending { pending.promise.fail(HTTP2StreamClosed()) }
                    work.pending = []
                    break
                }
                work.pending[0].offset += framed
                guard work.pending[0].offset == write.bytes.count else { break }
                completed.append(write.promise)
                work.pending.removeFirst()
            }
        }
        flushOutput(context: context, completing: completed)
    }

    /// Writes the frames made so far; `completing` succeed once they are on the socket.
    private func flushOutput(context: ChannelHandlerContext, completing: [EventLoopPromise<Void>]) {
        let output = connection.takeOutput()
        guard output.readableBytes > 0 else {
            for promise in completing { promise.succeed() }
            return
        }
        let written = context.writeAndFlush(wrapOutboundOut(output))
        if !completing.isEmpty {
            written.whenComplete { result in
                for promise in completing {
                    switch result {
                    case .success: promise.succeed()
                    case .failure(let error): promise.fail(error)
                    }
                }
            }
        }
    }
}

/// A stream's answer written from its route's task: the head, then the body at once or as the
/// route writes it, each write awaited.
struct HTTP2ResponseStream: Sendable {
    let streamID: UInt32
    let handler: NIOLoopBound<HTTP2ConnectionHandler>
    let loop: any EventLoop

    /// Fields that name HTTP/1.1's connection handling, which HTTP/2 forbids (RFC 9113 Section 8.2.2).
    private static let connectionFields: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"]

    func write(_ response: HTTPServerResponse, isHead: Bool) async {
        var fields: [(String, String)] = [(":status", String(response.status.code))]
        for (name, value) in response.headers {
            let lowered = name.lowercased()
            if Self.connectionFields.contains(lowered) || lowered == "content-length" { continue }
            fields.append((lowered, value))
        }
        do {
            switch response.body {
            case .bytes(let bytes):
                fields.append(("content-length", String(bytes.count)))
                let isEmpty = isHead || bytes.isEmpty
                try await head(fields, endStream: isEmpty)
                if !isEmpty { try await data(bytes, endStream: true) }
            case .stream(let produce):
                try await head(fields, endStream: isHead)
                if isHead { return }
                try await produce(HTTPBodyWriter { bytes in
                    try Task.checkCancellation()
                    guard !bytes.isEmpty else { return }
                    try await data(bytes, endStream: false)
                })
                try await data([], endStream: true)
            }
        } catch {
            // The stream or the connection closed, or the route failed midway: `finished`
            // resets what is still open.
        }
    }

    private func head(_ fields: [(String, String)], endStream: Bool) async throws {
        let (handler, streamID) = (handler, streamID)
        let sent = try await loop.submit { handler.value.sendHead(streamID, fields: fields, endStream: endStream) }.get()
        if !sent { throw HTTP2StreamClosed() }
    }

    private func data(_ bytes: [UInt8], endStream: Bool) async throws {
        let (handler, streamID) = (handler, streamID)
        let loop = loop
        try await loop.flatSubmit { handler.value.sendData(streamID, bytes, endStream: endStream, on: loop) }.get()
    }
}

/// A write on a stream that the client reset, or whose connection closed.
struct HTTP2StreamClosed: Error, CustomStringConvertible {
    var description: String { "the HTTP/2 stream closed" }
}
