import NIOCore
import NIOPosix
import SluiceAuth

/// A Postgres wire-protocol server: accepts connections and runs each through a
/// ``PGConnectionHandler`` against `backend`.
package final class PGServer: Sendable {
    /// The address the server listens on.
    package let localAddress: SocketAddress
    private let channel: any Channel
    private let registry: PGConnectionRegistry

    /// The port the server listens on; useful after binding port 0.
    package var port: Int { localAddress.port ?? 0 }

    private init(channel: any Channel, localAddress: SocketAddress, registry: PGConnectionRegistry) {
        self.channel = channel
        self.localAddress = localAddress
        self.registry = registry
    }

    /// Binds `configuration.host:port` and starts accepting connections.
    ///
    /// SCRAM verifiers are derived here, once per user. `group` defaults to NIO's shared
    /// multi-threaded group (one loop per core).
    package static func start(
        configuration: PGServerConfiguration, backend: any PGBackend,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> PGServer {
        let registry = PGConnectionRegistry()
        let authentication = configuration.authentication
        let serverVersion = configuration.serverVersion
        let maxMessageLength = configuration.maxMessageLength
        let tls = configuration.tls
        let threads = SessionThreads()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: configuration.backlog)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                guard registry.track(channel) else {
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    let key = registry.makeCancelKey()
                    // Loopback clients and the others may authenticate differently.
                    let isLoopback = channel.remoteAddress.map(Self.isLoopback) ?? false
                    var connectionConfiguration = ConnectionStateMachine.Configuration(
                        authenticator: authentication.authenticator(loopback: isLoopback), serverVersion: serverVersion)
                    connectionConfiguration.tls = tls
                    connectionConfiguration.tlsRequired = tls.map { isLoopback ? $0.requiredOnLoopback : $0.requiredOnOther } ?? false
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(PGFrontendDecodingHandler(maxMessageLength: maxMessageLength)),
                        PGConnectionHandler(
                            configuration: connectionConfiguration, backend: backend, registry: registry, threads: threads,
                            processID: key.processID, secretKey: key.secretKey
                        ),
                    ])
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        guard let localAddress = channel.localAddress else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return PGServer(channel: channel, localAddress: localAddress, registry: registry)
    }

    /// Logins refused since the server started.
    package var failedLogins: Int { registry.failedLogins.load(ordering: .relaxed) }

    /// Whether `address` is a loopback address (127.0.0.0/8, ::1, or a Unix socket).
    package static func isLoopback(_ address: SocketAddress) -> Bool {
        address.isLoopback
    }

    /// Stops accepting connections and closes the open ones; their sessions are cancelled and terminated.
    package func shutdown() async throws {
        try? await channel.close()
        for connection in registry.shutDown() {
            try? await connection.close()
        }
    }
}
