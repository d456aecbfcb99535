import NIOCore

/// A request on a server, as it arrives: its head, its body's parts, its end.
package typealias HTTPServerRequestPart = HTTPPart<HTTPRequestHead, ByteBuffer>
/// An answer on a server, as it is written.
package typealias HTTPServerResponsePart = HTTPPart<HTTPResponseHead, ByteBuffer>
/// A request on a client, as it is written.
package typealias HTTPClientRequestPart = HTTPPart<HTTPRequestHead, ByteBuffer>
/// An answer on a client, as it arrives.
package typealias HTTPClientResponsePart = HTTPPart<HTTPResponseHead, ByteBuffer>

/// A server's reading side: a connection's bytes to ``HTTPServerRequestPart``s
/// (``HTTP1Parser``). Wrap it in NIO's `ByteToMessageHandler`; a malformed request is an
/// ``HTTP1ParseError`` in `errorCaught`, after which it reads no more.
package struct HTTP1RequestDecoder: ByteToMessageDecoder {
    package typealias InboundOut = HTTPServerRequestPart

    private var parser: HTTP1Parser

    package init(maximumHeadBytes: Int = 64 << 10) {
        parser = HTTP1Parser(kind: .request, maximumHeadBytes: maximumHeadBytes)
    }

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        // Every event the bytes hold, in one call: a request without a body ends with no byte
        // after its head, and NIO calls again only while bytes remain.
        while let event = try parser.next(&buffer) {
            switch event {
            case .requestHead(let head): context.fireChannelRead(wrapInboundOut(.head(head)))
            case .body(let part): context.fireChannelRead(wrapInboundOut(.body(part)))
            case .end: context.fireChannelRead(wrapInboundOut(.end))
            case .responseHead: break
            }
        }
        return .needMoreData
    }

    /// At the close: what is whole is delivered; a request cut off is dropped (no one is left
    /// to answer).
    package mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}

/// A server's writing side: ``HTTPServerResponsePart``s to bytes. An answer without a
/// `Content-Length` (a streamed one) is sent chunked.
package final class HTTP1ResponseEncoder: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = ByteBuffer

    private var chunked = false

    package init() {}

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            let code = head.status.code
            let bodiless = code < 200 || code == 204 || code == 304
            chunked = !bodiless && !head.headers.contains(name: "content-length") && !head.headers.contains(name: "transfer-encoding")
            if chunked { head.headers.add(name: "transfer-encoding", value: "chunked") }
            var buffer = context.channel.allocator.buffer(capacity: 256)
            buffer.writeString("\(head.version) \(code) \(HTTP1Writing.clean(head.status.reasonPhrase))\r\n")
            HTTP1Writing.write(head.headers, to: &buffer)
            context.write(wrapOutboundOut(buffer), promise: promise)
        case .body(let part):
            guard chunked else {
                context.write(wrapOutboundOut(part), promise: promise)
                return
            }
            // (An empty chunk would end the body.)
            guard part.readableBytes > 0 else {
                promise?.succeed()
                return
            }
            var size = context.channel.allocator.buffer(capacity: 18)
            size.writeString(String(part.readableBytes, radix: 16) + "\r\n")
            context.write(wrapOutboundOut(size), promise: nil)
            context.write(wrapOutboundOut(part), promise: nil)
            context.write(wrapOutboundOut(context.channel.allocator.buffer(string: "\r\n")), promise: promise)
        case .end:
            let last = chunked ? "0\r\n\r\n" : ""
            chunked = false
            context.write(wrapOutboundOut(context.channel.allocator.buffer(string: last)), promise: promise)
        }
    }
}

/// A client's two sides on one connection: ``HTTPClientRequestPart``s out as bytes, the
/// answers' bytes in as ``HTTPClientResponsePart``s (an answer to HEAD read without a body).
/// A malformed answer is an ``HTTP1ParseError`` in `errorCaught`, after which it reads no more.
package final class HTTP1ClientCodec: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = HTTPClientResponsePart
    package typealias OutboundIn = HTTPClientRequestPart
    package typealias OutboundOut = ByteBuffer

    private var parser = HTTP1Parser(kind: .response)
    private var received: ByteBuffer?
    private var failed = false
    private var closed = false

    package init() {}

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed, !closed else { return }
        var bytes = unwrapInboundIn(data)
        // (Taken out while events go up: a handler above may close the connection meanwhile.)
        if var earlier = received.take() {
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        do {
            while !failed, !closed, let event = try parser.next(&bytes) { deliver(event, context) }
        } catch {
            fail(error, context)
            return
        }
        guard !failed, !closed, bytes.readableBytes > 0 else { return }
        if bytes.readerIndex > 64 << 10 { bytes.discardReadBytes() }
        received = bytes
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if !failed && !closed {
            closed = true
            var rest = received.take() ?? context.channel.allocator.buffer(capacity: 0)
            do {
                while let event = try parser.finish(&rest) {
                    deliver(event, context)
                    if case .end = event { break }
                }
            } catch {
                fail(error, context)
            }
        }
        closed = true
        received = nil
        context.fireChannelInactive()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            parser.requestSent(isHead: head.method == .HEAD)
            var buffer = context.channel.allocator.buffer(capacity: 256)
            buffer.writeString("\(HTTP1Writing.clean(head.method.rawValue)) \(HTTP1Writing.clean(head.uri)) \(head.version)\r\n")
            HTTP1Writing.write(head.headers, to: &buffer)
            context.write(wrapOutboundOut(buffer), promise: promise)
        case .body(let part):
            context.write(wrapOutboundOut(part), promise: promise)
        case .end:
            context.write(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: promise)
        }
    }

    private func deliver(_ event: HTTP1Parser.Event, _ context: ChannelHandlerContext) {
        switch event {
        case .responseHead(let head): context.fireChannelRead(wrapInboundOut(.head(head)))
        case .body(let part): context.fireChannelRead(wrapInboundOut(.body(part)))
        case .end: context.fireChannelRead(wrapInboundOut(.end))
        case .requestHead: break
        }
    }

    private func fail(_ error: any Error, _ context: ChannelHandlerContext) {
        failed = true
        received = nil
        context.fireErrorCaught(error)
    }
}

/// How heads are written.
enum HTTP1Writing {
    /// Each field as `name: value` CRLF, then the empty line.
    static func write(_ headers: HTTPHeaders, to buffer: inout ByteBuffer) {
        for (name, value) in headers {
            buffer.writeString(clean(name))
            buffer.writeString(": ")
            buffer.writeString(clean(value))
            buffer.writeString("\r\n")
        }
        buffer.writeString("\r\n")
    }

    /// `text` with CR and LF made spaces: nothing written into a head can end it or add a field.
    static func clean(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return text }
        return String(decoding: text.utf8.map { $0 == 0x0D || $0 == 0x0A ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }
}
