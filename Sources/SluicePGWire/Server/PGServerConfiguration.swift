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
