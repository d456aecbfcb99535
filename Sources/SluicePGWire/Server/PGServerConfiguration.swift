import NIOCore

/// How a ``PGServer`` listens and whom it lets in.
package struct PGServerConfiguration: Sendable {
    /// The address to bind, e.g. "127.0.0.1" or "0.0.0.0".
    package var host: String
    /// The port to bind; 0 picks a free one (see ``PGServer/port``). RisingWave uses 4566.
    package var port: Int
    package var authentication: PGAuthentication
    /// The largest frontend message accepted, counting its length field; longer ones are
    /// rejected with 08P01 before any of the body is buffered.
    package var maxMessageLength: Int
    /// Reported as `server_version`; psql and drivers parse it to pick features.
    package var serverVersion: String
    /// The listen backlog.
    package var backlog: Int32
    /// TLS for clients that ask for it (SSLRequest); nil answers them `N`.
    package var tls: PGTLS?

    package init(
        host: String = "127.0.0.1", port: Int = 4566, authentication: PGAuthentication = .trust,
        maxMessageLength: Int = 64 << 20, serverVersion: String = "13.14.0", backlog: Int32 = 256
    ) {
        self.host = host
        self.port = port
        self.authentication = authentication
        self.maxMessageLength = maxMessageLength
        self.serverVersion = serverVersion
        self.backlog = backlog
    }
}

/// TLS on the SQL port. The wire server does not link a TLS library: the server that configures
/// it makes the handler (SluiceNet's `TLSHandler`, over OpenSSL).
package struct PGTLS: Sendable {
    /// A new TLS server handler, one per connection.
    package var makeHandler: @Sendable () throws -> any ChannelHandler
    /// Whether clients on a loopback address, and on other addresses, must use TLS (Postgres's
    /// `hostssl` lines); the others may.
    package var requiredOnLoopback: Bool
    package var requiredOnOther: Bool

    package init(requiredOnLoopback: Bool = false, requiredOnOther: Bool = true, makeHandler: @escaping @Sendable () throws -> any ChannelHandler) {
        self.makeHandler = makeHandler
        self.requiredOnLoopback = requiredOnLoopback
        self.requiredOnOther = requiredOnOther
    }
}
