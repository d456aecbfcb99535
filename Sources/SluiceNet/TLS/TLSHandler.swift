import CLibSSL
import NIOCore
import SluiceCore

/// A TLS connection that failed: the handshake was refused (a bad certificate, no common
/// version or cipher), or a record did not decrypt. The handler closes the channel after it.
package struct TLSError: Error, CustomStringConvertible, Sendable {
    package let message: String
    package var description: String { message }
}

/// Fired inbound once the handshake is done; application data flows after it.
package struct TLSHandshakeCompleted: Sendable {}

/// TLS over one channel with OpenSSL: the network's bytes go into the session through one
/// memory buffer and its records come out through another, so the session never touches the
/// socket and every step runs on the channel's event loop without blocking.
///
/// Added to a pipeline (first, or after the bytes that ask for TLS, as PostgreSQL's SSLRequest
/// does), it takes ciphertext in and hands plaintext on; plaintext written through it leaves
/// as records. Writes made before the handshake ends wait for it. Closing sends a
/// `close_notify` first; a peer's `close_notify` closes the channel.
package final class TLSHandler: ChannelDuplexHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private enum State { case idle, handshaking, active, closed }

    private let tlsContext: TLSContext
    private let serverName: String?
    private var ssl: OpaquePointer?
    private var networkIn: OpaquePointer?
    private var networkOut: OpaquePointer?
    private var state = State.idle
    private var pendingWrites = CircularBuffer<(ByteBuffer, EventLoopPromise<Void>?)>()
    private var flushPending = false

    /// A handler for `context`'s role. A client names the server it expects: the name is sent
    /// (SNI) and the peer's certificate must carry it (or the IP address), unless the context
    /// verifies no peer.
    package init(context: TLSContext, serverName: String? = nil) {
        tlsContext = context
        self.serverName = serverName
    }

    /// The largest piece of plaintext read at once (a TLS record holds at most 16 KiB).
    private static let readChunk = 16 * 1024

    // MARK: Life cycle

    package func handlerAdded(context: ChannelHandlerContext) {
        guard let session = SSL_new(tlsContext.pointer), let input = BIO_new(BIO_s_mem()), let output = BIO_new(BIO_s_mem()) else {
            state = .closed
            context.fireErrorCaught(TLSError(message: "could not start a TLS session: \(TLSContext.lastError())"))
            context.close(promise: nil)
            return
        }
        // An empty input buffer means "more to come", never end of file.
        _ = sluice_BIO_set_mem_eof_return(input, -1)
        SSL_set_bio(session, input, output)
        ssl = session
        networkIn = input
        networkOut = output
        switch tlsContext.role {
        case .server:
            SSL_set_accept_state(session)
        case .client:
            SSL_set_connect_state(session)
            if let serverName, !serverName.isEmpty {
                if serverName.utf8.contains(UInt8(ascii: ":")) || serverName.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }) {
                    _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(session), serverName)
                } else {
                    _ = sluice_SSL_set_tlsext_host_name(session, serverName)
                    _ = SSL_set1_host(session, serverName)
                }
            }
        }
        if context.channel.isActive { start(context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        failPendingWrites(ChannelError.ioOnClosedChannel)
        if let ssl { SSL_free(ssl) }  // frees both memory buffers too
        ssl = nil
        networkIn = nil
        networkOut = nil
        state = .closed
    }

    package func channelActive(context: ChannelHandlerContext) {
        if state == .idle { start(context) }
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        state = .closed
        failPendingWrites(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard state == .idle, ssl != nil else { return }
        state = .handshaking
        // A client speaks first: its hello goes out now.
        if tlsContext.role == .client { advance(context) }
    }

    // MARK: Inbound

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        guard state != .closed, let networkIn else { return }
        if bytes.readableBytes > 0 {
            bytes.withUnsafeReadableBytes { raw in _ = BIO_write(networkIn, raw.baseAddress, Int32(raw.count)) }
        }
        advance(context)
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        sendRecords(context)
        context.fireChannelReadComplete()
    }

    /// Moves the session on with what has arrived: the handshake, then the records' plaintext.
    private func advance(_ context: ChannelHandlerContext) {
        guard let ssl else { return }
        if state == .handshaking {
            let result = SSL_do_handshake(ssl)
            if result != 1 {
                let error = SSL_get_error(ssl, result)
                if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE {
                    sendRecords(context)
                } else {
                    fail(context, "the TLS handshake failed: \(describe(error))")
                }
                return
            }
            state = .active
            sendRecords(context)
            context.fireUserInboundEventTriggered(TLSHandshakeCompleted())
            writePending(context)
        }
        readPlaintext(context)
        sendRecords(context)
    }

    private func readPlaintext(_ context: ChannelHandlerContext) {
        while state == .active, let ssl {
            var buffer = context.channel.allocator.buffer(capacity: Self.readChunk)
            var result: Int32 = 0
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.readChunk) { raw in
                result = SSL_read(ssl, raw.baseAddress, Int32(min(raw.count, Int(Int32.max))))
                return result > 0 ? Int(result) : 0
            }
            if result > 0 {
                context.fireChannelRead(wrapInboundOut(buffer))
                continue
            }
            let error = SSL_get_error(ssl, result)
            switch error {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return
            case SSL_ERROR_ZERO_RETURN:
                // The peer's close_notify: answer with ours and close.
                closeSession(context, promise: nil)
                return
            default:
                fail(context, "a TLS record could not be read: \(describe(error))")
                return
            }
        }
    }

    // MARK: Outbound

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let plaintext = unwrapOutboundIn(data)
        switch state {
        case .idle, .handshaking:
            pendingWrites.append((plaintext, promise))
        case .active:
            encrypt(context, plaintext, promise: promise)
        case .closed:
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    package func flush(context: ChannelHandlerContext) {
        switch state {
        case .idle, .handshaking: flushPending = true
        case .active, .closed: context.flush()
        }
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, state != .closed else {
            context.close(mode: mode, promise: promise)
            return
        }
        closeSession(context, promise: promise)
    }

    private func encrypt(_ context: ChannelHandlerContext, _ plaintext: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let ssl else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        var remaining = plaintext
        while remaining.readableBytes > 0 {
            let written = remaining.withUnsafeReadableBytes { raw in SSL_write(ssl, raw.baseAddress, Int32(min(raw.count, Int(Int32.max)))) }
            guard written > 0 else {
                let message = "a TLS record could not be written: \(describe(SSL_get_error(ssl, written)))"
                promise?.fail(TLSError(message: message))
                fail(context, message)
                return
            }
            remaining.moveReaderIndex(forwardBy: Int(written))
        }
        context.write(wrapOutboundOut(takeRecords(context)), promise: promise)
    }

    private func writePending(_ context: ChannelHandlerContext) {
        while state == .active, let (plaintext, promise) = pendingWrites.popFirst() {
            encrypt(context, plaintext, promise: promise)
        }
        if flushPending, state == .active {
            flushPending = false
            context.flush()
        }
    }

    // MARK: Records and endings

    /// The records the session has made (handshake messages, alerts, data), taken out.
    private func takeRecords(_ context: ChannelHandlerContext) -> ByteBuffer {
        guard let networkOut else { return context.channel.allocator.buffer(capacity: 0) }
        let count = sluice_BIO_pending(networkOut)
        var buffer = context.channel.allocator.buffer(capacity: count)
        guard count > 0 else { return buffer }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
            Int(max(0, BIO_read(networkOut, raw.baseAddress, Int32(count))))
        }
        return buffer
    }

    /// Sends what the session has made, if anything.
    private func sendRecords(_ context: ChannelHandlerContext) {
        let records = takeRecords(context)
        if records.readableBytes > 0 { context.writeAndFlush(wrapOutboundOut(records), promise: nil) }
    }

    /// Sends close_notify, then closes once it is written (or after five seconds, should the
    /// peer not read).
    private func closeSession(_ context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let wasActive = state == .active
        state = .closed
        failPendingWrites(ChannelError.ioOnClosedChannel)
        guard wasActive, let ssl else {
            context.close(promise: promise)
            return
        }
        _ = SSL_shutdown(ssl)
        let records = takeRecords(context)
        guard records.readableBytes > 0 else {
            context.close(promise: promise)
            return
        }
        let timeout = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(5)) { context.close(promise: nil) }
        context.writeAndFlush(wrapOutboundOut(records)).assumeIsolated().whenComplete { _ in
            timeout.cancel()
            context.close(promise: promise)
        }
    }

    /// Ends the connection after a TLS failure: the alert the session made goes out, the
    /// error goes up the pipeline, the channel closes.
    private func fail(_ context: ChannelHandlerContext, _ message: String) {
        guard state != .closed else { return }
        state = .closed
        sendRecords(context)
        let error = TLSError(message: message)
        failPendingWrites(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failPendingWrites(_ error: any Error) {
        while let (_, promise) = pendingWrites.popFirst() { promise?.fail(error) }
        flushPending = false
    }

    private func describe(_ error: Int32) -> String {
        var text = TLSContext.lastError()
        if let ssl, tlsContext.role == .client {
            let verification = SSL_get_verify_result(ssl)
            if verification != X509_V_OK, let reason = X509_verify_cert_error_string(verification) {
                text += " (the server's certificate: \(String(cString: reason)))"
            }
        }
        return error == SSL_ERROR_SYSCALL ? "the connection broke off: \(text)" : text
    }
}
