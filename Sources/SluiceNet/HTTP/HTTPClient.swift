import NIOCore
import NIOPosix
import SluiceCore
import Synchronization

/// A small HTTP/1.1 client over NIO for the S3 store, Iceberg REST catalogs and schema
/// registries: `http` and `https` (OpenSSL, ``TLSHandler``), connections kept alive and
/// reused per origin, a connect timeout, a read timeout, an optional deadline per request and
/// a bound on an answer's size. No redirects are followed and nothing is retried here: the
/// callers decide (a request sent on a kept connection the server had just closed is the one
/// exception, sent once more on a new connection).
///
/// Requests run on the event loops; ``execute(_:deadline:)`` returns their future, which a
/// caller off the loops may wait on.
package final class HTTPClient: Sendable {
    package struct Configuration: Sendable {
        package var connectTimeout: Duration = .seconds(10)
        /// The longest wait for the next byte of an answer.
        package var readTimeout: Duration = .seconds(60)
        package var maximumBodyBytes = 64 << 20
        /// Connections kept open per origin between requests.
        package var idleConnectionsPerOrigin = 8
        /// The roots `https` servers are checked against: nil for the system's.
        package var tls: TLSContext?

        package init(connectTimeout: Duration = .seconds(10), readTimeout: Duration = .seconds(60), maximumBodyBytes: Int = 64 << 20) {
            self.connectTimeout = connectTimeout
            self.readTimeout = readTimeout
            self.maximumBodyBytes = maximumBodyBytes
        }
    }

    package let configuration: Configuration
    package let eventLoopGroup: any EventLoopGroup
    private let idle = Mutex<(connections: [String: [any Channel]], isShutDown: Bool)>(([:], false))

    package init(configuration: Configuration = Configuration(), eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
    }

    deinit { closeIdleConnections() }

    /// The process's shared client.
    package static let shared = HTTPClient()

    /// Sends `request`; the future holds the whole answer. `deadline` bounds the whole exchange.
    package func execute(_ request: HTTPClientRequest, deadline: NIODeadline? = nil) -> EventLoopFuture<HTTPClientResponse> {
        let (kept, eventLoop) = takeIdle(request.url.origin)
        let promise = eventLoop.makePromise(of: HTTPClientResponse.self)
        if let deadline {
            let timer = eventLoop.scheduleTask(deadline: deadline) { promise.fail(HTTPClientError.timedOut) }
            promise.futureResult.whenComplete { _ in timer.cancel() }
        }
        if let kept {
            send(request, on: kept).whenComplete { result in
                switch result {
                case .success(let response): promise.succeed(response)
                case .failure(HTTPClientError.closedByPeer):
                    // The server closed the kept connection as the request went out.
                    self.connect(request.url, on: eventLoop).flatMap { self.send(request, on: $0) }.cascade(to: promise)
                case .failure(let error): promise.fail(error)
                }
            }
        } else {
            connect(request.url, on: eventLoop).flatMap { self.send(request, on: $0) }.cascade(to: promise)
        }
        return promise.futureResult
    }

    package func execute(_ request: HTTPClientRequest, timeout: Duration? = nil) async throws(HTTPClientError) -> HTTPClientResponse {
        do {
            return try await execute(request, deadline: timeout.map { NIODeadline.now() + Self.timeAmount($0) }).get()
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw .closedByPeer
        }
    }

    /// Closes the kept connections; a shut-down client fails every request after.
    package func shutdown() {
        idle.withLock { $0.isShutDown = true }
        closeIdleConnections()
    }

    // MARK: Connections

    private func send(_ request: HTTPClientRequest, on channel: any Channel) -> EventLoopFuture<HTTPClientResponse> {
        let promise = channel.eventLoop.makePromise(of: HTTPClientResponse.self)
        let exchange = HTTPClientExchange(
            request: request, promise: promise, readTimeout: Self.timeAmount(configuration.readTimeout),
            maximumBodyBytes: configuration.maximumBodyBytes)
        channel.writeAndFlush(exchange).whenFailure { _ in promise.fail(HTTPClientError.closedByPeer) }
        return promise.futureResult
    }

    private func connect(_ url: HTTPURL, on eventLoop: any EventLoop) -> EventLoopFuture<any Channel> {
        if idle.withLock({ $0.isShutDown }) { return eventLoop.makeFailedFuture(HTTPClientError.shutDown) }
        let tls: TLSContext?
        if url.isSecure {
            switch configuration.tls.map({ .success($0) }) ?? TLSContext.systemClient {
            case .success(let context): tls = context
            case .failure(let error): return eventLoop.makeFailedFuture(HTTPClientError.tls(error.message))
            }
        } else {
            tls = nil
        }
        let origin = url.origin
        let host = url.host
        // Done once the connection may carry a request: at once for http, after the handshake
        // for https.
        let ready = eventLoop.makePromise(of: Void.self)
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(Self.timeAmount(configuration.connectTimeout))
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls { try pipeline.addHandler(TLSHandler(context: tls, serverName: host)) } else { ready.succeed() }
                    try pipeline.addHandler(HTTP1ClientCodec())
                    try pipeline.addHandler(HTTPClientConnectionHandler(ready: ready) { [weak self, weak channel] reusable in
                        guard let self, let channel else { return }
                        if reusable { self.keep(channel, origin: origin) }
                    })
                }
            }
            .connect(host: url.host, port: url.port)
            .flatMapErrorThrowing { error in
                let failure = HTTPClientError.connectFailed("\(url.hostHeader): \(error)")
                ready.fail(failure)
                throw failure
            }
            .flatMap { channel in ready.futureResult.map { channel } }
    }

    /// A kept connection to `origin` that is still open, and the loop to run the request on.
    private func takeIdle(_ origin: String) -> ((any Channel)?, any EventLoop) {
        let kept: (any Channel)? = idle.withLock { state in
            while let channel = state.connections[origin]?.popLast() {
                if channel.isActive { return channel }
            }
            return nil
        }
        return (kept, kept?.eventLoop ?? eventLoopGroup.next())
    }

    private func keep(_ channel: any Channel, origin: String) {
        let kept = idle.withLock { state -> Bool in
            guard !state.isShutDown, state.connections[origin, default: []].count < configuration.idleConnectionsPerOrigin else { return false }
            state.connections[origin, default: []].append(channel)
            return true
        }
        if !kept { channel.close(promise: nil) }
    }

    private func closeIdleConnections() {
        let channels = idle.withLock { state in
            defer { state.connections = [:] }
            return state.connections.values.flatMap { $0 }
        }
        for channel in channels { channel.close(promise: nil) }
    }

    package static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
