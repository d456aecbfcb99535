import Hummingbird
import HummingbirdCore
import NIOCore
import SluiceCore
import Synchronization

/// A Hummingbird application served in the background on Hummingbird's shared event loops, so
/// it lives beside the process's other NIO servers: ``start()`` returns the bound port once it
/// listens (useful with port 0), ``stop()`` ends it. The Iceberg REST catalog and the server's
/// HTTP app (dashboard, metrics) both run on one.
package final class BackgroundHTTPServer<Responder: HTTPResponder>: Sendable where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    package let host: String
    package let requestedPort: Int
    let responder: Responder
    /// HTTP/1.1, or HTTP/1.1 over TLS (the server target builds that one).
    let builder: HTTPServerBuilder
    /// Named in errors ("the Iceberg REST server stopped").
    let name: String
    private let background = Mutex<Task<Void, any Error>?>(nil)
    private let boundPort = Mutex<Int?>(nil)

    package init(host: String, port: Int, responder: Responder, name: String, builder: HTTPServerBuilder = .http1()) {
        self.builder = builder
        self.host = host
        self.requestedPort = port
        self.responder = responder
        self.name = name
    }

    /// The port it listens on once it runs.
    package var port: Int? { boundPort.withLock { $0 } }

    /// Starts serving in the background; returns the bound port once the server listens.
    /// - Throws: when the server fails before listening (the port is taken, say).
    @discardableResult
    package func start() async throws -> Int {
        let (ready, continuation) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let task = Task {
            do {
                let application = Application(
                    responder: responder,
                    server: builder,
                    configuration: ApplicationConfiguration(address: .hostname(host, port: requestedPort), serverName: nil),
                    onServerRunning: { channel in
                        let port = channel.localAddress?.port ?? 0
                        self.boundPort.withLock { $0 = port }
                        continuation.yield(.success(port))
                    })
                try await application.run()
                continuation.yield(.failure(SluiceError(.ioError, "the \(name) stopped")))
            } catch {
                continuation.yield(.failure(error))
                throw error
            }
        }
        background.withLock { $0 = task }
        for await result in ready { return try result.get() }
        throw SluiceError(.ioError, "the \(name) did not start")
    }

    /// Stops a server started with ``start()`` and waits for it to finish.
    package func stop() async {
        guard let task = background.withLock({ current -> Task<Void, any Error>? in
            defer { current = nil }
            return current
        }) else { return }
        task.cancel()
        _ = await task.result
    }
}
