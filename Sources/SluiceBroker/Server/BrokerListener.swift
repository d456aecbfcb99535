/// One address the broker listens on: an entry of Kafka's `listeners`, with its
/// `advertised.listeners` host. Metadata and FindCoordinator answer a client with the address of
/// the listener it connected to, so a client bootstrapped on a TLS port stays on TLS ports.
package struct BrokerListener: Sendable, Equatable {
    /// Kafka's listener name (`PLAINTEXT`, `SSL`, `EXTERNAL`, …), unique among the listeners.
    package var name: String
    package var host: String
    /// The port; 0 binds a free one (``KafkaBroker/port(of:)`` tells which).
    package var port: Int
    /// The host clients connecting here are told to use; nil: the listen host, or 127.0.0.1 when
    /// that is a wildcard address.
    package var advertisedHost: String?
    /// Whether connections begin with a TLS handshake, through the configuration's
    /// ``BrokerConfiguration/tlsHandlerFactory``.
    package var tls: Bool

    package init(name: String, host: String, port: Int, advertisedHost: String? = nil, tls: Bool = false) {
        self.name = name
        self.host = host
        self.port = port
        self.advertisedHost = advertisedHost
        self.tls = tls
    }

    /// The host advertised for this listener.
    var resolvedAdvertisedHost: String {
        if let advertisedHost { return advertisedHost }
        return host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
    }
}
